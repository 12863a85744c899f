// Engines are never guessed (adr/0053), on real docker and podman as root:
// a project whose session runs on docker, under engine = "auto", with docker
// out of reach (DOCKER_HOST at a dead socket): develop refuses with 3 and
// docker's own words, podman gets no box, and status says it cannot tell
// whether the session runs, nor blames the box's port on another program. A
// project on podman under `auto`, with podman's runtime broken
// (CONTAINERS_CONF naming a runtime that does not exist), is refused quoting
// podman rather than started on the docker that answers, and doctor says so
// for real; the session check quotes podman's words too.

import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { runByre, runningBox, testScope, waitFor } from './harness.js';

const root = flavorsUnderTest().filter((f) => f.user === null);
const both = root.some((f) => f.engine === 'docker') && root.some((f) => f.engine === 'podman');
const scope = testScope();
const DEAD_DOCKER = { DOCKER_HOST: 'unix:///nonexistent/byretest/docker.sock' };

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Containers and images a root engine holds for a project, by label. */
function objectsOn(engine: 'docker' | 'podman', projectId: string): string {
  const filter = ['--filter', `label=byre.project=${projectId}`];
  const ask = (args: string[]): string =>
    execFileSync(engine, [...args, ...filter], { encoding: 'utf8' }).trim();
  return `${ask(['ps', '-aq'])}${ask(['images', '-q'])}`;
}

describe.skipIf(!both)('engines are never guessed', () => {
  it('auto keeps a docker project on docker: docker out of reach refuses, podman gets nothing', async () => {
    const project = scope.project('docker');
    const port = await freePort();
    project.writeConfig(
      `engine = "auto"\n[[ports]]\ncontainer = 8080\nhost = ${port}\ninterface = "127.0.0.1"\n`,
    );
    const session = scope.start(project, ['develop']);
    await waitFor('the docker box', () => runningBox(project), 600_000);

    const develop = runByre(project, ['develop'], { env: DEAD_DOCKER });
    expect(develop.status, develop.stderr).toBe(3);
    expect(develop.stderr).toContain(
      "this project's boxes are on docker, and docker cannot be asked",
    );
    // docker's own words, and the way back or the deliberate move.
    expect(develop.stderr).toMatch(/docker said:\n.*Cannot connect to the Docker daemon/);
    expect(develop.stderr).toContain('set engine = "podman" in');
    expect(objectsOn('podman', project.id)).toBe('');

    const status = runByre(project, ['status', '--data'], { env: DEAD_DOCKER });
    const data = JSON.parse(status.stdout) as {
      engine: { name: string | null; error: string | null };
      container: { state: string };
      refused: { rule: string; message: string }[];
    };
    expect(data.engine.name).toBeNull();
    expect(data.engine.error).toContain('Cannot connect to the Docker daemon');
    expect(data.container.state).toBe('unknown');
    const held = data.refused.find((r) => r.message.includes(`127.0.0.1:${port}`));
    expect(held?.message).toContain("or this project's box on docker, which byre could not ask");

    // With docker back, the same session is found again.
    const again = runByre(project, ['develop']);
    expect(again.status).toBe(3);
    expect(again.stderr).toContain('a session is already running for this directory');
    session.child.stdin?.end();
    await session.exited;
  });

  it('auto keeps a podman project on podman although docker answers; its broken runtime is refused and reported in its own words', () => {
    const project = scope.project('podman');
    // The project's boxes are on podman (its engine record, as a launch leaves it); the config says auto.
    project.writeConfig('engine = "auto"\n');
    mkdirSync(project.store, { recursive: true });
    writeFileSync(path.join(project.store, `engine.${project.id}`), 'podman\n');
    const conf = path.join(project.root, 'bad-runtime.conf');
    writeFileSync(conf, '[engine]\nruntime = "nosuchruntime"\n');
    const broken = { CONTAINERS_CONF: conf };

    const develop = runByre(project, ['develop'], { env: broken, input: 'true\n' });
    expect(develop.status, develop.stderr).toBe(3);
    expect(develop.stderr).toContain(
      "this project's boxes are on podman, and podman cannot be asked",
    );
    expect(develop.stderr).toContain('default OCI runtime "nosuchruntime" not found');
    expect(objectsOn('docker', project.id)).toBe('');

    const doctor = runByre(project, ['doctor', '--data'], { env: broken });
    const checks = (
      JSON.parse(doctor.stdout) as { checks: { id: string; verdict: string; found: string }[] }
    ).checks;
    const podman = checks.find((c) => c.id === 'engine.podman');
    expect(podman?.verdict).toBe('warn');
    expect(podman?.found).toContain(
      'podman said: Error: default OCI runtime "nosuchruntime" not found',
    );
    expect(checks.find((c) => c.id === 'engine.selected')?.verdict).toBe('fail');
  });

  it('develop quotes podman’s own words when podman cannot rule out a session', () => {
    const project = scope.project('docker');
    project.writeConfig('engine = "auto"\n');
    const conf = path.join(project.root, 'bad-runtime.conf');
    writeFileSync(conf, '[engine]\nruntime = "nosuchruntime"\n');
    const r = runByre(project, ['develop'], { env: { CONTAINERS_CONF: conf }, input: 'true\n' });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toContain('cannot rule out a running session: podman');
    expect(r.stderr).toContain('podman said "Error: default OCI runtime');
  });
});
