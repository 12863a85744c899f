// `byre status`: gather what the model needs (config, skills, engine facts,
// this directory's box across every engine, its verified launch record,
// sibling worktree sessions) and print one tier. Engine questions run in
// parallel; no answer from an engine is data for the page, never a failure.

import type { Io } from '../io.js';
import {
  containmentError,
  containmentInput,
  containmentProblems,
} from '../box/containment-check.js';
import { engineSaid, failedAnswers, openAnswers, poolOf, type PoolAnswer } from '../box/pool.js';
import { projectEngines, type EngineDecision } from '../box/engine-scope.js';
import { describeUnchecked } from '../box/sessions.js';
import { readPresetFacts } from '../box/preset-state.js';
import { cascadeFiles } from '../config/cascade-files.js';
import { presetNote } from '../config/preset.js';
import { VERSION } from '../embedded.js';
import { LABEL } from '../gen/names.js';
import { SELF_EDIT_DIR } from '../gen/box-layout.js';
import type { EngineFacts, EngineName } from '../engine/types.js';
import { ByreError, EngineError, UsageError } from '../errors.js';
import { deliveredHostEnv } from '../hostenv/resolve.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import type { LaunchRecordState } from '../launch/verify.js';
import { printNotes } from '../output/notes.js';
import type { ContainmentRefusal } from '../project/containment.js';
import type { ProjectContext } from '../project/context.js';
import { identityChangeRefusal } from '../project/identity-change.js';
import type { PortSpec } from '../config/types.js';
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
  type StatusSibling,
} from '../status/model.js';
import { renderStatusText } from '../status/render-text.js';
import { boxHostEnv, boxTrees, readBoxConfig, userHome } from './load.js';
import { linkFindingRefusal, linkRefusal } from '../box/granted-paths.js';
import { treeRoots } from '../box/writable-trees.js';
import { withDefaults, type CommandDeps, type Detect } from './deps.js';
import { decideProjectEngine, detectProjectEngine } from './project-engine.js';
import { startStatusScan, type FoundBox, type StatusScan } from './status-scan.js';

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
  answers: readonly PoolAnswer<FoundBox[]>[],
  recorded: EngineName | null,
): ReturnType<typeof failedAnswers<FoundBox[]>> {
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
  others: readonly FoundBox[],
  ownPorts: readonly HostPort[],
  /** An engine that did not answer and may hold this project's box: a held port may be its. */
  unasked: EngineName | null,
): Promise<{ session: SessionPorts | null; refusals: { rule: string; message: string }[] }> {
  if (ports.length === 0) return { session: null, refusals: [] };
  const { planPorts, portRefusal, siblingPortsFrom } = await import('../box/port-plan.js');
  const { hostPortHolder } = await import('../box/port-probe.js');
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

export async function statusCommand(
  io: Io,
  options: StatusOptions,
  given: CommandDeps = {},
  /** The scan the CLI started before this module loaded (status-scan.ts). */
  prefetched?: StatusScan,
): Promise<void> {
  const deps = withDefaults(given);
  if (options.full === true && options.data === true) {
    throw new UsageError('--full and --data cannot be combined', {
      rule: 'status.flags-exclusive',
      remedy: 'use --full for the untruncated page, or --data for JSON',
    });
  }
  const {
    ctx,
    ownRecord,
    otherRecords,
    installed,
    asked,
    answers: recorded,
    ask,
    config: read,
    trees: scanned,
  } = prefetched ?? (await startStatusScan(io, deps.pool));

  const home = userHome(io);
  const { config, warnings: issues, catalog, locate } = read ?? readBoxConfig(ctx, home);
  let skills: ResolvedSkill[] = [];
  let skillError: string | null = null;
  try {
    skills = resolveEnabledSkills(config, catalog, locate);
  } catch (error) {
    // A package that is not there is data for the page (its row says how to
    // get it); an agent that names a skill with no [agent] is a config error.
    if (!(error instanceof ByreError) || error.rule === 'agent.not-an-agent') throw error;
    const install = error.remedy?.includes('byre skill install') === true ? error.remedy : null;
    skillError = install === null ? error.message : `${error.message}; ${install}`;
  }
  // A granted path through a link a box could have planted: on the page, and refused by the exit status (adr/0046).
  const { trees, findings: planted } = boxTrees(
    ctx,
    config,
    skills,
    home,
    locate,
    read === null ? undefined : scanned,
  );

  // Engine questions first, so they run while the host env is read below.
  const decision = decideProjectEngine(ctx, config.engine.value);
  const detection = detect(deps.detect, ctx, decision, treeRoots(trees), io.env);
  const wanted = poolOf(installed, projectEngines(config.engine.value, ownRecord, otherRecords));
  const early = new Set(asked.members.map((m) => m.name));
  const rest = ask({ members: wanted.members.filter((m) => !early.has(m.name)) });
  const order = (a: PoolAnswer<FoundBox[]>): number =>
    installed.members.findIndex((m) => m.name === a.name);
  const scan = Promise.all([recorded, rest]).then(([a, b]) =>
    [...a, ...b].sort((x, y) => order(x) - order(y)),
  );

  const hostEnv = boxHostEnv(io, trees, config);

  const [{ engine, facts }, answers] = await Promise.all([detection, scan]);
  const boxes = answers.flatMap((a) => (a.state === 'ok' ? a.value : []));
  const unchecked = unknownAnswers(answers, decision.recorded);
  const uncheckedText = unchecked.length === 0 ? null : describeUnchecked(unchecked);

  const own = boxes.find((b) => b.labels[LABEL.workdir] === ctx.worktreeId);
  const worktrees = worktreesById(ctx);
  const siblings: StatusSibling[] = boxes
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

  let container: StatusContainer;
  if (own !== undefined) {
    const client = readClientLabel(own.labels[LABEL.client]);
    container = {
      state: 'running',
      id: own.id,
      engine: own.engine,
      ...client,
      clientAlive: client.clientPid === null ? null : deps.pidAlive(client.clientPid),
    };
  } else if (uncheckedText !== null) {
    container = { state: 'unknown', error: `could not ask ${uncheckedText}` };
  } else {
    container = { state: 'not_running' };
  }
  // The launch record's code (and the next launch's, below) loads only with
  // a running box: a page without one does not pay for it.
  let launch: LaunchRecordState | null = null;
  if (own !== undefined) {
    const { readLaunchRecordFile, verifyLaunchRecord } = await import('../launch/verify.js');
    launch = verifyLaunchRecord(own.labels[LABEL.launch], (hash) =>
      readLaunchRecordFile(ctx.project.launches, hash),
    );
  }

  const refusals = [
    ...identityRefusals(ctx),
    ...planted.map(linkFindingRefusal),
    ...(await containmentProblems(containmentInput(ctx, ctx.store.home, home, config, skills))),
  ];
  const ports = await nextPorts(
    ctx,
    config.ports.map((p) => p.value),
    boxes.filter((b) => b !== own),
    launch?.kind === 'verified' ? launch.record.ports : [],
    unchecked.find((u) => u.name === decision.recorded)?.name ?? null,
  );
  let nextLaunch: LaunchRecord | null = null;
  let credentialsDelivered: string[] | null = null;
  if (launch?.kind === 'verified' && own !== undefined) {
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
      hostEnv: deliveredHostEnv(hostEnv),
      labels: { client: io.pid },
    });
    if (ports.session !== null) params.ports = ports.session.ports;
    if (options.selfEdit === true) {
      params.extraBinds = [
        ...params.extraBinds,
        { host: ctx.project.dir, target: SELF_EDIT_DIR, mode: 'rw' },
      ];
    }
    nextLaunch = launchRecordFor({
      params,
      config,
      skills,
      hostUid: io.uid,
      version: VERSION,
      now: deps.clock(),
      image: { digest: '' },
    });
    credentialsDelivered = readDeliveryReceipt(ctx.project.launches, launch.hash);
  }

  const model = statusModel({
    project: ctx,
    config,
    skills,
    skillError,
    engine,
    hostEnv,
    hostUid: io.uid,
    home,
    container,
    launch,
    siblings,
    siblingsError: uncheckedText,
    nextLaunch,
    credentialsDelivered,
    refusals: [...refusals, ...ports.refusals],
    selfEdit: options.selfEdit === true,
    storeDir: ctx.project.dir,
    ...(ports.session === null ? {} : { sessionPorts: ports.session }),
    configFiles: cascadeFiles(config, {
      default: defaultConfigPath(ctx.store.home),
      project: ctx.project.config,
    }),
    claudeSkillProblems: configClaudeSkillProblems(config.claudeSkills, home),
    presetNote: presetNote(readPresetFacts(ctx.project, ctx.worktreeDir)),
  });

  printNotes(io.stderr, issues);
  if (options.data === true) {
    const { renderStatusData } = await import('../status/render-data.js');
    io.stdout.write(renderStatusData(model));
  } else {
    const width = layoutWidth({
      isTty: io.stdoutIsTty,
      columns: io.stdoutColumns,
    });
    io.stdout.write(renderStatusText(model, options.full === true ? 'full' : 'default', width));
  }
  // The page shows what a launch would be; the exit status says develop would refuse it (adr/0018).
  if (planted.length > 0) throw linkRefusal(planted);
  if (refusals.length > 0) throw containmentError(refusals);
}
