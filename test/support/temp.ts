// Temporary directories for tests that touch the filesystem: one per test
// (or per file), realpath'd so a symlinked /tmp does not skew path checks,
// and always removed afterwards, failed tests included.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished } from 'vitest';

/** A fresh directory named byre-<name>-XXXXXX; the caller removes it. */
export function makeTempDir(name: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), `byre-${name}-`)));
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface TempDir {
  /** The current directory; read it in hooks and tests, not at collection time. */
  readonly path: string;
}

function useTempDirWith(
  before: (fn: () => Promise<void>) => void,
  after: (fn: () => void) => void,
  name: string,
  ready?: (dir: string) => void | Promise<void>,
): TempDir {
  let current: string | undefined;
  before(async () => {
    current = makeTempDir(name);
    await ready?.(current);
  });
  after(() => {
    if (current !== undefined) removeTempDir(current);
    current = undefined;
  });
  return {
    get path(): string {
      if (current === undefined) throw new Error(`temp dir ${name} read outside a test`);
      return current;
    },
  };
}

/**
 * A fresh directory for each test in the enclosing scope, made before the
 * test's other beforeEach hooks run; `ready` sets up what lives in it.
 */
export function useTempDir(name: string, ready?: (dir: string) => void | Promise<void>): TempDir {
  return useTempDirWith(beforeEach, afterEach, name, ready);
}

/** One directory shared by every test in the enclosing scope. */
export function useSharedTempDir(
  name: string,
  ready?: (dir: string) => void | Promise<void>,
): TempDir {
  return useTempDirWith(beforeAll, afterAll, name, ready);
}

/** A fresh directory removed when the current test finishes; call it inside a test. */
export function testTempDir(name: string): string {
  const dir = makeTempDir(name);
  onTestFinished(() => removeTempDir(dir));
  return dir;
}

/** Writes `content` at `rel` under `root`, making the directories on the way; returns the path. */
export function putFile(root: string, rel: string, content: string, mode?: number): string {
  const p = path.join(root, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content, mode === undefined ? undefined : { mode });
  return p;
}
