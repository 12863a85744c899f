// Engine tier for `byre status`, driving dist/byre on real docker and podman:
// the running box is the page's subject, a config change shows up as exactly
// that delta under "Next launch", and an edited record is reported, not trusted.
// On podman (root and rootless), a status with the box running still finds it
// by asking podman; that an idle status asks podman nothing is in
// status-idle.test.ts, which needs no other lane's box on the machine.

import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import { testScope, engineCli, podmanRecorder, runByre, runningBox, waitFor } from './harness.js';

const rootFlavors = flavorsUnderTest().filter((f) => f.user === null);
const rootlessPodman = flavorsUnderTest().filter((f) => f.engine === 'podman' && f.user !== null);

const scope = testScope();

/** The rows under one label: its own line plus continuation lines. */
function section(page: string, label: string): string[] {
  const lines = page.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${label}:`));
  if (start < 0) return [];
  const out = [lines[start]?.slice(label.length + 1).trim() ?? ''];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ')) break;
    out.push(line.trim());
  }
  return out;
}

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)('byre status on $label', (flavor) => {
  it('describes the running box, lists a new mount as the next-launch delta, and distrusts an edited record', async () => {
    const project = scope.project(flavor);
    const podman = podmanRecorder(project);

    const session = scope.start(project, ['develop']);
    const id = await waitFor('the box', () => runningBox(project));

    // The box's own conmon keeps podman asked; docker's box leaves it out.
    const running = runByre(project, ['status'], { env: podman.env });
    expect(running.status).toBe(0);
    expect(podman.calls()).toHaveLength(flavor.engine === 'podman' ? 1 : 0);
    const container = section(running.stdout, 'Container').join(' ');
    expect(container).toContain(`running (${id.slice(0, 12)}) on ${flavor.engine}`);
    expect(container).toContain('the grant rows above describe THIS box');
    expect(container).not.toContain('orphaned');
    expect(running.stdout).toContain('Image:');
    expect(running.stdout).not.toContain('Next launch:');
    const data = JSON.parse(runByre(project, ['status', '--data']).stdout) as {
      subject: string;
      launch: { state: string; record: string };
      container: { id: string };
    };
    expect(data.subject).toBe('running_box');
    expect(data.launch.state).toBe('verified');
    expect(data.container.id.startsWith(id.slice(0, 12))).toBe(true);

    // The config gains a mount: only that shows as the next launch's delta.
    const extra = path.join(project.root, 'extra');
    mkdirSync(extra);
    project.writeConfig(`[[mounts]]\nhost = "${extra}"\ntarget = "/extra"\n`);
    const changed = runByre(project, ['status']);
    expect(changed.status).toBe(0);
    expect(section(changed.stdout, 'Next launch')).toEqual([`+ bind ${extra} -> /extra (ro)`]);
    // The grant rows still describe the box, which has no such mount.
    expect(section(changed.stdout, 'Host mounts')).toEqual(['none']);

    // Editing the record breaks its hash: reported, and no longer the subject.
    const label = engineCli(project, [
      'inspect',
      '--format',
      '{{index .Config.Labels "byre.launch"}}',
      id,
    ]).trim();
    expect(label).toMatch(/^[0-9a-f]{64}$/);
    appendFileSync(path.join(project.store, 'launches', `${label}.toml`), '# edited\n');
    const tampered = runByre(project, ['status']);
    expect(tampered.status).toBe(0);
    const degraded = section(tampered.stdout, 'Container').join(' ');
    expect(degraded).toContain('was edited since launch');
    expect(degraded).toContain('CURRENT CONFIG');
    expect(tampered.stdout).not.toContain('THIS box');
    expect(tampered.stdout).not.toContain('Next launch:');
    expect(tampered.stdout).not.toContain('Image:');
    expect(section(tampered.stdout, 'Host mounts')).toEqual([
      `${extra} -> /extra  (ro)  (project)`,
    ]);

    // The byre that started the box dies; the box outlives it: orphaned.
    session.child.kill('SIGKILL');
    await session.exited;
    if (runningBox(project) !== null) {
      const orphan = runByre(project, ['status']);
      expect(section(orphan.stdout, 'Container').join(' ')).toContain(
        'orphaned: the byre that started it',
      );
    }
  });
});

describe.skipIf(rootlessPodman.length === 0).each(rootlessPodman)(
  'byre status on $label',
  (flavor) => {
    it('finds the running box by asking podman', async () => {
      const project = scope.project(flavor);
      const podman = podmanRecorder(project);
      scope.start(project, ['develop']);
      const id = await waitFor('the box', () => runningBox(project), 500_000);
      const running = runByre(project, ['status'], { env: podman.env });
      expect(running.status).toBe(0);
      expect(podman.calls()).toHaveLength(1);
      expect(section(running.stdout, 'Container').join(' ')).toContain(
        `running (${id.slice(0, 12)}) on podman`,
      );
    });
  },
);
