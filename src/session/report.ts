// The exit-report step (adr/0035): what the project tree (and, under
// --self-edit, the store) looked like just before the box started, and what
// changed in them when it ends. Never fails the session: a report that
// cannot be made says so and the session's own outcome stands.

import { pathExists } from '../host/path-view.js';
import path from 'node:path';

import type { Io } from '../io.js';
import { exitReport, exitReportLines, type TreeSnapshot } from '../exit-report/report.js';
import { takeSnapshot, type SnapshotScope } from '../exit-report/snapshot.js';
import { selfEditReportLines, type StoreSnapshot } from '../exit-report/store-report.js';
import { snapshotStore } from '../exit-report/store-snapshot.js';
import { say, sayAll } from '../output/notes.js';
import type { ProjectContext } from '../project/context.js';
import { NEEDS_CHECKOUT_MARKER } from '../project/worktree-list.js';

interface SessionSnapshots {
  tree: TreeSnapshot | { error: string };
  /** This worktree was registered by byre and not yet checked out: the box checks it out. */
  checkout: boolean;
  store: StoreSnapshot | null;
}

/** The trees the report watches: the worktree, the main one, and git's common dir. */
function treeScope(
  ctx: Pick<ProjectContext, 'worktreeDir' | 'projectRoot' | 'commonGitDir'>,
): SnapshotScope {
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

/** What the exit report and the self-edit report compare against, taken just before the start. */
export function sessionSnapshots(ctx: ProjectContext, selfEdit: boolean): SessionSnapshots {
  let tree: SessionSnapshots['tree'];
  try {
    tree = takeSnapshot(treeScope(ctx));
  } catch (error) {
    tree = { error: errorText(error) };
  }
  const checkout =
    ctx.isLinkedWorktree &&
    ctx.gitDir !== null &&
    pathExists(path.join(ctx.gitDir, NEEDS_CHECKOUT_MARKER));
  return { tree, checkout, store: selfEdit ? snapshotStore(ctx.project.dir) : null };
}

/** After every session: the exit report, then (under --self-edit) what changed in the store. */
export function reportSession(io: Io, ctx: ProjectContext, before: SessionSnapshots): void {
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
