// The first five minutes on real engines, through the built binary (root
// docker and podman): a base image that cannot be pulled ends in a located
// message, a failing build step prints the engine's whole log (kept in the
// store too) while --verbose streams it raw, `byre shell -- <cmd>` runs one
// command in the running box with its argv and exit status intact, and
// forget's warning names state volumes only when there are some.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { runByre, runningBox, testScope, waitFor } from './harness.js';

const rootFlavors = flavorsUnderTest().filter((f) => f.user === null);
const scope = testScope();
const NO_AGENT = 'template = "none"\nagent = "none"\n';

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)('first minutes on $label', (flavor) => {
  it('says which base image could not be pulled, from which line, and how to use a local one', () => {
    const project = scope.project(flavor);
    // Port 1 on loopback refuses at once: no registry is ever contacted.
    project.writeConfig(`${NO_AGENT}base = "localhost:1/byretest-nope:1"\n`);
    const r = runByre(project, ['develop'], { input: 'exit 0\n' });
    expect(r.status).toBe(1);
    const file = path.join(project.store, 'byre.config');
    expect(r.stderr).toContain(
      `byre: ${file}:3:1 (key base): the base image localhost:1/byretest-nope:1 is not on ${flavor.engine} and could not be pulled: `,
    );
    expect(r.stderr).toContain(
      `base = "localhost:1/byretest-nope:1" comes from this project's config`,
    );
    expect(r.stderr).toContain(
      `fix: check the name; pull it where its registry is reachable (${flavor.engine} pull localhost:1/byretest-nope:1)`,
    );
    expect(r.stderr).toContain(`base = "<image>" in ${file}`);
    expect(r.stderr).not.toContain("the engine's log follows");
  });

  it('prints the whole build log when a step fails, keeps it in the store, and streams it with --verbose', () => {
    const project = scope.project(flavor);
    project.writeConfig(
      `${NO_AGENT}dockerfile_post = ["RUN echo byretest-broken-step && exit 3"]\n`,
    );
    const r = runByre(project, ['develop'], { input: 'exit 0\n' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^byre: building the image \(\d+:\d\d\): step \d+\/\d+: RUN echo byretest-broken-step/m,
    );
    const log = path.join(project.store, 'build.log');
    expect(r.stderr).toContain(
      `byre: the image build failed; the engine's log follows (also in ${log}):`,
    );
    expect(r.stderr).toMatch(/^(Step|STEP) 1\/\d+ ?: FROM debian:bookworm$/m);
    expect(r.stderr).toMatch(/^byretest-broken-step$/m);
    expect(r.stderr).toMatch(/byre: the image build failed \(\w+ exit \d+\); its log is above/);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain('byretest-broken-step');

    const verbose = runByre(project, ['develop', '--verbose'], { input: 'exit 0\n' });
    expect(verbose.status).toBe(1);
    expect(verbose.stderr).toMatch(/^(Step|STEP) 1\/\d+ ?: FROM debian:bookworm$/m);
    expect(verbose.stderr).not.toContain('building the image');
    expect(verbose.stderr).not.toContain("the engine's log follows");
    expect(verbose.stderr).toContain('its log is above');
  });

  it('runs one command in the running box with `byre shell --`: argv intact, status and stdin passed through', async () => {
    const project = scope.project(flavor);
    project.writeConfig(NO_AGENT);
    const session = scope.start(project, ['develop']);
    await waitFor('the box', () => runningBox(project));

    const status = runByre(project, ['shell', '--', 'sh', '-c', 'echo from-box; exit 5']);
    expect(status.status).toBe(5);
    expect(status.stdout).toBe('from-box\n');
    expect(status.stderr).toBe('');

    const argv = runByre(project, [
      'shell',
      '--',
      'printf',
      '%s|',
      'a b',
      '$HOME',
      "it's",
      '--help',
    ]);
    expect(argv.status).toBe(0);
    expect(argv.stdout).toBe("a b|$HOME|it's|--help|");

    const where = runByre(project, ['shell', '--', 'sh', '-c', 'echo "$HOME"; pwd']);
    expect(where.stdout).toBe('/home/dev\n/workspace\n');

    const piped = runByre(project, ['shell', '--', 'cat'], { input: 'piped through\n' });
    expect(piped.stdout).toBe('piped through\n');

    const missing = runByre(project, ['shell', '--', 'byretest-no-such-command']);
    expect(missing.status).toBe(127);

    expect(await session.end()).toBe(0);
  });

  it('names state volumes in forget’s warning only when there are some', () => {
    const cacheOnly = scope.project(flavor, 'cache');
    cacheOnly.writeConfig(
      `${NO_AGENT}[[volumes]]\nname = "npm"\nrole = "cache"\ntarget = "/home/dev/.npm"\n`,
    );
    expect(runByre(cacheOnly, ['develop'], { input: 'exit 0\n' }).status).toBe(0);
    const quiet = runByre(cacheOnly, ['forget', '-y']);
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).toContain(`byre-${cacheOnly.id}-npm`);
    expect(quiet.stderr).not.toContain('state');

    const stateful = scope.project(flavor, 'state');
    stateful.writeConfig(
      `${NO_AGENT}[[volumes]]\nname = "login"\nrole = "state"\ntarget = "/home/dev/login"\n[[volumes]]\nname = "npm"\nrole = "cache"\ntarget = "/home/dev/.npm"\n`,
    );
    expect(runByre(stateful, ['develop'], { input: 'exit 0\n' }).status).toBe(0);
    const loud = runByre(stateful, ['forget', '-y']);
    expect(loud.status, loud.stderr).toBe(0);
    expect(loud.stderr).toContain(
      `byre: state volumes hold agent logins and shell history and cannot be recovered: byre-${stateful.id}-login\n`,
    );
  });
});
