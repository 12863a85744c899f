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

/**
 * Runs the host's git as an oracle in `cwd`, with no system config, `home`
 * as HOME and the ceiling it does not look above: its stdout, trimmed, or
 * null when git stops with an error.
 */
export function gitOracle(cwd: string, home: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CEILING_DIRECTORIES: home,
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}
