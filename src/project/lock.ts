// The per-project setup lock: develop, rebuild and the config editor's save
// serialise on it, so the config a session launches is the one read under it.

import { mkdir } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { ByreError, RefusedError } from '../errors.js';
import type { ProjectStorePaths } from './store-layout.js';

/** ~2 minutes of retries: 240 waits of 250–500 ms. */
const WAIT = { retries: 240, minTimeout: 250, maxTimeout: 500 };

/**
 * Runs `work` holding the project's setup lock; waits up to ~2 minutes for it.
 * A lock another byre still holds after that is a refusal (exit 3); a lock
 * that cannot be taken at all (an unwritable store) is a failure (exit 1).
 */
export async function withSetupLock<T>(
  project: ProjectStorePaths,
  work: () => Promise<T>,
  wait: { retries: number; minTimeout: number; maxTimeout: number } = WAIT,
): Promise<T> {
  await mkdir(project.dir, { recursive: true, mode: 0o700 });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(project.dir, {
      lockfilePath: project.lock,
      realpath: false,
      stale: 30_000,
      update: 5_000,
      retries: wait,
    });
  } catch (error) {
    throw lockError(project.lock, error);
  }
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}

/** proper-lockfile marks a lock held by someone else with code ELOCKED. */
export function lockError(lockPath: string, error: unknown): ByreError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ELOCKED') {
    return new RefusedError(`another byre holds the setup lock ${lockPath}`, {
      rule: 'lock.busy',
      remedy:
        'another byre is setting up this project; wait for it, or remove the lock if no byre runs',
      cause: error,
    });
  }
  const why = error instanceof Error ? error.message : String(error);
  return new ByreError(`could not take the setup lock ${lockPath}: ${why}`, {
    rule: 'lock.failed',
    remedy: 'check that byre’s store (BYRE_HOME, default ~/.byre) is writable by you',
    cause: error,
  });
}
