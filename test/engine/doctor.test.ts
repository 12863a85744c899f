// byre doctor on real engines, through the built binary. Every flavour: the
// report names the engine as it is (rootful, or rootless with keep-id), says
// byre is usable, and an unpullable base fails with a located line. Root
// docker and podman: each leftover kind is planted for each reason (a volume
// and an image made by byre develop, and a stopped box, for a project whose
// directory is then removed; a stopped and a running box, a volume and an
// image of a project whose store is gone), next to
// objects prune must never touch (a live project's volume, another store's,
// an unlabelled byre one, and plain engine objects), and prune removes
// exactly the leftovers that are not running.

import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';
import { storeTag } from '../../src/project/store-layout.js';
import { flavorsUnderTest, type Flavor } from './engines.js';
import { engineCli, runByre, testScope, type TestProject } from './harness.js';

const flavors = flavorsUnderTest();
const rootFlavors = flavors.filter((f) => f.user === null);
const scope = testScope();

interface DoctorData {
  usable: boolean;
  checks: { id: string; verdict: string; found: string; fix: string | null }[];
  leftovers: {
    engine: string;
    kind: string;
    id: string;
    project: string;
    reason: string;
    running: boolean;
  }[];
  left_alone: { other_store: number; unattributed: number };
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

describe.skipIf(flavors.length === 0).each(flavors)('byre doctor on $label', (flavor) => {
  it('reports the engine as it is and byre as usable', () => {
    const project = scope.project(flavor);
    const r = runByre(project, ['doctor']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const engineLine = r.stdout.split('\n').find((l) => l.includes(`  ${flavor.engine} `)) ?? '';
    const rootlessPodman = flavor.user !== null && flavor.engine === 'podman';
    expect(engineLine).toMatch(
      rootlessPodman ? /^ok .*answering, rootless, keep-id supported/ : /^ok .*answering, rootful/,
    );
    expect(r.stdout).toMatch(
      new RegExp(`^ok +engine here +${flavor.engine} \\(engine = "${flavor.engine}"\\)`, 'm'),
    );
    expect(r.stdout).toMatch(new RegExp(`^ok +disk \\(${flavor.engine}\\) +[\\d.]+ GiB free`, 'm'));
    expect(r.stdout).toMatch(/^ok +base image +debian:bookworm is present/m);
    expect(r.stdout).toMatch(/^byre is usable here/m);
  });

  // The same check and message whoever asks the engine: root's flavours prove it.
  it.runIf(flavor.user === null)(
    'fails on a base image that is neither here nor pullable, naming it and the fix',
    () => {
      const project = scope.project(flavor);
      // Port 1 on loopback refuses at once: no registry is ever contacted.
      project.writeConfig('base = "localhost:1/byretest-nope:1"\n');
      const r = runByre(project, ['doctor', '--data']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('byre: byre is not usable here: base image failed');
      const data = JSON.parse(r.stdout) as DoctorData;
      expect(data.usable).toBe(false);
      const base = data.checks.find((c) => c.id === 'base.image');
      expect(base).toMatchObject({ verdict: 'fail' });
      expect(base?.found).toContain(
        `localhost:1/byretest-nope:1 is not on ${flavor.engine} and cannot be pulled`,
      );
      expect(base?.fix).toContain('base = ');
    },
  );
});

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)(
  'byre doctor --prune on $label',
  (flavor: Flavor) => {
    const extra: { kind: 'container' | 'volume' | 'image'; id: string }[] = [];
    const cli = (p: TestProject, args: string[]): string => engineCli(p, args).trim();

    afterEach(() => {
      const p = { flavor } as TestProject;
      for (const o of extra.splice(0)) {
        try {
          if (o.kind === 'container') cli(p, ['rm', '-f', o.id]);
          else if (o.kind === 'volume') cli(p, ['volume', 'rm', '-f', o.id]);
          else cli(p, ['rmi', '-f', o.id]);
        } catch {
          // Pruned, as it should be.
        }
      }
    });

    it('removes exactly the leftovers: a moved and a forgotten project’s stopped box, volume and image', () => {
      const alive = scope.project(flavor, 'alive');
      // A project byre knows: its store records its (existing) directory, as develop does.
      mkdirSync(alive.store, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(alive.store, 'path'), `${alive.dir}\n`);
      const tag = storeTag(alive.home);
      const suffix = randomBytes(3).toString('hex');
      const mine = (id: string): string[] => [
        '--label',
        `byre.project=${id}`,
        '--label',
        `byre.store=${tag}`,
        '--label',
        'byre.test=1',
      ];
      const plant = (kind: 'container' | 'volume', args: string[]): string => {
        const id = cli(alive, args).split('\n').pop() ?? '';
        extra.push({ kind, id });
        return id;
      };

      // Moved: byre develop makes its image and state volume, then the directory goes.
      const movedDir = path.join(alive.root, 'moved');
      mkdirSync(movedDir);
      const movedId = projectIdFor(movedDir);
      const moved: TestProject = {
        ...alive,
        dir: movedDir,
        id: movedId,
        store: path.join(alive.home, 'projects', movedId),
      };
      // writeConfig writes to the project it was made for; this one shares alive's store.
      mkdirSync(moved.store, { recursive: true, mode: 0o700 });
      writeFileSync(
        path.join(moved.store, 'byre.config'),
        'template = "none"\nagent = "none"\n[[volumes]]\nname = "state"\nrole = "state"\ntarget = "/home/dev/state"\n',
      );
      const session = runByre(moved, ['develop'], { input: 'exit\n' });
      expect(session.status, session.stderr).toBe(0);
      // The box image and the base image under it (adr/0073).
      const movedImages = lines(
        cli(alive, ['images', '-q', '--no-trunc', '--filter', `label=byre.project=${movedId}`]),
      );
      expect(movedImages).toHaveLength(2);
      for (const id of movedImages) {
        expect(id).toMatch(/^(sha256:)?[0-9a-f]{64}$/);
        extra.push({ kind: 'image', id });
      }
      extra.push({ kind: 'volume', id: `byre-${movedId}-state` });
      rmSync(movedDir, { recursive: true });
      const movedBox = plant('container', ['create', ...mine(movedId), 'debian:bookworm', 'true']);

      // Forgotten: no store at all.
      const gone = `byretest-gone-${suffix}`;
      const goneVolume = plant('volume', ['volume', 'create', ...mine(gone), `byre-${gone}-cache`]);
      const stoppedBox = plant('container', ['create', ...mine(gone), 'debian:bookworm', 'true']);
      const runningBox = plant('container', [
        'run',
        '-d',
        ...mine(gone),
        'debian:bookworm',
        'sleep',
        '600',
      ]);
      writeFileSync(path.join(alive.root, 'Dockerfile.gone'), 'FROM debian:bookworm\n');
      const goneImage = cli(alive, [
        'build',
        '-q',
        ...mine(gone),
        '-t',
        `byretest-gone-${suffix}:1`,
        '-f',
        path.join(alive.root, 'Dockerfile.gone'),
        alive.root,
      ])
        .split('\n')
        .pop()
        ?.replace(/^sha256:/, '');
      expect(goneImage).toMatch(/^[0-9a-f]{64}$/);
      extra.push({ kind: 'image', id: `byretest-gone-${suffix}:1` });

      // Never to be touched.
      const aliveVolume = plant('volume', [
        'volume',
        'create',
        ...mine(alive.id),
        `byre-${alive.id}-state`,
      ]);
      const otherStore = plant('volume', [
        'volume',
        'create',
        '--label',
        `byre.project=${gone}`,
        '--label',
        'byre.store=ffffffffffffffff',
        '--label',
        'byre.test=1',
        `byre-${gone}-theirs`,
      ]);
      const unlabelled = plant('volume', [
        'volume',
        'create',
        '--label',
        `byre.project=${gone}`,
        '--label',
        'byre.test=1',
        `byre-${gone}-old`,
      ]);
      const plainVolume = plant('volume', [
        'volume',
        'create',
        '--label',
        'byre.test=1',
        `byretest-plain-${suffix}`,
      ]);
      const plainBox = plant('container', [
        'create',
        '--label',
        'byre.test=1',
        'debian:bookworm',
        'true',
      ]);

      const report = runByre(alive, ['doctor', '--data']);
      const data = JSON.parse(report.stdout) as DoctorData;
      const ours = data.leftovers.filter((l) => l.project === movedId || l.project === gone);
      expect(ours.map((l) => `${l.kind} ${l.reason}${l.running ? ' running' : ''}`).sort()).toEqual(
        [
          'container path_gone',
          'container store_gone',
          'container store_gone running',
          // The moved project's box image and the base image under it (adr/0073).
          'image path_gone',
          'image path_gone',
          'image store_gone',
          'volume path_gone',
          'volume store_gone',
        ],
      );
      expect(data.left_alone.other_store).toBeGreaterThanOrEqual(1);
      expect(data.left_alone.unattributed).toBeGreaterThanOrEqual(1);
      expect(data.checks.find((c) => c.id === 'leftovers')?.fix).toContain('byre doctor --prune');

      const refused = runByre(alive, ['doctor', '--prune']);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('--yes');
      expect(lines(cli(alive, ['volume', 'ls', '-q']))).toContain(goneVolume);

      const pruned = runByre(alive, ['doctor', '--prune', '--yes']);
      expect(pruned.status, pruned.stderr).toBe(0);
      expect(pruned.stderr).toContain(`removed ${flavor.engine} volume byre-${movedId}-state`);

      const volumes = lines(cli(alive, ['volume', 'ls', '-q']));
      const containers = lines(cli(alive, ['ps', '-aq', '--no-trunc']));
      const here = (id: string): boolean => containers.includes(id);
      const images = lines(cli(alive, ['images', '-q', '--no-trunc'])).map((i) =>
        i.replace(/^sha256:/, ''),
      );
      expect(volumes).not.toContain(goneVolume);
      expect(volumes).not.toContain(`byre-${movedId}-state`);
      expect(here(stoppedBox)).toBe(false);
      expect(here(movedBox)).toBe(false);
      for (const id of movedImages) expect(images).not.toContain(id.replace(/^sha256:/, ''));
      expect(images).not.toContain(goneImage);
      for (const v of [aliveVolume, otherStore, unlabelled, plainVolume])
        expect(volumes).toContain(v);
      for (const c of [runningBox, plainBox]) expect(here(c)).toBe(true);
      expect(
        lines(cli(alive, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).some((r) =>
          r.endsWith('debian:bookworm'),
        ),
      ).toBe(true);
    });
  },
);
