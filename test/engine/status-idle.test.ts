// Engine tier for adr/0039 on real engines: with no container running on the
// machine, `byre status` leaves podman unasked (no live `conmon` process
// anywhere proves it runs none), on a docker project's page and on a podman
// one's, as root and rootless. It needs the machine to itself (another
// lane's podman box would rightly make byre ask), so `npm test` runs it
// after the lanes (adr/0060); nothing here builds or starts a box.

import { afterEach, describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { bareProject, liveMonitors, podmanRecorder, runByre, type TestProject } from './harness.js';

const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');

const projects: TestProject[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

describe.skipIf(flavors.length === 0).each(flavors)('an idle byre status on $label', (flavor) => {
  it('asks podman nothing while no container runs on the machine', () => {
    const project = bareProject(flavor);
    projects.push(project);
    const podman = podmanRecorder(project);
    const idle = runByre(project, ['status'], { env: podman.env });
    expect(idle.status, idle.stderr).toBe(0);
    expect(idle.stdout).toMatch(/^Container: +not running$/m);
    expect(idle.stdout).toContain(`Engine:       ${flavor.engine}`);
    expect(podman.calls(), liveMonitors()).toEqual([]);
  });
});
