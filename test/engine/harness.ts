// Shared machinery for engine tests: temp projects and BYRE_HOME, running the
// built binary, and removing every engine object a test project made.
//
// Test projects live under a directory named `byretest-…`, so their project
// ids (slug of the last two path components) always contain `byretest`; the
// sweep keys on that and on the `byre.test` label that raw test objects carry.

import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EngineName } from './engines.js';

export const BYRE_BIN = resolve('dist/byre');

export interface TestProject {
  /** Canonical project directory. */
  dir: string;
  /** Isolated byre store. */
  home: string;
  root: string;
  cleanup(): void;
}

/** A fresh project dir and store; the store's default.config pins `engine`. */
export function makeProject(engine: EngineName, name = 'proj'): TestProject {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'byretest-')));
  const dir = join(root, name);
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'default.config'), `engine = "${engine}"\n`, { mode: 0o600 });
  return { dir, home, root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface ByreRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runByre(
  project: TestProject,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): ByreRun {
  const result: SpawnSyncReturns<string> = spawnSync(BYRE_BIN, args, {
    cwd: project.dir,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 900_000,
    env: {
      ...process.env,
      BYRE_HOME: project.home,
      BYRE_ALLOW_ROOT: '1',
      ...options.env,
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function engineOut(engine: EngineName, args: string[]): string {
  try {
    return execFileSync(engine, args, {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}

/** Everything test-made on one engine: containers, then images, then volumes. */
export function testObjects(engine: EngineName): {
  containers: string[];
  images: string[];
  volumes: string[];
} {
  const containers = [
    ...lines(engineOut(engine, ['ps', '-aq', '--filter', 'label=byre.test'])),
    ...lines(engineOut(engine, ['ps', '-a', '--format', '{{.ID}} {{.Names}}']))
      .filter((l) => l.includes('byretest'))
      .map((l) => l.split(' ')[0] ?? ''),
  ];
  const images = [
    ...lines(engineOut(engine, ['images', '-q', '--filter', 'label=byre.test'])),
    ...lines(engineOut(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).filter((l) =>
      l.includes('byretest'),
    ),
  ];
  const volumes = [
    ...lines(engineOut(engine, ['volume', 'ls', '-q', '--filter', 'label=byre.test'])),
    ...lines(engineOut(engine, ['volume', 'ls', '-q'])).filter((v) => v.includes('byretest')),
  ];
  return {
    containers: [...new Set(containers)],
    images: [...new Set(images)],
    volumes: [...new Set(volumes)],
  };
}

export function sweepTestObjects(engine: EngineName): void {
  const { containers, images, volumes } = testObjects(engine);
  if (containers.length) engineOut(engine, ['rm', '-f', ...containers]);
  if (images.length) engineOut(engine, ['rmi', '-f', ...images]);
  if (volumes.length) engineOut(engine, ['volume', 'rm', '-f', ...volumes]);
}
