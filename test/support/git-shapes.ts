// Git's on-disk shapes, written by hand for tests that judge them (no git
// run): a directory made a linked worktree of a main checkout.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Makes `worktree` a linked worktree (named `w`) of the main checkout `main`, in git's shape. */
export function makeWorktreeOf(main: string, worktree: string): void {
  mkdirSync(path.join(main, '.git/worktrees/w'), { recursive: true });
  rmSync(path.join(worktree, '.git'), { recursive: true, force: true });
  writeFileSync(path.join(worktree, '.git'), `gitdir: ${main}/.git/worktrees/w\n`);
  writeFileSync(path.join(main, '.git/worktrees/w/commondir'), '../..\n');
  writeFileSync(path.join(main, '.git/worktrees/w/gitdir'), `${worktree}/.git\n`);
}
