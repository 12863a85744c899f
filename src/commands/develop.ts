// `byre develop`: set up if needed and run this directory's box in the
// foreground. Under the setup lock: re-read config, check sessions and
// exclusive volumes, stage and build, create volumes and seed them, write
// the launch record, create the box. Outside it: the banner, then attach.
// Over 500 lines: develop's whole order, in and outside the setup lock; its split is open.

import { existsSync } from 'node:fs';
import path from 'node:path';

import { terminalQuestion, type Io } from '../io.js';
import { exposureLines } from '../box/banner.js';
import { interpretExit } from '../box/exit-status.js';
import { boxSources, checkContainment, containmentInput } from '../box/containment-check.js';
import {
  bindProofRefusal,
  pinSources,
  proofOfBox,
  type BindPins,
  type BoxProof,
} from '../box/bind-pins.js';
import { buildProgressFor } from '../box/build-progress.js';
import { ensureImage } from '../box/image.js';
import { precreateMountPoints } from '../box/mount-points.js';
import { launchRecordFor } from '../gen/launch-plan.js';
import { withSetupLock } from '../project/lock.js';
import {
  onboard,
  onboardedLine,
  type AskFirstRun,
  type OnboardCatalog,
  type OnboardFlags,
} from '../box/onboard.js';
import { answersText } from '../config/onboarding.js';
import { readPresetFacts } from '../box/preset-state.js';
import { presetNote } from '../config/preset.js';
import { enginePool, askPool, openAnswers, poolOf, type EnginePool } from '../box/pool.js';
import { launchedTreesOf, treeRoots } from '../box/writable-trees.js';
import { readEngineRecord, readRecordedEngine, writeEngineRecord } from '../box/engine-record.js';
import { engineMoveLine, formatEngineRecord, sessionEngines } from '../box/engine-scope.js';
import { launchRunParams } from '../gen/run-params.js';
import { censusSessions, describeUnchecked, type LiveBox, type PidAlive } from '../box/sessions.js';
import { probeSockGroups, sockProbes } from '../box/sock-groups.js';
import { planPrefsSeed, seedAgentPrefs, type PrefsSeed } from '../box/seed-prefs.js';
import {
  ensureVolumes,
  seedFreshVolumes,
  type PlannedVolume,
  type SeedContext,
} from '../box/volumes.js';
import type { PortChoice } from '../gen/port-block.js';
import { planPorts, portMappingText, portRefusal, siblingPortsFrom } from '../box/port-plan.js';
import { VERSION } from '../embedded.js';
import { ByreError, PassthroughExit, RefusedError } from '../errors.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { LABEL, containerName, volumeEngineName } from '../gen/names.js';
import { buildRunArgv, expandHost, runEnv, type RunBind, type RunParams } from '../gen/run-argv.js';
import { SELF_EDIT_DIR } from '../gen/box-layout.js';
import { BIND_PROOF_EXIT, bindProofValue } from '../gen/bind-proof.js';
import { engineElsewhereNow } from '../engine/locality-facts.js';
import { enforcePosture, mintNonce, type NetnsPlan } from '../network/netns.js';
import { helperEnv, postureFacts } from '../gen/posture.js';
import { causeDetails } from '../output/render-error.js';
import type { Engine } from '../engine/engine.js';
import type { EngineName } from '../engine/types.js';
import type { EffectiveConfig, PortSpec } from '../config/types.js';
import type { DeliveredValue } from '../credentials/channel.js';
import { deliverCredentials, type CredentialDelivery } from '../credentials/box-delivery.js';
import { askPassphrase } from '../credentials/input.js';
import {
  credentialFiles,
  openCredentials,
  slowIdentityNotes,
  type UnlockCache,
} from '../credentials/open.js';
import { deliveredCredentialRows } from '../config/credential-rows.js';
import { deliveredHostEnv } from '../hostenv/resolve.js';
import {
  launchHashesOnDisk,
  reapLaunchRecords,
  writeDeliveryReceipt,
  writeLaunchRecord,
} from '../launch/store.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import { recordLaunchedTrees } from '../launch/trees-record.js';
import { readLaunchRecordFile, verifyLaunchRecord } from '../launch/verify.js';
import { escapeTerminal } from '../output/escape.js';
import { printNotes, printWarnings, say, sayAll } from '../output/notes.js';
import { exitReport, exitReportLines, type TreeSnapshot } from '../exit-report/report.js';
import { takeSnapshot, type SnapshotScope } from '../exit-report/snapshot.js';
import { selfEditReportLines, type StoreSnapshot } from '../exit-report/store-report.js';
import { snapshotStore } from '../exit-report/store-snapshot.js';
import { NEEDS_CHECKOUT_MARKER } from '../project/worktree-list.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { syncStoreGuide } from '../project/store-guide.js';
import { recordIdentity } from '../project/identity-record.js';
import { storeTag } from '../project/store-layout.js';
import {
  boxHostEnv,
  bundledTemplate,
  loadBoxConfig,
  packageChoices,
  planBox,
  userHome,
} from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { guardFreshConfig } from './fresh-config.js';
import {
  decideProjectEngine,
  detectProjectEngine,
  projectEngineUnavailable,
  unansweredDetails,
} from './project-engine.js';

export interface DevelopOptions extends OnboardFlags {
  /** Stream the engine's whole build log instead of byre's progress line. */
  verbose?: boolean;
  /** `--passphrase-fd N`: read the credentials' passphrase from descriptor N. */
  passphraseFd?: number;
  /** `--self-edit`: this project's store read-write in the box (announced, reported at the end). */
  selfEdit?: boolean;
}

/** The passphrase asked once, and the identities it already opened. */
interface CredentialSession {
  passphrase: string;
  cache: UnlockCache;
}

function liveSessionRefusal(box: LiveBox): RefusedError {
  const short = box.id.slice(0, 12);
  const e = box.engineName;
  return new RefusedError(`a session is already running for this directory (${short}).`, {
    rule: 'develop.session-live',
    details: [
      `• re-attach to it:     ${e} attach --detach-keys=ctrl-p,ctrl-q ${short}`,
      '• open a shell in it:  byre shell',
      `• stop it:             ${e} stop ${short}`,
    ],
  });
}

/**
 * Refuse when a session runs here on any engine (or is being started by
 * another byre), or when one cannot be ruled out; then remove the boxes a
 * gone byre left created (a crash between create and start), which block the
 * name. Runs under the setup lock, so no other byre creates a box meanwhile.
 */
async function claimSession(
  pool: EnginePool,
  ctx: ProjectContext,
  launching: EngineName,
  recorded: EngineName | null,
  alive: PidAlive,
  selfPid: number,
): Promise<EngineName[]> {
  const census = await censusSessions(
    pool,
    { projectId: ctx.projectId, worktreeId: ctx.worktreeId },
    alive,
    selfPid,
  );
  const live = census.boxes[0];
  if (live !== undefined) throw liveSessionRefusal(live);
  // Detection may have answered from memory (adr/0038); the engine itself must answer now.
  const mine = census.unchecked.find((u) => u.name === launching);
  if (mine !== undefined && mine.name === recorded) {
    // The engine the project's boxes are on (adr/0053): refused as detection refuses it.
    throw projectEngineUnavailable(mine.name, unansweredDetails(mine), ctx.project.config);
  }
  if (mine !== undefined) {
    throw new RefusedError(
      `${launching}, the engine this box would start on, cannot be asked: ${describeUnchecked([mine])}`,
      {
        rule: 'develop.engine-unavailable',
        remedy: `fix ${launching} as its own words above say, then run byre develop again`,
      },
    );
  }
  const unknown = openAnswers(census.unchecked);
  if (unknown.length > 0) {
    throw new RefusedError(`cannot rule out a running session: ${describeUnchecked(unknown)}`, {
      rule: 'develop.session-unknown',
      remedy: 'fix the engine named above, or uninstall it from PATH',
    });
  }
  for (const box of census.stale) await box.engine.remove(box.id);
  // Down or refusing this user: no session there now, but asked again next time.
  return census.unchecked.map((u) => u.name);
}

/**
 * The single-session check over the engines that can hold this worktree's
 * session (adr/0032), then the engine record for the next check: this
 * launch's engine and the engines this check could not ask. Under the lock.
 */
async function claimAndRecord(
  pool: EnginePool,
  ctx: ProjectContext,
  configured: EffectiveConfig['engine']['value'],
  launching: EngineName,
  alive: PidAlive,
  selfPid: number,
): Promise<void> {
  const own = readEngineRecord(ctx.project.dir, ctx.worktreeId);
  const recorded = own?.last ?? readRecordedEngine(ctx.project, ctx.worktreeId);
  const unresolved = await claimSession(
    poolOf(pool, sessionEngines(configured, own)),
    ctx,
    launching,
    recorded,
    alive,
    selfPid,
  );
  const next = { last: launching, unresolved };
  if (own !== null && formatEngineRecord(own) === formatEngineRecord(next)) return;
  await writeEngineRecord(ctx.project.dir, ctx.worktreeId, next);
}

/**
 * `sharing = "exclusive"` volumes: refuse when a live box of this project
 * holds one, or when byre cannot establish that none does.
 */
async function checkExclusiveVolumes(
  pool: EnginePool,
  ctx: ProjectContext,
  volumes: readonly PlannedVolume[],
  alive: PidAlive,
  selfPid: number,
): Promise<void> {
  const exclusive = volumes.filter((v) => v.decl.sharing === 'exclusive');
  if (exclusive.length === 0) return;
  const scan = await censusSessions(pool, { projectId: ctx.projectId }, alive, selfPid);
  const names = exclusive.map((v) => v.decl.name).join(', ');
  if (openAnswers(scan.unchecked).length > 0) {
    throw new RefusedError(
      `cannot prove no box holds the exclusive volume(s) ${names}: ${describeUnchecked(scan.unchecked)}`,
      {
        rule: 'develop.exclusive-unknown',
      },
    );
  }
  for (const box of scan.boxes) {
    const labels = await box.engine.inspectLabels(box.id);
    const state = verifyLaunchRecord(labels[LABEL.launch], (hash) =>
      readLaunchRecordFile(ctx.project.launches, hash),
    );
    if (state.kind !== 'verified') {
      throw new RefusedError(
        `box ${box.id.slice(0, 12)} of this project is live and its launch record is ${state.kind}; byre cannot prove it does not hold ${names}`,
        {
          rule: 'develop.exclusive-unknown',
          remedy: `stop it (${box.engineName} stop ${box.id.slice(0, 12)}) first`,
        },
      );
    }
    const held = exclusive.find((v) => state.record.volumes.some((r) => r.name === v.name));
    if (held !== undefined) {
      throw new RefusedError(
        `volume ${held.decl.name} is exclusive and box ${box.id.slice(0, 12)} (${state.record.workdir}) holds it`,
        {
          rule: 'develop.exclusive-held',
          remedy: `stop that session first (${box.engineName} stop ${box.id.slice(0, 12)})`,
        },
      );
    }
  }
}

/**
 * The host ports this session publishes (adr/0034): the configured ones in
 * the main worktree, the worktree's block in a linked one; refused, before
 * anything is created, when they cannot be had. No ports, no engine query.
 */
async function sessionPorts(
  pool: EnginePool,
  ctx: ProjectContext,
  ports: readonly PortSpec[],
  alive: PidAlive,
  selfPid: number,
): Promise<PortChoice> {
  if (ports.length === 0) return { kind: 'ok', ports: [], block: null };
  const scan = await censusSessions(pool, { projectId: ctx.projectId }, alive, selfPid);
  const boxes = await Promise.all(
    scan.boxes.map(async (b) => ({
      id: b.id,
      labels: b.labels ?? (await b.engine.inspectLabels(b.id)),
    })),
  );
  const choice = await planPorts({
    ports,
    linked: ctx.isLinkedWorktree,
    worktreeId: ctx.worktreeId,
    siblings: siblingPortsFrom(boxes, ctx.project.launches),
  });
  const refusal = portRefusal(choice);
  if (refusal !== null) throw refusal;
  return choice;
}

/** Records no container on any engine points at; nothing at all when any engine could not be asked. */
async function referencedRecords(pool: EnginePool, projectId: string): Promise<Set<string> | null> {
  // One `ps` per engine carries each box's launch label.
  const answers = await askPool(pool, async (engine) =>
    (
      await engine.psLabels({ labels: { [LABEL.project]: projectId }, all: true }, [LABEL.launch])
    ).map((row) => row.labels[LABEL.launch]),
  );
  if (answers.some((a) => a.state !== 'ok')) return null;
  return new Set(
    answers.flatMap((a) =>
      a.state === 'ok' ? a.value.filter((h): h is string => h !== undefined) : [],
    ),
  );
}

/** `--self-edit`: the project's store, read-write, where the launcher looks for it. */
function selfEditBind(ctx: ProjectContext): RunBind {
  return { host: ctx.project.dir, target: SELF_EDIT_DIR, mode: 'rw' };
}

/** The loud line before the box exists: this session can rewrite its own grants. */
function warnSelfEdit(io: Io, ctx: ProjectContext): void {
  say(
    io.stderr,
    '🛑 self-edit is on. A malicious or incompetent agent can change the configuration to grant itself full access to your host on the next run.',
  );
  say(
    io.stderr,
    `🛑 the box can write ${ctx.project.dir} (at ${SELF_EDIT_DIR}) until this session ends; byre lists what changed when it does.`,
  );
}

/** The banner's ports line: the mapping, and the block a linked worktree took. */
function portBanner(choice: PortChoice): string[] {
  if (choice.kind !== 'ok' || choice.ports.length === 0) return [];
  const block = choice.block === null ? '' : `  (this worktree's port block ${choice.block})`;
  return [`byre: ports: ${portMappingText(choice.ports)}${block}`];
}

interface Prepared {
  name: string;
  banner: string[];
  /** Set when a posture skill must wall the box from outside. */
  netns: NetnsPlan | null;
  /** Set when credential rows must be delivered over the channel. */
  credentials: CredentialDelivery | null;
  /** The launch record's hash (the delivery receipt names it). */
  launchHash: string;
  /** What the launcher proves first (adr/0045); null when the engine runs elsewhere. */
  proof: BoxProof | null;
}

/**
 * Ask the passphrase once and open every credential row now, so a wrong
 * passphrase or a damaged row fails before any image, volume or box exists.
 */
async function openCredentialSession(
  io: Io,
  config: EffectiveConfig,
  fd: number | undefined,
): Promise<CredentialSession | null> {
  const files = credentialFiles(config);
  if (files.length === 0) return null;
  const passphrase = await askPassphrase(
    { fd: fd ?? null, terminal: io.terminal ?? null },
    `byre: passphrase for the credentials in ${files.map((f) => f.path ?? f.name).join(', ')}: `,
  );
  const session: CredentialSession = { passphrase, cache: new Map() };
  await openCredentials(config, passphrase, session.cache);
  for (const note of slowIdentityNotes(config)) say(io.stderr, note, 'note');
  return session;
}

/** The values for the config read under the lock, opened with the passphrase already asked. */
async function credentialValues(
  config: EffectiveConfig,
  session: CredentialSession | null,
): Promise<DeliveredValue[]> {
  if (deliveredCredentialRows(config).length === 0) return [];
  if (session === null) {
    throw new RefusedError('credential rows were added to the config while byre was starting', {
      rule: 'develop.config-changed',
      remedy: 'run byre develop again',
    });
  }
  return openCredentials(config, session.passphrase, session.cache);
}

async function prepareBox(
  io: Io,
  ctx: ProjectContext,
  engine: Engine,
  detectedChoice: string,
  pool: EnginePool,
  session: CredentialSession | null,
  deps: Pick<ReturnType<typeof withDefaults>, 'clock' | 'pidAlive'>,
  selfEdit: boolean,
  verbose: boolean,
): Promise<Prepared> {
  const home = userHome(io);
  const { config, skills, warnings, trees } = await loadBoxConfig(ctx, home);
  // Again over the config as re-read under the lock, before the engine creates or removes anything:
  // every source pinned first and the pinned objects judged, so the objects the
  // launcher proves at start are the ones judged here (adr/0045).
  const elsewhere = engineElsewhereNow(engine.facts, io.env);
  const checked = containmentInput(ctx, ctx.store.home, home, config, skills);
  // The self-edit store is byre's own and outside the rules (they would refuse it); pinned beside them.
  const pins: BindPins | null =
    elsewhere === null
      ? pinSources([
          ...boxSources(checked).map((s) => s.source),
          ...(selfEdit ? [expandHost(selfEditBind(ctx).host, home)] : []),
        ])
      : null;
  await checkContainment(pins === null ? checked : { ...checked, pins });
  const credentialValuesOpened = await credentialValues(config, session);
  if (config.engine.value !== detectedChoice) {
    throw new RefusedError(
      `the config's engine changed to "${config.engine.value}" while byre was starting on ${engine.facts.name}`,
      { rule: 'develop.engine-changed', remedy: 'run byre develop again' },
    );
  }
  const plan = await planBox(io, { ctx, config, skills, warnings, trees });
  printNotes(io.stderr, [...warnings, ...plan.notes]);

  const hostEnv = boxHostEnv(io, trees, config);
  const params: RunParams = launchRunParams({
    box: ctx,
    config,
    skills,
    engine: engine.facts,
    hostUid: io.uid,
    hostGid: io.gid,
    home,
    hostEnv: deliveredHostEnv(hostEnv),
    labels: { client: io.pid, store: storeTag(ctx.store.home) },
  });
  const posture = postureFacts(config, skills);
  // Both outside-the-box steps find the box by this per-invocation nonce.
  if (posture.hook !== null || credentialValuesOpened.length > 0) params.labels.run = mintNonce();
  const volumes: PlannedVolume[] = [
    ...config.volumes.map((v) => v.value),
    ...skills.flatMap((s) => s.volumes),
  ].map((decl) => ({ name: volumeEngineName(ctx.projectId, io.uid, decl), decl }));

  await Promise.all([
    claimAndRecord(pool, ctx, config.engine.value, engine.facts.name, deps.pidAlive, io.pid),
    checkExclusiveVolumes(pool, ctx, volumes, deps.pidAlive, io.pid),
  ]);
  const portChoice = await sessionPorts(pool, ctx, params.ports, deps.pidAlive, io.pid);
  if (portChoice.kind === 'ok') params.ports = portChoice.ports;
  if (selfEdit) params.extraBinds = [...params.extraBinds, selfEditBind(ctx)];

  const image = await ensureImage({
    engine,
    plan,
    contextDir: ctx.project.context,
    projectDir: ctx.projectRoot,
    projectId: ctx.projectId,
    storeTag: storeTag(ctx.store.home),
    tag: params.image,
    base: config.base.value,
    uid: params.uid,
    gid: params.gid,
    noCache: false,
    progress: buildProgressFor(io, ctx.project.buildLog, verbose),
    baseFrom: { from: config.base.from, projectConfig: ctx.project.config },
  });

  const created = await ensureVolumes(
    engine,
    { projectId: ctx.projectId, storeTag: storeTag(ctx.store.home) },
    volumes,
  );
  const seedCtx = {
    image: params.image,
    uid: params.uid,
    gid: params.gid,
    keepId: engine.facts.keepId,
    home,
    pins,
  };
  await seedFreshVolumes(engine, volumes, created, seedCtx);
  await seedPrefsOnce(io, engine, planPrefsSeed(config, skills, volumes, home), created, seedCtx);

  // After the image exists (the probe runs in it), before the record and create.
  const sockGroups = await probeSockGroups(
    engine,
    sockProbes(skills, home),
    params.image,
    engine.facts.keepId,
    pins,
  );
  for (const w of sockGroups.warnings) say(io.stderr, w, 'warning');
  const launched: RunParams = { ...params, groupAdd: sockGroups.gids };

  let digest = image.built ? '' : image.imageId;
  let digestError: string | undefined;
  if (image.built) {
    try {
      digest = await engine.imageId(params.image);
    } catch (error) {
      digestError = error instanceof Error ? error.message : String(error);
    }
  }
  const record = launchRecordFor({
    params: launched,
    config,
    skills,
    hostUid: io.uid,
    version: VERSION,
    now: deps.clock(),
    image: { digest, ...(digestError === undefined ? {} : { digestError }) },
  });
  // Fail closed: a box without its record is one status cannot describe
  // (it would show the current config and a wrong reason), so none is created.
  const launchHash = writeLaunchRecordOrRefuse(ctx.project.launches, record);
  // What this box may write stays a box-writable tree after it (adr/0046).
  await recordLaunchedTrees(
    ctx.store.home,
    launchedTreesOf({
      params: launched,
      volumes: volumes.map((v) => v.decl),
      projectRoot: ctx.projectRoot,
    }),
  );
  const labelled: RunParams = {
    ...launched,
    labels: { ...launched.labels, launch: launchHash },
  };
  const proof = pins === null ? null : proofOfBox(labelled, pins);
  const final: RunParams =
    proof === null ? labelled : { ...labelled, bindProof: bindProofValue(proof.proven) };

  const mountTargets = [
    ...volumes.map((v) => v.decl.target),
    ...[...final.configMounts, ...final.skillMounts]
      .filter((m) => m.disabled !== true)
      .map((m) => m.target),
  ];
  for (const skipped of await precreateMountPoints(ctx.worktreeDir, mountTargets)) {
    say(
      io.stderr,
      `${skipped} is not a plain directory in the project; the engine decides what is mounted there`,
      'warning',
    );
  }
  if (selfEdit) warnSelfEdit(io, ctx);
  await engine.create(buildRunArgv(final, 'create', io.stdinIsTty));
  const netns: NetnsPlan | null =
    posture.hook === null || final.labels.run === undefined
      ? null
      : {
          nonce: final.labels.run,
          hook: posture.hook,
          image: final.image,
          env: helperEnv(Object.fromEntries(runEnv(final)), posture),
          joinUserns: engine.facts.keepId,
        };
  const credentials: CredentialDelivery | null =
    credentialValuesOpened.length === 0 || final.labels.run === undefined
      ? null
      : { nonce: final.labels.run, uid: final.uid, gid: final.gid, values: credentialValuesOpened };
  return {
    name: containerName(ctx.worktreeId),
    banner: [
      ...exposureLines(config, skills, hostEnv, undefined, selfEdit),
      ...portBanner(portChoice),
      ...(elsewhere === null ? [] : [unprovenBanner(elsewhere)]),
    ],
    netns,
    credentials,
    launchHash,
    proof,
  };
}

/** The launch record's hash; a record that cannot be written stops the launch before create. */
function writeLaunchRecordOrRefuse(launchesDir: string, record: LaunchRecord): string {
  try {
    return writeLaunchRecord(launchesDir, record);
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    throw new ByreError(`${error.message}; the box was not created`, {
      rule: error.rule,
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
      cause: error,
    });
  }
}

/** The banner line when the engine cannot be shown to mount what byre checked (adr/0045). */
function unprovenBanner(why: string): string {
  return `byre: 🛑 binds not proven: ${why}; byre cannot show the engine mounts the objects it checked, so a box that can write above a bind source could redirect it (docs/SECURITY.md)`;
}

/** Deliver beside the session; a failure is reported after the box (which it stopped) exits. */
async function deliverBeside(
  engine: Engine,
  ctx: ProjectContext,
  prepared: Prepared,
): Promise<{ error: unknown } | null> {
  if (prepared.credentials === null) return null;
  try {
    await deliverCredentials(engine, prepared.credentials);
  } catch (error) {
    return { error };
  }
  try {
    writeDeliveryReceipt(
      ctx.project.launches,
      prepared.launchHash,
      prepared.credentials.values.map((v) => v.key),
    );
  } catch {
    // Only status's "delivered" line depends on it; the box has its credentials.
  }
  return null;
}

/**
 * seed_prefs: the agent's curated prefs into its fresh state volume, once. A
 * nicety, so a failure is a warning: the box still launches, unseeded.
 */
async function seedPrefsOnce(
  io: Io,
  engine: Engine,
  seed: PrefsSeed | null,
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<void> {
  try {
    const done = await seedAgentPrefs(engine, seed, created, ctx);
    if (done === null) return;
    say(
      io.stderr,
      `seeded ${done.skill}'s prefs into its fresh state volume: ${done.entries.map((e) => e.rel).join(', ')} (from ${done.from}; seed_prefs)`,
    );
    for (const s of done.skipped) say(io.stderr, `seed_prefs left out ${s.rel}: ${s.why}`, 'note');
  } catch (error) {
    say(
      io.stderr,
      `seed_prefs: copying ${seed?.skill ?? 'the agent'}'s prefs failed; the box starts without them (${error instanceof Error ? error.message : String(error)})`,
      'warning',
    );
  }
}

/**
 * Onboarding on a project's first develop: the first-run picker on a
 * terminal (stdin and stderr), stored answers under defaults.skip_questions,
 * flags alone otherwise; then where the config lives and what edits it.
 */
async function firstRun(io: Io, ctx: ProjectContext, flags: OnboardFlags): Promise<void> {
  const catalogs = (): OnboardCatalog => {
    const choices = packageChoices(ctx.store.home);
    return { ...choices, bundledTemplate, catalog: choices.skills, canon: choices.canon.skill };
  };
  const ask: AskFirstRun | null =
    io.stdinIsTty && io.stderrIsTty === true
      ? async (setup) => (await import('../tui/first-run.js')).askFirstRun(setup)
      : null;
  const result = await onboard(ctx, flags, catalogs, ask);
  if (!result.wrote) return;
  const lines: string[] = [];
  if (result.how === 'stored') {
    lines.push(
      `byre: configured from your stored answers (defaults.skip_questions in default.config): ${answersText(result.answers, result.companion)}; byre config --global changes them`,
    );
  }
  if (result.savedDefaults) {
    lines.push(
      'byre: saved these answers as your defaults in default.config; they pre-select the next new project’s answers',
    );
  }
  lines.push(onboardedLine(ctx.project.config));
  for (const line of lines.flatMap((l) => l.split('\n'))) {
    io.stderr.write(`${escapeTerminal(line)}\n`);
  }
}

interface SessionSnapshots {
  tree: TreeSnapshot | { error: string };
  /** This worktree was registered by byre and not yet checked out: the box checks it out. */
  checkout: boolean;
  store: StoreSnapshot | null;
}

function treeScope(ctx: ProjectContext): SnapshotScope {
  return {
    worktreeDir: ctx.worktreeDir,
    commonGitDir: ctx.commonGitDir,
    roots: [
      ctx.worktreeDir,
      ctx.projectRoot,
      ...(ctx.commonGitDir === null ? [] : [ctx.commonGitDir]),
    ],
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the exit report (adr/0035) and the self-edit report compare against, taken just before the start. */
function sessionSnapshots(ctx: ProjectContext, selfEdit: boolean): SessionSnapshots {
  let tree: SessionSnapshots['tree'];
  try {
    tree = takeSnapshot(treeScope(ctx));
  } catch (error) {
    tree = { error: errorText(error) };
  }
  const checkout =
    ctx.isLinkedWorktree &&
    ctx.gitDir !== null &&
    existsSync(path.join(ctx.gitDir, NEEDS_CHECKOUT_MARKER));
  return { tree, checkout, store: selfEdit ? snapshotStore(ctx.project.dir) : null };
}

/**
 * After every session: the exit report, then (under --self-edit) what
 * changed in the store. Never throws: a report that cannot be made says so
 * and the session's own outcome stands.
 */
function reportSession(io: Io, ctx: ProjectContext, before: SessionSnapshots): void {
  try {
    const lines =
      'error' in before.tree
        ? [`notice: could not check the project tree for changes: ${before.tree.error}`]
        : exitReportLines(
            exitReport({
              before: before.tree,
              after: takeSnapshot(treeScope(ctx), [before.tree.configs]),
              checkedOutThisSession: before.checkout,
            }),
          );
    sayAll(io.stderr, lines);
  } catch (error) {
    say(io.stderr, `notice: could not check the project tree for changes: ${errorText(error)}`);
  }
  if (before.store === null) return;
  try {
    sayAll(io.stderr, selfEditReportLines(before.store, snapshotStore(ctx.project.dir)));
  } catch (error) {
    say(io.stderr, `self-edit: could not list what changed in the store: ${errorText(error)}`);
  }
}

/**
 * Reaping is housekeeping: it runs beside the session and never fails it.
 * When the only record on disk is this launch's own, there is nothing to
 * reap and no engine is asked (the common warm develop: the engine clients
 * would otherwise compete with the box's start for the CPU).
 */
async function reapQuietly(
  pool: EnginePool,
  ctx: ProjectContext,
  launchHash: string | undefined,
): Promise<void> {
  const onDisk = launchHashesOnDisk(ctx.project.launches);
  if ([...onDisk].every((h) => h === launchHash)) return;
  try {
    reapLaunchRecords(ctx.project.launches, await referencedRecords(pool, ctx.projectId));
  } catch {
    // A record left behind is reaped at a later create.
  }
}

export async function developCommand(
  io: Io,
  flags: DevelopOptions,
  given: CommandDeps = {},
): Promise<void> {
  const hostWarning = throwIfRefused(checkHostUser(io.uid, io.gid, io.env));
  if (hostWarning !== null) printWarnings(io.stderr, [hostWarning]);
  await runDevelop(io, flags, given);
}

/** develop after the host-user check (`byre worktree` runs it in the new worktree). */
export async function runDevelop(
  io: Io,
  flags: DevelopOptions,
  given: CommandDeps = {},
): Promise<void> {
  const deps = withDefaults(given);
  const ctx = await resolveProjectContext(io.cwd, io.env);
  // The project directory alone, before the store is written: a directory
  // holding the store or byre itself is refused before anything is created.
  await checkContainment(containmentInput(ctx, ctx.store.home, userHome(io), null));
  // A fresh config never drops what this directory's earlier identity restricted (adr/0047).
  await guardFreshConfig(ctx, userHome(io), deps.confirm ?? terminalQuestion(io));
  // The first run's questions come before anything is recorded: a cancel or
  // a refusal there leaves the store as it found it. Another directory's id
  // is refused first, so onboarding never writes into its store.
  await checkProjectPath(ctx);
  await firstRun(io, ctx, flags);
  await recordIdentity(ctx.store.home, ctx);
  await syncStoreGuide(ctx.store.home).catch((error: unknown) => {
    printWarnings(io.stderr, [
      {
        message: `could not refresh the store guide: ${error instanceof Error ? error.message : String(error)}`,
      },
    ]);
  });

  // The read before the lock decides only which engine to detect and pin,
  // and refuses a box reaching byre's files before any engine is asked.
  const early = await loadBoxConfig(ctx, userHome(io));
  await checkContainment(
    containmentInput(ctx, ctx.store.home, userHome(io), early.config, early.skills),
  );
  // The engine the project's boxes are on, never another one `auto` guesses (adr/0053).
  const decision = decideProjectEngine(ctx, early.config.engine.value);
  if (decision.movedFrom !== null && decision.ask !== 'auto') {
    say(io.stderr, engineMoveLine(decision.ask, decision.movedFrom));
  }
  const preset = presetNote(readPresetFacts(ctx.project, ctx.worktreeDir));
  if (preset !== null) printNotes(io.stderr, [{ rule: 'preset.note', message: preset }]);
  const declined = treeRoots(early.trees);
  const { facts } = await detectProjectEngine(deps.detect, ctx, decision, declined, io.env);
  printWarnings(io.stderr, facts.warnings);
  const engine = deps.createEngine(facts, { env: io.env });
  const pool = deps.pool ?? enginePool(declined, io.env, engine);
  const session = await openCredentialSession(io, early.config, flags.passphraseFd);

  const prepared = await withSetupLock(ctx.project, () =>
    prepareBox(
      io,
      ctx,
      engine,
      early.config.engine.value,
      pool,
      session,
      deps,
      flags.selfEdit === true,
      flags.verbose === true,
    ),
  );
  for (const line of prepared.banner) io.stderr.write(`${escapeTerminal(line)}\n`);

  const reaping = reapQuietly(pool, ctx, prepared.launchHash);
  let wallFailure: { error: unknown } | null = null;
  const walling =
    prepared.netns === null
      ? Promise.resolve()
      : enforcePosture(engine, prepared.netns).catch((error: unknown) => {
          wallFailure = { error };
        });
  const delivering = deliverBeside(engine, ctx, prepared);
  const before = sessionSnapshots(ctx, flags.selfEdit === true);
  const code = await engine.startAttached(prepared.name, { tty: io.stdinIsTty });
  const [credentialFailure] = await Promise.all([delivering, reaping, walling]);
  reportSession(io, ctx, before);
  if (prepared.proof !== null && code === BIND_PROOF_EXIT) {
    throw bindProofRefusal(
      'byre stopped this box before anything ran in it',
      prepared.proof.binds,
      prepared.proof.proven,
    );
  }
  if (credentialFailure !== null) {
    const { error } = credentialFailure;
    throw new ByreError(
      'the credentials were not delivered, so the box was stopped (fail closed):',
      {
        rule: 'develop.credentials-failed',
        details: causeDetails(error),
        remedy: 'fix the cause above; `byre status` shows the credential rows',
        cause: error,
      },
    );
  }
  if (wallFailure !== null) {
    const { error } = wallFailure;
    throw new ByreError('the network wall did not apply, so the box was stopped (fail closed):', {
      rule: 'develop.firewall-failed',
      details: causeDetails(error),
      remedy: 'fix the cause above; `byre status` shows the posture and allowlist',
      cause: error,
    });
  }
  const outcome = interpretExit(code);
  if (outcome.kind === 'failed') {
    throw new ByreError(outcome.message, { rule: 'develop.box-exit' });
  }
  if (outcome.code !== 0) throw new PassthroughExit(outcome.code);
}
