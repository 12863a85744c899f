// `byre status`: gather what the model needs (config, skills, engine facts,
// this directory's box across every engine, its verified launch record,
// sibling worktree sessions) and print one tier. Engine questions run in
// parallel; no answer from an engine is data for the page, never a failure.
// Over 500 lines: the gather steps share the page's engine answers; each is short already.

import type { Io } from '../io.js';
import { containmentError, containmentInput, containmentProblems } from '../containment/check.js';
import { engineSaid, failedAnswers, openAnswers, poolOf, type PoolAnswer } from '../engine/pool.js';
import { projectEngines, type EngineDecision } from '../engine/engine-scope.js';
import { describeUnchecked, type PidAlive } from '../session/census.js';
import { readPresetFacts } from './preset-state.js';
import { cascadeFiles } from '../config/cascade-files.js';
import { presetNote } from '../config/preset.js';
import { VERSION } from '../embedded.js';
import { containerName, LABEL } from '../gen/names.js';
import { SELF_EDIT_DIR } from '../gen/box-layout.js';
import type { EngineFacts, EngineName } from '../engine/types.js';
import { ByreError, EngineError, UsageError } from '../errors.js';
import { deliveredHostEnv, type HostEnvEntry } from '../hostenv/resolve.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import type { LaunchRecordState } from '../launch/verify.js';
import { printNotes } from '../output/notes.js';
import type { ContainmentRefusal } from '../project/containment.js';
import type { ProjectContext } from '../project/context.js';
import { identityChangeRefusal } from '../project/identity-change.js';
import type { EffectiveConfig, PortSpec } from '../config/types.js';
import type { HostPort } from '../gen/port-block.js';
import { worktreeIdFor } from '../project/worktree.js';
import { headText, listWorktrees, type WorktreeEntry } from '../project/worktree-list.js';
import { defaultConfigPath } from '../project/store-layout.js';
import { configClaudeSkillProblems } from '../skills/claude-skill-read.js';
import { resolveEnabledSkills } from '../skills/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { layoutWidth } from '../status/width.js';
import {
  readClientLabel,
  statusModel,
  type StatusContainer,
  type StatusEngine,
  type SessionPorts,
  type StatusInput,
  type StatusModel,
  type StatusSibling,
} from '../status/model.js';
import { renderStatusText } from '../status/render-text.js';
import type { WallInput } from '../status/denials.js';
import { boxHostEnv, boxTrees, readBoxConfig, userHome, type BoxConfig } from './load.js';
import { linkFindingRefusal, linkRefusal, type LinkFinding } from '../containment/granted-paths.js';
import { treeRoots } from '../containment/writable-trees.js';
import type { BoxTree } from '../project/box-trees.js';
import { withDefaults, type CommandDeps, type Detect } from './deps.js';
import { decideProjectEngine, detectProjectEngine } from './project-engine.js';
import { startStatusScan, type StatusScanBox, type StatusScan } from './status-scan.js';

export interface StatusOptions {
  full?: boolean;
  data?: boolean;
  /** Also show the grant `develop --self-edit` would add. */
  selfEdit?: boolean;
}

/** The engine develop would run on (adr/0053); an engine that cannot be asked is data, in its own words. */
async function detect(
  detectEngine: Detect,
  ctx: ProjectContext,
  decision: EngineDecision,
  declined: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ engine: StatusEngine; facts: EngineFacts | null }> {
  try {
    const { facts } = await detectProjectEngine(detectEngine, ctx, decision, declined, env);
    return {
      engine: { kind: 'ok', name: facts.name, rootless: facts.rootless, keepId: facts.keepId },
      facts,
    };
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    const cause =
      error instanceof EngineError
        ? error
        : error.cause instanceof EngineError
          ? error.cause
          : null;
    const said = cause === null ? '' : engineSaid(cause.stderr);
    const words = cause === null || said === '' ? '' : `: ${cause.engine} said "${said}"`;
    return { engine: { kind: 'error', message: `${error.message}${words}` }, facts: null };
  }
}

/**
 * The answers that leave this directory's session unknown: a declined or
 * failing engine, and also the engine the project's boxes are on when it
 * does not answer: a daemon byre cannot reach (a stray DOCKER_HOST) may
 * still run the box.
 */
function unknownAnswers(
  answers: readonly PoolAnswer<StatusScanBox[]>[],
  recorded: EngineName | null,
): ReturnType<typeof failedAnswers<StatusScanBox[]>> {
  const open = new Set(openAnswers(answers));
  return failedAnswers(answers).filter((a) => open.has(a) || a.name === recorded);
}

/**
 * The ports the next launch would publish (adr/0034), asked like develop asks:
 * this project's other boxes by their records, the host by a listen probe. The
 * box's own ports (it is running) count as free: they are what it would reuse.
 */
async function nextPorts(
  ctx: ProjectContext,
  ports: readonly PortSpec[],
  others: readonly StatusScanBox[],
  ownPorts: readonly HostPort[],
  /** An engine that did not answer and may hold this project's box: a held port may be its. */
  unasked: EngineName | null,
): Promise<{ session: SessionPorts | null; refusals: { rule: string; message: string }[] }> {
  if (ports.length === 0) return { session: null, refusals: [] };
  const { planPorts, portRefusal, siblingPortsFrom } = await import('../session/port-plan.js');
  const { hostPortHolder } = await import('../host/port-probe.js');
  const own = (iface: string, port: number): boolean =>
    ownPorts.some((p) => p.host === port && p.interface === iface);
  const choice = await planPorts({
    ports,
    linked: ctx.isLinkedWorktree,
    worktreeId: ctx.worktreeId,
    siblings: siblingPortsFrom(others, ctx.project.launches),
    hostHolder: async (iface, port) => {
      if (own(iface, port)) return null;
      const holder = await hostPortHolder(iface, port);
      return holder === null || unasked === null
        ? holder
        : `${holder}, or this project's box on ${unasked}, which byre could not ask`;
    },
  });
  const refusal = portRefusal(choice);
  if (refusal !== null)
    return { session: null, refusals: [{ rule: refusal.rule, message: refusal.message }] };
  return choice.kind === 'ok'
    ? { session: { block: choice.block, ports: choice.ports }, refusals: [] }
    : { session: null, refusals: [] };
}

/**
 * A forged worktree structure or a changed identity (adr/0047): the page
 * shows the directory as it resolves now (a forged one as its own project),
 * and the refusals every other verb gives.
 */
function identityRefusals(ctx: ProjectContext): ContainmentRefusal[] {
  const change = ctx.identityChange === null ? null : identityChangeRefusal(ctx.identityChange);
  return [ctx.forged, change].flatMap((refusal) =>
    refusal === null
      ? []
      : [{ rule: refusal.rule, message: refusal.message, remedy: refusal.remedy ?? '' }],
  );
}

/** The repository's worktrees by worktree id, read from git's files (never by running git). */
function worktreesById(ctx: ProjectContext): Map<string, WorktreeEntry> {
  if (ctx.commonGitDir === null) return new Map();
  const { entries } = listWorktrees(ctx.commonGitDir, ctx.projectRoot);
  return new Map(entries.map((e) => [e.admin === null ? ctx.projectId : worktreeIdFor(e.path), e]));
}

/**
 * The enabled skills, or why they could not be resolved: a package that is
 * not there is data for the page (its row says how to get it); an agent that
 * names a skill with no [agent] is a config error.
 */
function pageSkills(box: BoxConfig): { skills: ResolvedSkill[]; skillError: string | null } {
  try {
    return { skills: resolveEnabledSkills(box.config, box.catalog, box.locate), skillError: null };
  } catch (error) {
    if (!(error instanceof ByreError) || error.rule === 'agent.not-an-agent') throw error;
    const install = error.remedy?.includes('byre skill install') === true ? error.remedy : null;
    return {
      skills: [],
      skillError: install === null ? error.message : `${error.message}; ${install}`,
    };
  }
}

/**
 * The config as the page shows it: read again unless the scan read it
 * cleanly, its skills (or why not), the box-writable trees, and any granted
 * path through a link a box could have planted: on the page, and refused by
 * the exit status (adr/0046).
 */
function readPageConfig(
  scanned: StatusScan,
  home: string,
): BoxConfig & {
  skills: ResolvedSkill[];
  skillError: string | null;
  trees: BoxTree[];
  planted: LinkFinding[];
} {
  const box = scanned.config ?? readBoxConfig(scanned.ctx, home);
  const { skills, skillError } = pageSkills(box);
  const { trees, findings: planted } = boxTrees(
    scanned.ctx,
    box.config,
    skills,
    home,
    box.locate,
    scanned.config === null ? undefined : scanned.trees,
  );
  return { ...box, skills, skillError, trees, planted };
}

/**
 * Starts the engine questions: which engine develop would run on, and every
 * engine the project's boxes may be on (those the scan has not asked yet
 * are asked now), answers in the installed pool's order.
 */
function askEngines(
  deps: ReturnType<typeof withDefaults>,
  io: Io,
  scanned: StatusScan,
  config: EffectiveConfig,
  trees: readonly BoxTree[],
): {
  decision: EngineDecision;
  detection: ReturnType<typeof detect>;
  scan: Promise<PoolAnswer<StatusScanBox[]>[]>;
} {
  const { ctx, ownRecord, otherRecords, installed, asked, answers: recorded, ask } = scanned;
  const decision = decideProjectEngine(ctx, config.engine.value);
  const detection = detect(deps.detect, ctx, decision, treeRoots(trees), io.env);
  const wanted = poolOf(installed, projectEngines(config.engine.value, ownRecord, otherRecords));
  const early = new Set(asked.members.map((m) => m.name));
  const rest = ask({ members: wanted.members.filter((m) => !early.has(m.name)) });
  const order = (a: PoolAnswer<StatusScanBox[]>): number =>
    installed.members.findIndex((m) => m.name === a.name);
  const scan = Promise.all([recorded, rest]).then(([a, b]) =>
    [...a, ...b].sort((x, y) => order(x) - order(y)),
  );
  return { decision, detection, scan };
}

/** --full is the untruncated page and --data is JSON: one page cannot be both. */
function refuseFullWithData(options: StatusOptions): void {
  if (options.full === true && options.data === true) {
    throw new UsageError('--full and --data cannot be combined', {
      rule: 'status.flags-exclusive',
      remedy: 'use --full for the untruncated page, or --data for JSON',
    });
  }
}

/**
 * What the engines' answers say: every box found, this directory's own, the
 * engines that leave it unknown (and the recorded one among them, which may
 * hold its ports), the sibling worktrees' boxes, and the Container row's state.
 */
function foundBoxes(
  ctx: ProjectContext,
  answers: readonly PoolAnswer<StatusScanBox[]>[],
  recorded: EngineName | null,
  pidAlive: PidAlive,
): {
  boxes: StatusScanBox[];
  own: StatusScanBox | undefined;
  unasked: EngineName | null;
  uncheckedText: string | null;
  siblings: StatusSibling[];
  container: StatusContainer;
} {
  const boxes = answers.flatMap((a) => (a.state === 'ok' ? a.value : []));
  const unchecked = unknownAnswers(answers, recorded);
  const uncheckedText = unchecked.length === 0 ? null : describeUnchecked(unchecked);
  const own = boxes.find((b) => b.labels[LABEL.workdir] === ctx.worktreeId);
  return {
    boxes,
    own,
    unasked: unchecked.find((u) => u.name === recorded)?.name ?? null,
    uncheckedText,
    siblings: siblingsOf(ctx, boxes, own),
    container: containerOf(own, uncheckedText, pidAlive),
  };
}

/** The running boxes of this repository's other worktrees, with their paths and branches. */
function siblingsOf(
  ctx: ProjectContext,
  boxes: readonly StatusScanBox[],
  own: StatusScanBox | undefined,
): StatusSibling[] {
  const worktrees = worktreesById(ctx);
  return boxes
    .filter((b) => b !== own && b.labels[LABEL.workdir] !== undefined)
    .map((b) => {
      const worktreeId = b.labels[LABEL.workdir] ?? '';
      const wt = worktrees.get(worktreeId);
      return {
        worktreeId,
        id: b.id,
        engine: b.engine,
        path: wt?.path ?? null,
        branch: wt === undefined ? null : headText(wt.head),
      };
    });
}

/** This directory's box: running (and who started it), unknown when an engine could not be asked, or not running. */
function containerOf(
  own: StatusScanBox | undefined,
  uncheckedText: string | null,
  pidAlive: PidAlive,
): StatusContainer {
  if (own !== undefined) {
    const client = readClientLabel(own.labels[LABEL.client]);
    return {
      state: 'running',
      id: own.id,
      engine: own.engine,
      ...client,
      clientAlive: client.clientPid === null ? null : pidAlive(client.clientPid),
    };
  }
  if (uncheckedText !== null) return { state: 'unknown', error: `could not ask ${uncheckedText}` };
  return { state: 'not_running' };
}

/**
 * The running box's launch record, verified. Its code (and the next
 * launch's) loads only with a running box: a page without one does not pay for it.
 */
async function ownLaunch(ctx: ProjectContext, own: StatusScanBox): Promise<LaunchRecordState> {
  const { readLaunchRecordFile, verifyLaunchRecord } = await import('../launch/verify.js');
  return verifyLaunchRecord(own.labels[LABEL.launch], (hash) =>
    readLaunchRecordFile(ctx.project.launches, hash),
  );
}

/**
 * What the wall refused: the running walled box's events, read from its
 * helper through the box's own engine; with no box here, the last walled
 * session's record (adr/0064). Null for an open box, or one without a verified record.
 */
async function wallOf(
  ctx: ProjectContext,
  own: StatusScanBox | undefined,
  launch: LaunchRecordState | null,
  answers: readonly PoolAnswer<StatusScanBox[]>[],
): Promise<WallInput | null> {
  const [{ readWallEvents, readWallRecord }, { wallHelperName }] = await Promise.all([
    import('../network/wall-log.js'),
    import('../network/netns.js'),
  ]);
  if (own === undefined) {
    const record = readWallRecord(ctx.project.launches, ctx.worktreeId);
    return record === null ? null : { of: 'last_session', record };
  }
  if (launch?.kind !== 'verified' || launch.record.network.posture === 'open') return null;
  const answer = answers.find((a) => a.name === own.engine && a.state === 'ok');
  if (answer?.state !== 'ok') return null;
  const helper = wallHelperName(containerName(ctx.worktreeId));
  return { of: 'running_box', ...(await readWallEvents(answer.engine, helper)) };
}

/**
 * The running box's edge when the config injects (adr/0070): up when its
 * helper runs (found by its label) and said it is ready, with what it
 * refused, read from its log through the box's own engine. Null without
 * injections: the page has no Edge row.
 */
async function edgeOf(
  ctx: ProjectContext,
  config: EffectiveConfig,
  own: StatusScanBox | undefined,
  answers: readonly PoolAnswer<StatusScanBox[]>[],
): Promise<NonNullable<StatusInput['edge']> | null> {
  if (config.injections.length === 0) return null;
  if (own === undefined) return { state: 'no-box', events: null };
  const answer = answers.find((a) => a.name === own.engine && a.state === 'ok');
  if (answer?.state !== 'ok') return { state: 'unknown', events: null };
  const [{ edgeHelperName }, { parseEdgeEvents }] = await Promise.all([
    import('../network/edge.js'),
    import('../status/injection.js'),
  ]);
  const box = containerName(ctx.worktreeId);
  try {
    const running = await answer.engine.ps({ labels: { [LABEL.edge]: box }, all: false });
    const log = running.length === 0 ? null : await answer.engine.logs(edgeHelperName(box));
    if (log === null) return { state: 'down', events: null };
    const ready = log.stdout.split('\n').includes('byre-edge 1 ready');
    return { state: ready ? 'up' : 'down', events: parseEdgeEvents(log.stdout) };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return { state: 'unknown', events: null };
  }
}

/**
 * What the next launch of a verified running box would record, and the
 * credentials its launch delivered, for the page's "Next launch" rows; none
 * without such a box.
 */
async function nextLaunchOf(input: {
  io: Io;
  ctx: ProjectContext;
  config: EffectiveConfig;
  skills: ResolvedSkill[];
  facts: EngineFacts | null;
  own: StatusScanBox | undefined;
  launch: LaunchRecordState | null;
  home: string;
  hostEnv: HostEnvEntry[];
  sessionPorts: SessionPorts | null;
  selfEdit: boolean;
  clock: () => Date;
}): Promise<{ nextLaunch: LaunchRecord | null; credentialsDelivered: string[] | null }> {
  const { io, ctx, config, skills, facts, own, launch, home } = input;
  if (launch?.kind !== 'verified' || own === undefined)
    return { nextLaunch: null, credentialsDelivered: null };
  const [{ launchRunParams }, { launchRecordFor }, { readDeliveryReceipt }] = await Promise.all([
    import('../gen/run-params.js'),
    import('../gen/launch-plan.js'),
    import('../launch/store.js'),
  ]);
  const boxEngine = facts?.name === own.engine ? facts : { name: own.engine, keepId: false };
  const params = launchRunParams({
    box: ctx,
    config,
    skills,
    engine: boxEngine,
    hostUid: io.uid,
    hostGid: io.gid,
    home,
    hostEnv: deliveredHostEnv(input.hostEnv),
    labels: { client: io.pid },
  });
  if (input.sessionPorts !== null) params.ports = input.sessionPorts.ports;
  if (input.selfEdit) {
    params.extraBinds = [
      ...params.extraBinds,
      { host: ctx.project.dir, target: SELF_EDIT_DIR, mode: 'rw' },
    ];
  }
  const nextLaunch = launchRecordFor({
    params,
    config,
    skills,
    hostUid: io.uid,
    version: VERSION,
    now: input.clock(),
    image: { digest: '' },
  });
  return {
    nextLaunch,
    credentialsDelivered: readDeliveryReceipt(ctx.project.receipts, launch.hash),
  };
}

/** What the page reads from the host's files: the cascade's config files, Claude Skills problems, the preset note. */
function storeFacts(
  ctx: ProjectContext,
  config: EffectiveConfig,
  home: string,
): Pick<StatusInput, 'configFiles' | 'claudeSkillProblems' | 'presetNote'> {
  return {
    configFiles: cascadeFiles(config, {
      default: defaultConfigPath(ctx.store.home),
      project: ctx.project.config,
    }),
    claudeSkillProblems: configClaudeSkillProblems(config.claudeSkills, home),
    presetNote: presetNote(readPresetFacts(ctx.project, ctx.worktreeDir)),
  };
}

/** Prints the page: JSON for --data, else the text tier at the terminal's width. */
async function writePage(io: Io, model: StatusModel, options: StatusOptions): Promise<void> {
  if (options.data === true) {
    const { renderStatusData } = await import('../status/render-data.js');
    io.stdout.write(renderStatusData(model));
    return;
  }
  const width = layoutWidth({
    isTty: io.stdoutIsTty,
    columns: io.stdoutColumns,
  });
  io.stdout.write(renderStatusText(model, options.full === true ? 'full' : 'default', width));
}

export async function statusCommand(
  io: Io,
  options: StatusOptions,
  given: CommandDeps = {},
  /** The scan the CLI started before this module loaded (status-scan.ts). */
  prefetched?: StatusScan,
): Promise<void> {
  const deps = withDefaults(given);
  refuseFullWithData(options);
  const scanned = prefetched ?? (await startStatusScan(io, deps.pool));
  const { ctx } = scanned;
  const home = userHome(io);
  const {
    config,
    warnings: issues,
    skills,
    skillError,
    trees,
    planted,
  } = readPageConfig(scanned, home);

  // Engine questions first, so they run while the host env is read below.
  const questions = askEngines(deps, io, scanned, config, trees);
  const hostEnv = boxHostEnv(io, trees, config);

  const [{ engine, facts }, answers] = await Promise.all([questions.detection, questions.scan]);
  const found = foundBoxes(ctx, answers, questions.decision.recorded, deps.pidAlive);
  const { own } = found;
  const launch = own === undefined ? null : await ownLaunch(ctx, own);
  const [wall, edge] = await Promise.all([
    wallOf(ctx, own, launch, answers),
    edgeOf(ctx, config, own, answers),
  ]);

  const refusals = [
    ...identityRefusals(ctx),
    ...planted.map(linkFindingRefusal),
    ...(await containmentProblems(containmentInput(ctx, ctx.store.home, home, config, skills))),
  ];
  const ports = await nextPorts(
    ctx,
    config.ports.map((p) => p.value),
    found.boxes.filter((b) => b !== own),
    launch?.kind === 'verified' ? launch.record.ports : [],
    found.unasked,
  );
  const next = await nextLaunchOf({
    io,
    ctx,
    config,
    skills,
    facts,
    own,
    launch,
    home,
    hostEnv,
    sessionPorts: ports.session,
    selfEdit: options.selfEdit === true,
    clock: deps.clock,
  });

  const model = statusModel({
    project: ctx,
    config,
    skills,
    skillError,
    engine,
    hostEnv,
    hostUid: io.uid,
    home,
    container: found.container,
    launch,
    wall,
    edge,
    siblings: found.siblings,
    siblingsError: found.uncheckedText,
    ...next,
    refusals: [...refusals, ...ports.refusals],
    selfEdit: options.selfEdit === true,
    storeDir: ctx.project.dir,
    ...(ports.session === null ? {} : { sessionPorts: ports.session }),
    ...storeFacts(ctx, config, home),
  });

  printNotes(io.stderr, issues);
  await writePage(io, model, options);
  // The page shows what a launch would be; the exit status says develop would refuse it (adr/0018).
  if (planted.length > 0) throw linkRefusal(planted);
  if (refusals.length > 0) throw containmentError(refusals);
}
