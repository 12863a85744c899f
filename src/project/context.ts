// Where a command stands: the store, the project id anchored at the main
// worktree and the worktree id of this directory (the trees a box can write
// are containment/writable-trees.ts's). A forged worktree structure and a changed
// identity are refused here, so every verb refuses them (adr/0047). Reads
// the filesystem; writes nothing.

import { pathExists } from '../host/path-view.js';
import type { RefusedError } from '../errors.js';
import { projectIdFor } from './identity.js';
import {
  findIdentityChange,
  identityChangeRefusal,
  type IdentityChange,
  type ResolvedIdentity,
} from './identity-change.js';
import { isLaunchedDir, recordedIdentities } from './identity-record.js';
import { projectIdCollision, projectPathOf, readProjectPath } from './store.js';
import {
  byreHome,
  projectStorePaths,
  storePaths,
  type ProjectStorePaths,
  type StorePaths,
} from './store-layout.js';
import { resolveWorktree, worktreeIdFor, type WorktreeIdentity } from './worktree.js';

export interface ProjectContext {
  store: StorePaths;
  project: ProjectStorePaths;
  projectId: string;
  worktreeId: string;
  /** The main worktree (canonical): identity anchors here. */
  projectRoot: string;
  /** This directory (canonical): bound at /workspace. */
  worktreeDir: string;
  isLinkedWorktree: boolean;
  commonGitDir: string | null;
  /** This worktree's own git dir (`.git`, or `<common>/worktrees/<name>`), or null outside git. */
  gitDir: string | null;
  /** A linked worktree's git paths as git recorded them, bound at the same paths. */
  gitPaths: WorktreeIdentity['gitPaths'];
  /** Set only when the caller asked to see a changed identity instead of a refusal. */
  identityChange: IdentityChange | null;
  /**
   * Set only when the caller asked to see a forged worktree structure instead
   * of a refusal; the context is then the directory's own project, outside git.
   */
  forged: RefusedError | null;
}

interface ResolveContextOptions {
  /**
   * `refuse` (every verb): a directory whose records name another identity is
   * refused. `report`: the change is returned on the context, for the verbs
   * that show it (status) or settle it (rehome).
   */
  identityChange?: 'refuse' | 'report';
  /** The same for a forged worktree structure (status shows it; rehome refuses it). */
  forged?: 'refuse' | 'report';
}

/** The recorded identity this directory disagrees with, with what a message needs. */
function identityChangeOf(home: string, resolved: ResolvedIdentity): IdentityChange | null {
  const recorded = findIdentityChange(resolved, recordedIdentities(home, resolved.dir));
  if (recorded === null) return null;
  const recordedRoot = recorded.projectId === null ? null : projectPathOf(home, recorded.projectId);
  return {
    resolved,
    recorded,
    recordedRoot,
    recordedRootGone: recordedRoot !== null && !pathExists(recordedRoot),
  };
}

export async function resolveProjectContext(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  options: ResolveContextOptions = {},
): Promise<ProjectContext> {
  const home = byreHome(env);
  const wt = await resolveWorktree(cwd, {
    launchedDir: (d) => isLaunchedDir(home, d),
    forged: options.forged ?? 'refuse',
  });
  const projectId = projectIdFor(wt.projectRoot);
  const identityChange = identityChangeOf(home, {
    dir: wt.worktreeDir,
    projectId,
    isLinkedWorktree: wt.isLinkedWorktree,
    projectRoot: wt.projectRoot,
  });
  if (identityChange !== null && options.identityChange !== 'report') {
    throw identityChangeRefusal(identityChange);
  }
  const store = storePaths(home);
  const project = projectStorePaths(store.home, projectId);
  return {
    store,
    project,
    projectId,
    worktreeId: wt.isLinkedWorktree ? worktreeIdFor(wt.worktreeDir) : projectId,
    projectRoot: wt.projectRoot,
    worktreeDir: wt.worktreeDir,
    isLinkedWorktree: wt.isLinkedWorktree,
    commonGitDir: wt.commonGitDir,
    gitDir: wt.gitDir,
    gitPaths: wt.gitPaths,
    identityChange,
    forged: wt.forged,
  };
}

/**
 * Refuses when the store records a different path for this id (a hash
 * collision, or a moved project whose old path still exists). Reads only.
 */
export async function checkProjectPath(ctx: ProjectContext): Promise<void> {
  const recorded = await readProjectPath(ctx.store.home, ctx.projectId);
  if (recorded !== null && recorded !== ctx.projectRoot) {
    throw projectIdCollision(ctx.projectId, recorded, ctx.projectRoot);
  }
}
