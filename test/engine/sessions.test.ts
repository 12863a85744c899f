// Engine tier: sessions never kill each other. Two `byre develop` runs
// started together in one directory yield exactly one session and one
// refusal (exit 3), neither killed — on docker and podman as root, and on
// rootless podman for a user whom docker refuses (its socket denies them),
// which must not read as "cannot rule out a session".

import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flavorsUnderTest, type Flavor } from './engines.js';
import { runByre, runningBox, testScope, waitFor, type BackgroundSession } from './harness.js';

const flavors: Flavor[] = flavorsUnderTest().filter(
  (f) => f.user === null || f.engine === 'podman',
);
const scope = testScope();
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** A docker socket that refuses the test user: root-owned, mode 0600, listening. */
async function deniedDockerHost(dir: string): Promise<Record<string, string>> {
  const sock = path.join(dir, 'docker-denied.sock');
  const server = createServer((c) => c.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  chmodSync(sock, 0o600);
  return { DOCKER_HOST: `unix://${sock}` };
}

describe.skipIf(flavors.length === 0).each(flavors)('sessions on $label', (flavor) => {
  it('two develops started together: one session runs, the other exits 3, neither is killed', async () => {
    const project = scope.project(flavor);
    const env = flavor.user === null ? {} : await deniedDockerHost(project.root);
    const runs: BackgroundSession[] = [
      scope.start(project, ['develop'], { env }),
      scope.start(project, ['develop'], { env }),
    ];
    const first = await Promise.race(runs.map(async (run) => ({ run, code: await run.exited })));
    expect(first.run.stderr()).toContain('a session is already running for this directory');
    expect(first.code).toBe(3);
    const survivor = runs.find((r) => r !== first.run) as BackgroundSession;
    await waitFor('the surviving session', () => runningBox(project));
    expect(await survivor.end()).toBe(0);
    expect(survivor.stderr()).not.toMatch(/exited 137|SIGKILL/);

    if (flavor.user !== null) {
      // forget completes too: docker refusing this user leaves no gap.
      const forget = runByre(project, ['forget', '-y'], { env });
      expect(forget.stderr).toContain('left unchecked, as this user may not use it: docker');
      expect(forget.status).toBe(0);
    }
  });
});
