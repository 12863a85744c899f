// The per-project setup lock: develop, rebuild and the config editor's save
// serialise on it, so the config a session launches is the one read under it.

import { mkdir } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { ByreError, RefusedError } from '../errors.js';
import { writeFailure } from '../output/system-error.js';

/** The project's store directory (made 0700 when missing) and the lock file in it. */
interface LockPaths {
  dir: string;
  lock: string;
}

/** ~2 minutes of retries: 240 waits of 250–500 ms. */
const WAIT = { retries: 240, minTimeout: 250, maxTimeout: 500 };

/**
 * Runs `work` holding the project's setup lock; waits up to ~2 minutes for it.
 * A lock another byre still holds after that is a refusal (exit 3); a lock
 * that cannot be taken at all (a full or read-only store) is a failure
 * (exit 1) at once: only a held lock is worth waiting for.
 */
export async function withSetupLock<T>(
  project: LockPaths,
  work: () => Promise<T>,
  wait: { retries: number; minTimeout: number; maxTimeout: number } = WAIT,
): Promise<T> {
  try {
    await mkdir(project.dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw lockError(project.lock, error);
  }
  const release = await takeLock(project, wait);
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}

async function takeLock(
  project: LockPaths,
  wait: { retries: number; minTimeout: number; maxTimeout: number },
): Promise<() => Promise<void>> {
  for (let attempt = 0; ; attempt++) {
    try {
      // proper-lockfile's own retries would retry every error, a read-only
      // store's included, for the whole wait.
      return await lockfile.lock(project.dir, {
        lockfilePath: project.lock,
        realpath: false,
        stale: 30_000,
        update: 5_000,
        retries: 0,
      });
    } catch (error) {
      const held = (error as { code?: unknown } | null)?.code === 'ELOCKED';
      if (!held || attempt >= wait.retries) throw lockError(project.lock, error);
    }
    const delay = Math.min(wait.maxTimeout, wait.minTimeout * 2 ** Math.min(attempt, 16));
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** proper-lockfile marks a lock held by someone else with code ELOCKED. */
function lockError(lockPath: string, error: unknown): ByreError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ELOCKED') {
    return new RefusedError(`another byre holds the setup lock ${lockPath}`, {
      rule: 'lock.busy',
      remedy:
        'another byre is setting up this project; wait for it, or remove the lock if no byre runs',
      cause: error,
    });
  }
  const failure = writeFailure(error, lockPath, { rule: 'lock.failed', what: 'the setup lock' });
  if (failure instanceof ByreError) return failure;
  const why = error instanceof Error ? error.message : String(error);
  return new ByreError(`could not take the setup lock ${lockPath}: ${why}`, {
    rule: 'lock.failed',
    remedy: 'check that byre’s store (BYRE_HOME, default ~/.byre) is writable by you',
    cause: error,
  });
}
