// The per-project setup lock: develop, rebuild and the config editor's save
// serialise on it, so the config a session launches is the one read under it.

import { mkdir } from 'node:fs/promises';
import lockfile from 'proper-lockfile';
import { ByreError } from '../errors.js';
import type { ProjectStorePaths } from './store-layout.js';

/** Runs `work` holding the project's setup lock; waits up to ~2 minutes for it. */
export async function withSetupLock<T>(
  project: ProjectStorePaths,
  work: () => Promise<T>,
): Promise<T> {
  await mkdir(project.dir, { recursive: true, mode: 0o700 });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(project.dir, {
      lockfilePath: project.lock,
      realpath: false,
      stale: 30_000,
      update: 5_000,
      retries: { retries: 240, minTimeout: 250, maxTimeout: 500 },
    });
  } catch (error) {
    throw new ByreError(`could not take the setup lock ${project.lock}`, {
      rule: 'lock.busy',
      remedy:
        'another byre is setting up this project; wait for it, or remove the lock if no byre runs',
      cause: error,
    });
  }
  try {
    return await work();
  } finally {
    await release().catch(() => undefined);
  }
}
