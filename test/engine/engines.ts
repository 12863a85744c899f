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
