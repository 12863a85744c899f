// Attacks a box can run in /workspace, replayed by tests at every tier.

/**
 * issue 27's identity forgery (adr/0047): the project's repository moved into
 * `sub/` and the project made a linked worktree of it, every pointer
 * consistent with the others. Run in the project directory.
 */
export const FORGE_WORKTREE = [
  'mkdir sub && mv .git sub/.git && mkdir -p sub/.git/worktrees/x',
  'echo ../.. > sub/.git/worktrees/x/commondir',
  'echo ../../../../.git > sub/.git/worktrees/x/gitdir',
  'echo "gitdir: sub/.git/worktrees/x" > .git',
].join(' && ');
