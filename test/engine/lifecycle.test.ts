// The lifecycle verbs on each real engine, through the built binary: state
// volumes persist across sessions and rebuild, reset wipes the project's but
// never a machine-scoped one, forget leaves nothing, rehome carries a volume
// to the new id, and shell without a session says how to start one. Every
// test removes what it made, including on failure.

import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';
import { flavorsUnderTest, type Flavor } from './engines.js';
import { engineCli, makeProject, runByre, type ByreRun, type TestProject } from './harness.js';

const flavors = flavorsUnderTest();

function cli(flavor: Flavor, args: string[]): string[] {
  return engineCli({ flavor } as TestProject, args)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

function quiet(flavor: Flavor, args: string[]): void {
  try {
    cli(flavor, args);
  } catch {
    // Already gone.
  }
}

/** Every engine object of `id`: containers, images (dangling ones too), volumes. */
function objectsOf(flavor: Flavor, id: string): string[] {
  const label = `label=byre.project=${id}`;
  return [
    ...cli(flavor, ['ps', '-aq', '--filter', label]).map((c) => `container ${c}`),
    ...cli(flavor, ['images', '-q', '--no-trunc', '--filter', label]).map((i) => `image ${i}`),
    ...cli(flavor, ['images', '--format', '{{.Repository}}:{{.Tag}}'])
      .filter((r) => r.includes(`byre-${id}-u`))
      .map((r) => `image ${r}`),
    ...cli(flavor, ['volume', 'ls', '-q'])
      .filter((v) => v.startsWith(`byre-${id}-`))
      .map((v) => `volume ${v}`),
  ];
}

/** For afterEach: everything `id` made, failure paths included. */
function removeAllOf(flavor: Flavor, id: string): void {
  for (const c of cli(flavor, ['ps', '-aq', '--filter', `label=byre.project=${id}`])) {
    quiet(flavor, ['rm', '-f', c]);
  }
  for (const r of cli(flavor, ['images', '--format', '{{.Repository}}:{{.Tag}}'])) {
    if (r.includes(`byre-${id}-u`)) quiet(flavor, ['rmi', '-f', r]);
  }
  for (const i of cli(flavor, [
    'images',
    '-q',
    '--no-trunc',
    '--filter',
    `label=byre.project=${id}`,
  ])) {
    quiet(flavor, ['rmi', '-f', i]);
  }
  for (const v of cli(flavor, ['volume', 'ls', '-q'])) {
    if (v.startsWith(`byre-${id}-`)) quiet(flavor, ['volume', 'rm', '-f', v]);
  }
}

function volumeExists(flavor: Flavor, name: string): boolean {
  return cli(flavor, ['volume', 'ls', '-q']).includes(name);
}

function hostUid(flavor: Flavor): number {
  if (flavor.user === null) return process.getuid?.() ?? 0;
  return Number(
    execFileSync('getent', ['passwd', flavor.user], { encoding: 'utf8' }).split(':')[2],
  );
}

/** Writes the project's store config: no template, no agent, the given volumes. */
function configure(project: TestProject, volumes: string): string {
  project.writeConfig(`template = "none"\nagent = "none"\n${volumes}`);
  return project.id;
}

const STATE = '[[volumes]]\nname = "state"\nrole = "state"\ntarget = "/home/dev/state"\n';

function machine(name: string): string {
  return `[[volumes]]\nname = "${name}"\nrole = "state"\nscope = "machine"\ntarget = "/home/dev/shared"\n`;
}

/** One session: the script runs in the box's login shell, fed on stdin. */
function session(project: TestProject, script: string): ByreRun {
  return runByre(project, ['develop'], { input: `${script}\nexit\n` });
}

function ok(r: ByreRun): ByreRun {
  if (r.status !== 0) throw new Error(`byre exited ${r.status}\n${r.stderr}`);
  return r;
}

describe.skipIf(flavors.length === 0).each(flavors)('lifecycle on $label', (flavor) => {
  const projects: TestProject[] = [];
  const ids: string[] = [];
  const machineVolumes: string[] = [];

  function project(name = 'proj'): TestProject {
    const p = makeProject(flavor, name);
    projects.push(p);
    return p;
  }

  afterEach(() => {
    for (const id of ids.splice(0)) removeAllOf(flavor, id);
    for (const v of machineVolumes.splice(0)) quiet(flavor, ['volume', 'rm', '-f', v]);
    for (const p of projects.splice(0)) p.cleanup();
  });

  it('state survives sessions and rebuild; reset wipes it but not a shared machine volume', () => {
    const shared = `byretest-${randomBytes(4).toString('hex')}`;
    const uid = hostUid(flavor);
    const machineName = `byre-machine-u${uid}-${shared}`;
    machineVolumes.push(machineName);
    const a = project('alpha');
    const b = project('beta');
    const idA = configure(a, STATE + machine(shared));
    const idB = configure(b, machine(shared));
    ids.push(idA, idB);

    ok(session(a, 'echo kept > /home/dev/state/f; echo shared > /home/dev/shared/f'));
    expect(ok(session(a, 'cat /home/dev/state/f')).stdout).toContain('kept');

    // A rebuild without the cache re-runs every layer from the base (minutes
    // on rootless podman); what it could change for a volume is the same
    // whoever runs the engine, so the test user's flavours skip it.
    if (flavor.user === null) {
      const rebuilt = ok(runByre(a, ['rebuild']));
      expect(rebuilt.stderr).toMatch(/rebuilt byre-.*without the build cache/);
      expect(ok(session(a, 'cat /home/dev/state/f')).stdout).toContain('kept');
    }

    expect(ok(session(b, 'cat /home/dev/shared/f')).stdout).toContain('shared');

    const reset = ok(runByre(a, ['reset', '-y']));
    expect(reset.stderr).toContain(`byre-${idA}-state`);
    expect(reset.stderr).toMatch(new RegExp(`left alone \\(machine-scoped[^\\n]*${machineName}`));
    expect(volumeExists(flavor, `byre-${idA}-state`)).toBe(false);
    expect(volumeExists(flavor, machineName)).toBe(true);
    expect(objectsOf(flavor, idA).some((o) => o.startsWith('image '))).toBe(true);

    const after = ok(
      session(a, 'cat /home/dev/state/f 2>/dev/null || echo wiped; cat /home/dev/shared/f'),
    );
    expect(after.stdout).toContain('wiped');
    expect(after.stdout).toContain('shared');
  });

  // Bookkeeping over engine objects runs the same code whoever runs the
  // engine; as the test user (rootless podman is the slowest flavour) only
  // what ownership can change is re-proven: dev writes a fresh state volume
  // and a machine one, kept across sessions (above). Rehome copies a volume
  // with a helper and the box only reads it back, which root proves alike.
  const asRoot = it.runIf(flavor.user === null);

  // One project serves both: a refused reset leaves what forget then removes.
  asRoot(
    'reset without -y off a terminal asks for -y and removes nothing; forget leaves nothing of the project on the engine or in the store',
    () => {
      const a = project();
      const id = configure(a, STATE);
      ids.push(id);
      ok(session(a, 'echo x > /home/dev/state/f'));
      const r = runByre(a, ['reset']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('-y');
      expect(volumeExists(flavor, `byre-${id}-state`)).toBe(true);

      expect(objectsOf(flavor, id).length).toBeGreaterThan(0);
      ok(runByre(a, ['forget', '-y']));
      expect(objectsOf(flavor, id)).toEqual([]);
      expect(existsSync(path.join(a.home, 'projects', id))).toBe(false);
      expect(existsSync(a.dir)).toBe(true);
    },
  );

  asRoot('rehome carries a volume to the moved directory’s new id', () => {
    const a = project('before');
    const oldId = configure(a, STATE);
    ids.push(oldId);
    ok(session(a, 'echo travelled > /home/dev/state/f'));

    const movedDir = path.join(a.root, 'after');
    renameSync(a.dir, movedDir);
    const newId = projectIdFor(movedDir);
    const moved: TestProject = {
      ...a,
      dir: movedDir,
      id: newId,
      store: path.join(a.home, 'projects', newId),
    };
    ids.push(newId);

    const listed = ok(runByre(moved, ['rehome']));
    expect(listed.stdout).toContain(oldId);
    expect(listed.stdout).toContain(a.dir);

    ok(runByre(moved, ['rehome', oldId]));
    expect(objectsOf(flavor, oldId)).toEqual([]);
    expect(existsSync(path.join(a.home, 'projects', oldId))).toBe(false);
    expect(volumeExists(flavor, `byre-${newId}-state`)).toBe(true);

    expect(ok(session(moved, 'cat /home/dev/state/f')).stdout).toContain('travelled');
  });

  asRoot('shell with no session errors clearly', () => {
    const a = project();
    const r = runByre(a, ['shell']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no session is running for this directory');
    expect(r.stderr).toContain('byre develop');
  });
});
