// `byre develop`: set up if needed and run this directory's box in the
// foreground. The wiring of the launch: the project set up (containment,
// the first run's questions, its identity recorded), the engine pinned
// from the config read before the setup lock; under the lock the config
// read again and judged (binds, credentials, the build plan), then the
// session's steps (src/session/); outside it, the attached start.

import { terminalQuestion, type Io } from '../io.js';
import { checkContainment, containmentInput } from '../containment/check.js';
import { withSetupLock } from '../host/lock.js';
import type { OnboardFlags } from './onboard.js';
import { readPresetFacts } from './preset-state.js';
import { presetNote } from '../config/preset.js';
import { enginePool } from '../engine/pool.js';
import { treeRoots } from '../containment/writable-trees.js';
import { engineMoveLine } from '../engine/engine-scope.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { printNotes, printWarnings, say } from '../output/notes.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { syncStoreGuide } from '../project/store-guide.js';
import { recordIdentity } from '../project/identity-record.js';
import { attachSession } from '../session/attach.js';
import { judgeBinds } from '../session/binds.js';
import type { SessionContext } from '../session/context.js';
import {
  credentialValues,
  edgeCredentials,
  openCredentialSession,
  type CredentialSession,
} from '../session/credentials.js';
import { prepareEdge, refuseEdgeOwnedRunArgs } from '../session/edge.js';
import { rawRunArgTokens } from '../status/model.js';
import { prepareSession, type PreparedSession } from '../session/prepare.js';
import { edgeImageBeforeLock, startEarlyEdge } from '../session/early-edge.js';
import { boxHostEnv, loadBoxConfig, planBox, userHome } from './load.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { firstRun } from './first-run.js';
import { guardFreshConfig } from './fresh-config.js';
import {
  decideProjectEngine,
  pinEngine,
  rereadPinned,
  type PinnedEngine,
} from './project-engine.js';

export interface DevelopOptions extends OnboardFlags {
  /** Stream the engine's whole build log instead of byre's progress line. */
  verbose?: boolean;
  /** `--passphrase-fd N`: read the credentials' passphrase from descriptor N. */
  passphraseFd?: number;
  /** `--self-edit`: this project's store read-write in the box (announced, reported at the end). */
  selfEdit?: boolean;
}

/**
 * Before anything is recorded: the project directory alone judged (one
 * holding the store or byre itself is refused), a fresh config never
 * dropping what this directory's earlier identity restricted (adr/0047),
 * another directory's id refused, then the first run's questions: a cancel
 * or a refusal there leaves the store as it found it.
 */
async function setUpProject(
  io: Io,
  ctx: ProjectContext,
  flags: OnboardFlags,
  deps: CommandDeps,
): Promise<void> {
  await checkContainment(containmentInput(ctx, ctx.store.home, userHome(io), null));
  await guardFreshConfig(ctx, userHome(io), deps.confirm ?? terminalQuestion(io));
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
}

/**
 * The read before the lock decides only which engine to detect and pin,
 * and refuses a box reaching byre's files before any engine is asked. The
 * engine is the one the project's boxes are on, never another one `auto`
 * guesses (adr/0053); a deliberate move is announced.
 */
async function pinLaunchEngine(
  io: Io,
  ctx: ProjectContext,
  deps: ReturnType<typeof withDefaults>,
): Promise<{ pinned: PinnedEngine; early: Awaited<ReturnType<typeof loadBoxConfig>> }> {
  const early = await loadBoxConfig(ctx, userHome(io));
  await checkContainment(
    containmentInput(ctx, ctx.store.home, userHome(io), early.config, early.skills),
  );
  const decision = decideProjectEngine(ctx, early.config.engine.value);
  if (decision.movedFrom !== null && decision.ask !== 'auto') {
    say(io.stderr, engineMoveLine(decision.ask, decision.movedFrom));
  }
  const preset = presetNote(readPresetFacts(ctx.project, ctx.worktreeDir));
  if (preset !== null) printNotes(io.stderr, [{ rule: 'preset.note', message: preset }]);
  return { pinned: await pinEngine(io, ctx, deps, early, decision), early };
}

/** Under the setup lock: the config read again and judged, then the session's steps. */
async function prepareUnderLock(
  s: SessionContext,
  pinned: PinnedEngine,
  credentials: CredentialSession | null,
): Promise<PreparedSession> {
  const { io, ctx } = s;
  const loaded = await rereadPinned(io, ctx, pinned, 'develop');
  const binds = await judgeBinds(s, loaded);
  const values = await credentialValues(loaded.config, credentials);
  const edge = await prepareEdge(
    ctx.project.edge,
    ctx.projectId,
    await edgeCredentials(loaded.config, credentials),
    io.env,
  );
  if (edge !== null) refuseEdgeOwnedRunArgs(rawRunArgTokens(loaded.config, loaded.skills));
  const plan = await planBox(io, { ctx, ...loaded }, edge?.caPem);
  printNotes(io.stderr, [...loaded.warnings, ...plan.notes]);
  const hostEnv = boxHostEnv(io, loaded.trees, loaded.config);
  return prepareSession(s, { ...loaded, ...binds, plan, hostEnv, credentials: values, edge });
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
  await setUpProject(io, ctx, flags, deps);
  const { pinned, early } = await pinLaunchEngine(io, ctx, deps);
  const s: SessionContext = {
    io,
    ctx,
    home: userHome(io),
    engine: pinned.engine,
    pool: deps.pool ?? enginePool(treeRoots(early.trees), io.env, pinned.engine),
    alive: deps.pidAlive,
    clock: deps.clock,
    selfEdit: flags.selfEdit === true,
    verbose: flags.verbose === true,
    // The edge's image: the one recorded current (adr/0083), else a read
    // beside the passphrase and the lock; the edge starts once it is known.
    ...edgeImageBeforeLock(pinned.engine, ctx, early.config.injections.length > 0),
  };
  // Started beside the passphrase and the lock's wait (adr/0080); the
  // launch adopts it under the lock, and it goes when the launch fails first.
  const earlyEdge = startEarlyEdge(s, early);
  let prepared: PreparedSession;
  try {
    const credentials = await openCredentialSession(io, early.config, flags.passphraseFd);
    prepared = await withSetupLock(ctx.project, () =>
      prepareUnderLock({ ...s, earlyEdge }, pinned, credentials),
    );
  } catch (error) {
    await (await earlyEdge)?.drop();
    throw error;
  }
  await attachSession(s, prepared);
}
