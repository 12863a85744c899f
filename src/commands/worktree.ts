// `byre worktree <name>` / `list` / `remove <name>`: parallel sessions of one
// project, each in its own linked git worktree (adr/0036). The repository's
// git runs only in short-lived, network-less helper containers on the
// project's image; the host reads git's files structurally and runs no git.

import path from 'node:path';

import type { Io } from '../io.js';
import { checkContainment, containmentInput } from '../containment/check.js';
import {
  bindProofRefusal,
  pinSources,
  provenBinds,
  type BoxProof,
} from '../containment/bind-pins.js';
import { askPool, enginePool, openAnswers } from '../engine/pool.js';
import { censusSessions, describeUnchecked, pidAlive } from '../session/census.js';
import {
  NO_GIT_EXIT,
  worktreeAddArgv,
  worktreeHelperBinds,
  worktreeRemoveArgv,
  type WorktreeHelperInput,
} from '../gen/worktree-helper.js';
import { BIND_PROOF_EXIT } from '../gen/bind-proof.js';
import { engineElsewhereNow } from '../engine/locality-facts.js';
import { detectEngine } from '../engine/detect.js';
import { checkHostUser, throwIfRefused } from '../engine/host-user.js';
import { LABEL } from '../gen/names.js';
import { createEngine } from '../engine/runner.js';
import type { CommandDeps } from './deps.js';
import { ByreError, EngineError, RefusedError, UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { printNotes, printWarnings, say } from '../output/notes.js';
import { canonicalPath } from '../host/canonical.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { removeWorktreeRecord } from '../project/identity-record.js';
import { withSetupLock } from '../host/lock.js';
import { makeDirSync } from '../host/make-dirs.js';
import { listEntries, lstatEntry } from '../host/path-view.js';
import { removeEmptyDirSync } from '../host/remove.js';
import { resolveWorktree, worktreeIdFor } from '../project/worktree.js';
import { headText, listWorktrees, type WorktreeEntry } from '../project/worktree-list.js';
import { checkWorktreeName, worktreeTarget } from '../project/worktree-name.js';
import { runDevelop, type DevelopOptions } from './develop.js';
import { loadBoxConfig, planBox, projectDeclinedRoots, userHome } from './load.js';
import { projectEdgeCa } from '../session/edge.js';
import { treeRoots } from '../containment/writable-trees.js';
import { pinEngine, rereadPinned, type PinnedEngine } from './project-engine.js';
import { wiringDeliveryNow } from '../session/bound-wiring.js';
import { ensureProjectImage, projectImage, type ProjectImage } from '../session/image.js';

export interface WorktreeOptions {
  path?: string;
  selfEdit?: boolean;
}

/** This directory's project, which must be a set-up git repository. */
async function gitProject(io: Io): Promise<ProjectContext & { commonGitDir: string }> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  const common = ctx.commonGitDir;
  if (common === null) {
    throw new ByreError(`${ctx.worktreeDir} is not in a git repository`, {
      rule: 'worktree.not-git',
      remedy: 'run byre worktree from a git repository (its main worktree or a linked one)',
    });
  }
  return { ...ctx, commonGitDir: common };
}

function requireSetUp(ctx: ProjectContext): void {
  try {
    lstatEntry(ctx.project.config);
  } catch {
    throw new ByreError(`this project has no byre setup yet (${ctx.project.config} is missing)`, {
      rule: 'worktree.not-set-up',
      remedy: `run byre develop in ${ctx.projectRoot} first: worktrees inherit its config, volumes and image`,
    });
  }
}

/** Worktree's outside world; detection defaults to a fresh probe, as before the seam. */
export type WorktreeDeps = Pick<CommandDeps, 'detect' | 'createEngine' | 'pool'>;

/** The engine the config picks, pinned, with the project's image and the trees pinning declines. */
interface WorktreeEngine extends PinnedEngine {
  image: ProjectImage;
  /** The box-writable trees as paths (adr/0046): what pinning declines. */
  declined: string[];
}

async function projectEngine(
  io: Io,
  ctx: ProjectContext,
  deps: WorktreeDeps,
): Promise<WorktreeEngine> {
  const early = await loadBoxConfig(ctx, userHome(io));
  const pinned = await pinEngine(
    io,
    ctx,
    {
      detect: deps.detect ?? detectEngine,
      createEngine: deps.createEngine ?? createEngine,
    },
    early,
  );
  const image = projectImage(ctx.projectId, pinned.engine.facts.keepId, io);
  return { ...pinned, image, declined: treeRoots(early.trees) };
}

/** The project's image as develop would build it (a no-op when it is current), under the lock. */
async function ensureWorktreeImage(io: Io, ctx: ProjectContext, e: WorktreeEngine): Promise<void> {
  const loaded = await rereadPinned(io, ctx, e, 'worktree');
  const edgeCa = await projectEdgeCa(ctx.project.edge, ctx.projectId, loaded.config.injections);
  const plan = await planBox(io, { ctx, ...loaded }, edgeCa);
  printNotes(io.stderr, [...loaded.warnings, ...plan.notes]);
  await ensureProjectImage(e.engine, ctx, { config: loaded.config, plan }, e.image, {
    noCache: false,
    wiring: wiringDeliveryNow(e.engine.facts, io.env),
  });
}

function helperFailure(error: unknown, what: string, proof: BoxProof | null): ByreError {
  if (!(error instanceof EngineError)) throw error;
  if (proof !== null && error.engineExitCode === BIND_PROOF_EXIT) {
    return bindProofRefusal(`byre stopped git before it could ${what}`, proof.binds, proof.proven);
  }
  if (error.engineExitCode === NO_GIT_EXIT) {
    return new RefusedError(`this project's image has no git, so byre cannot ${what}`, {
      rule: 'worktree.no-git',
      remedy:
        'byre installs git in every image (adr/0057): rebuild it with byre rebuild, and check that no dockerfile_post line removes git',
    });
  }
  return new ByreError(`git could not ${what}:`, {
    rule: 'worktree.git-failed',
    details: error.stderr
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '')
      .slice(-20),
    remedy: 'fix what git says above and run it again',
  });
}

/** Absent, or an empty real directory: git fills it. */
function targetState(target: string): 'absent' | 'empty' {
  let stat;
  try {
    stat = lstatEntry(target);
  } catch {
    return 'absent';
  }
  if (!stat.isDirectory() || listEntries(target).length > 0) {
    throw new ByreError(`${target} already exists`, {
      rule: 'worktree.target-exists',
      remedy: 'pick another name, or another place with --path <dir>',
    });
  }
  return 'empty';
}

/**
 * The helper's binds pinned, the pinned objects judged by the containment
 * rules, and the proof the helper checks before git runs (adr/0045); null
 * when the engine runs elsewhere. Under the setup lock, after the target exists.
 */
async function helperProof(
  io: Io,
  ctx: ProjectContext,
  e: WorktreeEngine,
  input: WorktreeHelperInput,
): Promise<BoxProof | null> {
  if (engineElsewhereNow(e.engine.facts, io.env) !== null) return null;
  const binds = worktreeHelperBinds(input).map((b) => ({
    source: b.path,
    target: b.path,
    label: b.label,
  }));
  const pins = pinSources(binds.map((b) => b.source));
  const [main, ...rest] = binds;
  const base = containmentInput(
    { worktreeDir: main?.source ?? input.main, gitPaths: null },
    ctx.store.home,
    userHome(io),
    null,
  );
  await checkContainment({
    ...base,
    params: {
      ...base.params,
      extraBinds: rest.map((b) => ({ host: b.source, target: b.target, mode: 'rw' as const })),
    },
    pins,
  });
  return { binds, proven: provenBinds(binds, pins) };
}

function helperInput(
  ctx: ProjectContext & { commonGitDir: string },
  e: WorktreeEngine,
  target: string,
  targetExists: boolean,
): WorktreeHelperInput {
  return {
    image: e.image.tag,
    uid: e.image.uid,
    gid: e.image.gid,
    keepId: e.engine.facts.keepId,
    main: ctx.projectRoot,
    commonGitDir: ctx.commonGitDir,
    target,
    targetExists,
    targetId: worktreeIdFor(target),
  };
}

/** `byre worktree <name>`: register a linked worktree in a helper container, then develop in it. */
export async function worktreeCommand(
  io: Io,
  name: string,
  options: WorktreeOptions,
  deps: WorktreeDeps = {},
): Promise<void> {
  const hostWarning = throwIfRefused(checkHostUser(io.uid, io.gid, io.env));
  if (hostWarning !== null) printWarnings(io.stderr, [hostWarning]);
  checkWorktreeName(name);
  const ctx = await gitProject(io);
  requireSetUp(ctx);
  const home = userHome(io);
  const { config } = await loadBoxConfig(ctx, home);
  const base = config.worktreeBase;
  const requested = worktreeTarget({
    name,
    pathFlag: options.path,
    base: base === null ? null : { value: base.value, source: base.from.kind },
    projectRoot: ctx.projectRoot,
    cwd: io.cwd,
    home,
  });
  const parent = await canonicalPath(path.dirname(requested)).catch(() => {
    throw new ByreError(`the directory ${path.dirname(requested)} does not exist`, {
      rule: 'worktree.no-parent',
      remedy: 'create it first, or pick another place with --path <dir>',
    });
  });
  const target = path.join(parent, path.basename(requested));
  const state = targetState(target);
  // The new worktree is a box's workspace: refused now when it would reach byre's own files.
  await checkContainment(
    containmentInput({ worktreeDir: target, gitPaths: null }, ctx.store.home, home, null),
  );

  const e = await projectEngine(io, ctx, deps);
  await withSetupLock(ctx.project, async () => {
    await ensureWorktreeImage(io, ctx, e);
    if (state === 'absent') makeDirSync(target, 0o755);
    const input = helperInput(ctx, e, target, true);
    let proof: BoxProof | null = null;
    try {
      proof = await helperProof(io, ctx, e, input);
      await e.engine.run(worktreeAddArgv({ ...input, proof: proof?.proven ?? null }, name));
    } catch (error) {
      // Not empty, or gone: left as it is.
      removeEmptyDirSync(target);
      throw helperFailure(error, `register the worktree ${target}`, proof);
    }
  });
  const made = await resolveWorktree(target);
  if (!made.isLinkedWorktree || made.projectRoot !== ctx.projectRoot) {
    throw new ByreError(
      `${target} was registered but does not read as a worktree of ${ctx.projectRoot}`,
      {
        rule: 'worktree.not-registered',
        remedy: 'check it with `byre worktree list`; remove it with `byre worktree remove`',
      },
    );
  }
  say(
    io.stderr,
    `worktree ${target} on branch ${name} is registered; the box checks it out at its first start`,
  );
  const flags: DevelopOptions = options.selfEdit === true ? { selfEdit: true } : {};
  // The same outside world as the registration: the CLI passes none.
  await runDevelop({ ...io, cwd: target }, flags, deps);
}

interface SessionIndex {
  running: Map<string, string>;
  unchecked: string | null;
}

/** Which worktree ids of this project have a running box, across engines. */
async function runningSessions(
  io: Io,
  ctx: ProjectContext,
  deps: WorktreeDeps,
): Promise<SessionIndex> {
  const pool = deps.pool ?? enginePool(projectDeclinedRoots(io, ctx), io.env, null);
  const answers = await askPool(pool, (engine) =>
    engine.psLabels({ labels: { [LABEL.project]: ctx.projectId }, all: false }, [LABEL.workdir]),
  );
  const running = new Map<string, string>();
  for (const a of answers) {
    if (a.state !== 'ok') continue;
    for (const box of a.value) {
      const wt = box.labels[LABEL.workdir];
      if (wt !== undefined) running.set(wt, `running (${a.name}, ${box.id.slice(0, 12)})`);
    }
  }
  const unchecked = openAnswers(answers);
  return { running, unchecked: unchecked.length === 0 ? null : describeUnchecked(unchecked) };
}

function entryId(entry: WorktreeEntry, ctx: ProjectContext): string {
  return entry.admin === null ? ctx.projectId : worktreeIdFor(entry.path);
}

/** `byre worktree list`: each worktree, its branch, and whether its session runs. */
export async function worktreeListCommand(io: Io, deps: WorktreeDeps = {}): Promise<void> {
  const ctx = await gitProject(io);
  const list = listWorktrees(ctx.commonGitDir, ctx.projectRoot);
  const sessions = await runningSessions(io, ctx, deps);
  const rows = list.entries.map((entry) => {
    const notes = [
      entry.admin === null ? 'main' : null,
      entry.pendingCheckout ? 'checkout pending' : null,
      entry.locked ? 'locked' : null,
      entry.missing ? 'directory missing' : null,
    ].filter((n): n is string => n !== null);
    const session = entry.missing
      ? 'not running'
      : (sessions.running.get(entryId(entry, ctx)) ??
        (sessions.unchecked === null ? 'not running' : 'unknown'));
    return [
      entry.path,
      headText(entry.head),
      `${session}${notes.length === 0 ? '' : `  (${notes.join(', ')})`}`,
    ].map(escapeTerminal);
  });
  const width = (i: number): number => Math.max(...rows.map((r) => [...(r[i] ?? '')].length));
  const pad = (s: string, n: number): string => s + ' '.repeat(Math.max(0, n - [...s].length));
  for (const r of rows) {
    io.stdout.write(`${pad(r[0] ?? '', width(0))}  ${pad(r[1] ?? '', width(1))}  ${r[2] ?? ''}\n`);
  }
  if (list.notListed > 0) say(io.stderr, `${list.notListed} more worktrees were not read`, 'note');
  if (sessions.unchecked !== null) {
    say(io.stderr, `could not ask ${sessions.unchecked}; "unknown" sessions may run`, 'note');
  }
}

/** The linked worktree `name` names: its branch, its directory's name, or its path. */
function findWorktree(entries: readonly WorktreeEntry[], name: string, cwd: string): WorktreeEntry {
  const linked = entries.filter((e) => e.admin !== null);
  const byPath = path.resolve(cwd, name);
  const hits = linked.filter(
    (e) =>
      ('branch' in e.head && e.head.branch === name) ||
      path.basename(e.path) === name ||
      e.path === byPath,
  );
  if (hits.length === 1) return hits[0] as WorktreeEntry;
  if (
    entries[0] !== undefined &&
    (entries[0].path === byPath || name === headText(entries[0].head)) &&
    hits.length === 0
  ) {
    throw new UsageError('the main worktree cannot be removed', { rule: 'worktree.remove-main' });
  }
  if (hits.length === 0) {
    throw new ByreError(`no linked worktree of this repository is named ${name}`, {
      rule: 'worktree.unknown',
      remedy: 'name one by its branch, its directory name or its path (`byre worktree list`)',
    });
  }
  throw new UsageError(`${name} names ${hits.length} worktrees`, {
    rule: 'worktree.ambiguous',
    details: hits.map((h) => `${h.path}  ${headText(h.head)}`),
    remedy: 'name it by its path',
  });
}

/** Registered by byre and still empty: only git's pointer file is there. */
function neverCheckedOut(entry: WorktreeEntry): boolean {
  if (!entry.pendingCheckout || entry.missing) return false;
  try {
    return listEntries(entry.path).every((name) => name === '.git');
  } catch {
    return false;
  }
}

function adminGone(ctx: { commonGitDir: string }, entry: WorktreeEntry): boolean {
  try {
    lstatEntry(path.join(ctx.commonGitDir, 'worktrees', entry.admin ?? ''));
    return false;
  } catch {
    return true;
  }
}

/** `byre worktree remove <name>`: git removes it, in a helper container; refused while its session runs. */
export async function worktreeRemoveCommand(
  io: Io,
  name: string,
  options: { force?: boolean },
  deps: WorktreeDeps = {},
): Promise<void> {
  const ctx = await gitProject(io);
  requireSetUp(ctx);
  const entry = findWorktree(
    listWorktrees(ctx.commonGitDir, ctx.projectRoot).entries,
    name,
    io.cwd,
  );
  const e = await projectEngine(io, ctx, deps);
  const pool = deps.pool ?? enginePool(e.declined, io.env, e.engine);
  const id = worktreeIdFor(entry.path);
  await withSetupLock(ctx.project, async () => {
    const census = await censusSessions(
      pool,
      { projectId: ctx.projectId, worktreeId: id },
      pidAlive,
      io.pid,
    );
    const live = census.boxes[0];
    if (live !== undefined) {
      throw new RefusedError(`the session of ${entry.path} is running (${live.id.slice(0, 12)})`, {
        rule: 'worktree.session-live',
        remedy: `end it first (${live.engineName} stop ${live.id.slice(0, 12)})`,
      });
    }
    const unknown = openAnswers(census.unchecked);
    if (unknown.length > 0) {
      throw new RefusedError(
        `cannot rule out a running session of ${entry.path}: ${describeUnchecked(unknown)}`,
        {
          rule: 'worktree.session-unknown',
          remedy: 'fix the engine named above, then run it again',
        },
      );
    }
    for (const box of census.stale) await box.engine.remove(box.id);
    await ensureWorktreeImage(io, ctx, e);
    const input = helperInput(ctx, e, entry.path, !entry.missing);
    const proof = await helperProof(io, ctx, e, input);
    // Never checked out, git counts every file as deleted; nothing of the user's is in it yet.
    const force = options.force === true || neverCheckedOut(entry);
    let failure: unknown = null;
    try {
      await e.engine.run(worktreeRemoveArgv({ ...input, proof: proof?.proven ?? null }, force));
    } catch (error) {
      failure = error;
    }
    if (
      proof !== null &&
      failure instanceof EngineError &&
      failure.engineExitCode === BIND_PROOF_EXIT
    ) {
      throw helperFailure(failure, `remove ${entry.path}`, proof);
    }
    // The directory is a mount point in the helper, so git cannot remove it
    // and exits non-zero even when it removed everything else: success is
    // git's admin dir being gone.
    if (!adminGone(ctx, entry)) {
      if (failure !== null) throw helperFailure(failure, `remove ${entry.path}`, proof);
      throw new ByreError(`git left ${entry.path} registered`, {
        rule: 'worktree.git-failed',
        remedy: 'look at it with `byre worktree list`',
      });
    }
    if (!entry.missing) removeEmptyDirSync(entry.path);
    // The path is free again: a later project there is not this worktree (adr/0047).
    removeWorktreeRecord(ctx.store.home, id);
  });
  say(
    io.stderr,
    `removed the worktree ${entry.path}${'branch' in entry.head ? `; its branch ${entry.head.branch} is kept` : ''}`,
  );
}
