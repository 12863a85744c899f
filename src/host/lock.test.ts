import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { EXIT, RefusedError } from '../errors.js';
import { withSetupLock } from './lock.js';
import { projectStorePaths } from '../project/store-layout.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    chmodSync(d, 0o700);
    rmSync(d, { recursive: true, force: true });
  }
});
const home = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'byre-lock-'));
  dirs.push(d);
  return d;
};
const NO_WAIT = { retries: 1, minTimeout: 10, maxTimeout: 10 };

describe('the setup lock', () => {
  it('runs the work and releases the lock for the next taker', async () => {
    const project = projectStorePaths(home(), 'proj-sp-d57bf0');
    expect(await withSetupLock(project, async () => 'first')).toBe('first');
    expect(await withSetupLock(project, async () => 'second', NO_WAIT)).toBe('second');
  });

  it('a lock still held after the wait is a refusal (exit 3, lock.busy)', async () => {
    const project = projectStorePaths(home(), 'proj-sp-d57bf0');
    const inner = withSetupLock(project, () =>
      withSetupLock(project, async () => 'never', NO_WAIT),
    );
    const err = await inner.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect(err).toMatchObject({ rule: 'lock.busy', exitCode: EXIT.refused });
  });

  it.skipIf(process.getuid?.() === 0)(
    'a store it cannot write is a failure (exit 1, lock.failed), not a refusal',
    async () => {
      const h = home();
      const project = projectStorePaths(h, 'proj-sp-d57bf0');
      await withSetupLock(project, async () => undefined);
      chmodSync(project.dir, 0o500);
      const err = await withSetupLock(project, async () => 'never', NO_WAIT).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ rule: 'lock.failed', exitCode: EXIT.failed });
    },
  );

  it.each([
    [{ code: 'ELOCKED' }, 'lock.busy', EXIT.refused],
    [
      Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }),
      'lock.failed',
      EXIT.failed,
    ],
    [new Error('odd'), 'lock.failed', EXIT.failed],
    ['a string', 'lock.failed', EXIT.failed],
  ])('a lock that fails with %j is %s', async (error, rule, exitCode) => {
    const project = projectStorePaths(home(), 'proj-sp-d57bf0');
    const lock = vi.spyOn(lockfile, 'lock').mockRejectedValue(error);
    try {
      const e = await withSetupLock(project, async () => 'never', NO_WAIT).catch(
        (thrown: unknown) => thrown,
      );
      expect(e).toMatchObject({ rule, exitCode });
      expect((e as Error).message).toContain(project.lock);
    } finally {
      lock.mockRestore();
    }
  });
});
