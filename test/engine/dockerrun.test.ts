// `byre dockerrun` on each real engine: the printed argv names the engine,
// carries byre's flags, puts raw run_args after them and re-asserts byre's
// labels after the raw args.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';
import { enginesUnderTest } from './engines.js';
import { makeProject, runByre, type TestProject } from './harness.js';

const engines = enginesUnderTest();

describe.skipIf(engines.length === 0).each(engines)('byre dockerrun on %s', (engine) => {
  let project: TestProject;
  afterEach(() => project.cleanup());

  it('prints the run argv with run_args before the re-asserted labels', () => {
    project = makeProject(engine);
    const id = projectIdFor(project.dir);
    const store = path.join(project.home, 'projects', id);
    mkdirSync(store, { recursive: true });
    writeFileSync(
      path.join(store, 'byre.config'),
      'run_args = ["--label", "byre.project=spoofed", "--cap-add=SYS_PTRACE"]\n[[ports]]\ncontainer = 3000\n',
    );
    const r = runByre(project, ['dockerrun']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const line = r.stdout.trim();
    expect(line.startsWith(`${engine} run --rm -i --name byre-${id} `)).toBe(true);
    expect(line).toContain(`--mount type=bind,source=${project.dir},target=/workspace`);
    expect(line).toContain('-p 127.0.0.1:3000:3000');
    const raw = line.indexOf('--cap-add=SYS_PTRACE');
    const spoof = line.indexOf('byre.project=spoofed');
    const real = line.lastIndexOf(`--label byre.project=${id}`);
    expect(spoof).toBeGreaterThan(0);
    expect(raw).toBeGreaterThan(spoof);
    expect(real).toBeGreaterThan(raw);
    expect(line.endsWith(` byre-${id}-u${process.getuid?.()}-g${process.getgid?.()}`)).toBe(true);
  });
});
