// Which real engines the engine tier runs against. BYRE_TEST_ENGINES names
// engines that MUST be up (the tier fails, never skips, when one is not);
// without it, the tier runs on whatever answers.

import { execFileSync } from 'node:child_process';

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

export function flavorsUnderTest(): Flavor[] {
  const root = enginesUnderTest().map((engine) => ({ engine, user: null, label: engine }));
  const user = testUser();
  if (user === null) return root;
  return [
    ...root,
    ...root.map(({ engine }) => ({
      engine,
      user,
      label: engine === 'podman' ? `podman rootless (${user})` : `${engine} as ${user}`,
    })),
  ];
}
