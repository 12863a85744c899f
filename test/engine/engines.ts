// Which real engines the engine tier runs against. BYRE_TEST_ENGINES names
// engines that MUST be up (the tier fails, never skips, when one is not);
// without it, the tier runs on whatever answers.

import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type EngineName = 'docker' | 'podman';
const ALL: EngineName[] = ['docker', 'podman'];

export function engineAnswers(name: EngineName): boolean {
  try {
    execFileSync(name, ['info'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

export function requiredEngines(env: NodeJS.ProcessEnv = process.env): EngineName[] {
  const raw = env['BYRE_TEST_ENGINES']?.trim();
  if (!raw) return [];
  return raw.split(',').map((s) => {
    const name = s.trim();
    if (name !== 'docker' && name !== 'podman') {
      throw new Error(`BYRE_TEST_ENGINES: unknown engine "${name}" (want docker,podman)`);
    }
    return name;
  });
}

/** The engines this run tests: the required ones, else the ones that answer. */
export function enginesUnderTest(): EngineName[] {
  const required = requiredEngines();
  return required.length > 0 ? required : ALL.filter(engineAnswers);
}

/**
 * A way of running byre against an engine: as root (BYRE_ALLOW_ROOT=1), or as
 * the unprivileged BYRE_TEST_USER — in the docker group for docker, rootless
 * for podman — which is where file ownership and keep-id are proven.
 */
export interface Flavor {
  engine: EngineName;
  /** null: root. */
  user: string | null;
  label: string;
}

export function testUser(env: NodeJS.ProcessEnv = process.env): string | null {
  const user = env['BYRE_TEST_USER']?.trim();
  return user ? user : null;
}

export function userEngineAnswers(user: string, name: EngineName): boolean {
  try {
    execFileSync('runuser', ['-l', user, '-c', `${name} info >/dev/null`], {
      stdio: 'ignore',
      timeout: 30_000,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * BYRE_TEST_FLAVORS: `root` keeps only the root flavours, `user` only the
 * test user's; unset keeps both. `npm test` runs rootless podman in a lane of
 * its own this way (adr/0060).
 */
export function flavorScope(env: NodeJS.ProcessEnv = process.env): 'root' | 'user' | 'all' {
  const raw = env['BYRE_TEST_FLAVORS']?.trim() ?? '';
  if (raw === '') return 'all';
  if (raw === 'root' || raw === 'user') return raw;
  throw new Error(`BYRE_TEST_FLAVORS: unknown scope "${raw}" (want root or user)`);
}

export function flavorsUnderTest(): Flavor[] {
  const scope = flavorScope();
  const engines = enginesUnderTest();
  const root = engines.map((engine) => ({ engine, user: null, label: engine }));
  const user = testUser();
  const users =
    user === null
      ? []
      : engines.map((engine) => ({
          engine,
          user,
          label: engine === 'podman' ? `podman rootless (${user})` : `${engine} as ${user}`,
        }));
  if (scope === 'root') return root;
  if (scope === 'user') return users;
  return [...root, ...users];
}

/**
 * The engines that engine-level files (the adapters, the generated image)
 * drive as root: none in a lane scoped to the test user's flavours, which
 * must never drive root podman beside the lane that does (adr/0060).
 */
export function rootEnginesUnderTest(): EngineName[] {
  return flavorScope() === 'user' ? [] : enginesUnderTest();
}

/**
 * The engine CLI as the flavor runs it, for tests that drive the adapters
 * (not the binary): the engine itself for root, else a runuser wrapper
 * written into `dir` that runs it as the test user (a `--cidfile`'s
 * directory made theirs).
 */
export function flavorEnginePath(flavor: Flavor, dir: string): string {
  const own = execFileSync('sh', ['-c', `command -v ${flavor.engine}`], {
    encoding: 'utf8',
  }).trim();
  if (flavor.user === null) return own;
  const home = execFileSync('getent', ['passwd', flavor.user], { encoding: 'utf8' }).split(':')[5];
  const wrapper = path.join(dir, flavor.engine);
  // byre runs as the engine's user; here it is root, so a run's cidfile
  // directory (byre's private temp one) is handed to that user first.
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      'prev=',
      `for a in "$@"; do [ "$prev" = --cidfile ] && chown ${flavor.user} "$(dirname "$a")"; prev=$a; done`,
      `exec runuser -u ${flavor.user} -- env HOME=${home ?? '/'} ${own} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}
