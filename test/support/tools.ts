// Host tools some unit tests drive for real (on their own temp files only).

import { execFileSync } from 'node:child_process';

/** Whether a `git` runs here: tests that build real repositories skip without one. */
export const hasGit = ((): boolean => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
