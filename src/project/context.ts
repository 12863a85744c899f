// Where a command stands: the store, the project id anchored at the main
// worktree and the worktree id of this directory (the trees a box can write
// are box/writable-trees.ts's). Reads the filesystem; writes nothing.

import { projectIdFor } from './identity.js';
import { projectIdCollision, readProjectPath } from './store.js';
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
}

export async function resolveProjectContext(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProjectContext> {
  const wt = await resolveWorktree(cwd);
  const projectId = projectIdFor(wt.projectRoot);
  const store = storePaths(byreHome(env));
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
