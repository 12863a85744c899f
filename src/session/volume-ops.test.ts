// Seeding a fresh state volume from a host directory: the helper proves its
// bind first (adr/0045), and a seed that cannot be proven or is gone removes
// the volume again, so the next launch retries from clean.

import { mkdirSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { FakeEngine, runExited } from '../../test/support/fake-engine.js';
import { loadHostTree } from '../../test/support/host-tree.js';
import { useTempDir } from '../../test/support/temp.js';
import type { VolumeSpec } from '../config/types.js';
import { provenScript } from '../gen/bind-proof.js';
import { pinSources } from '../containment/bind-pins.js';
import { seedFreshVolumes, type PlannedVolume, type SeedContext } from './volume-ops.js';

/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);

const tmp = useTempDir('volumes');

const SEEDED: VolumeSpec = {
  name: 'cfg',
  role: 'state',
  target: '/home/dev/cfg',
  scope: 'project',
  sharing: 'shared',
  seed: { host: '~/p/seed' },
};
const VOLUME: PlannedVolume = { name: 'byre-app-1a2b3c-cfg', decl: SEEDED };

function ctx(pinned: boolean): SeedContext {
  const seed = path.join(tmp.path, 'p', 'seed');
  return {
    image: 'img',
    uid: 1000,
    gid: 1000,
    keepId: false,
    home: tmp.path,
    pins: pinned ? pinSources([seed]) : null,
  };
}

describe('seedFreshVolumes', () => {
  it('proves the seed bind in the helper before it copies', async () => {
    const seed = path.join(tmp.path, 'p', 'seed');
    mkdirSync(seed, { recursive: true });
    const engine = new FakeEngine();
    loadHostTree(engine.host, seed);
    await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), ctx(true));
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    const st = statSync(seed, { bigint: true });
    expect(argv).toContain(`BYRE_BIND_PROOF=${st.dev}:${st.ino}:/src`);
    expect(argv).toContain(`type=bind,source=${seed},target=/src,readonly`);
    expect(argv.at(-1)).toBe(`${BIND_PROOF_SH}cp -a /src/. /dest/ && chown -R 1000:1000 /dest`);
  });

  it('bind.changed: a seed swapped after the pin removes the volume and refuses', async () => {
    const seed = path.join(tmp.path, 'p', 'seed');
    mkdirSync(seed, { recursive: true });
    const seeding = ctx(true);
    renameSync(seed, `${seed}.real`);
    symlinkSync(tmp.path, seed);
    const engine = new FakeEngine();
    engine.failNext('run', runExited(222));
    const failure = await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), seeding).catch(
      (e: unknown) => e,
    );
    expect(failure).toMatchObject({ rule: 'bind.changed', exitCode: 3 });
    expect(engine.callsTo('volumeRemove')).toEqual([[VOLUME.name]]);
  });

  it('bind.source-missing: a seed host that is gone removes the volume and says so', async () => {
    const engine = new FakeEngine();
    const failure = await seedFreshVolumes(
      engine,
      [VOLUME],
      new Set([VOLUME.name]),
      ctx(true),
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ rule: 'bind.source-missing' });
    expect(engine.callsTo('run')).toEqual([]);
    expect(engine.callsTo('volumeRemove')).toEqual([[VOLUME.name]]);
  });

  it('without a proof (an engine elsewhere), runs the plain copy', async () => {
    const engine = new FakeEngine();
    engine.host.mkdirp(path.join(tmp.path, 'p', 'seed'));
    await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), ctx(false));
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    expect(argv.at(-1)).toBe('cp -a /src/. /dest/ && chown -R 1000:1000 /dest');
    expect(argv.some((a) => a.startsWith('BYRE_BIND_PROOF='))).toBe(false);
  });

  it("the fresh volume holds the seed directory's tree, links kept as links", async () => {
    const seed = path.join(tmp.path, 'p', 'seed');
    const engine = new FakeEngine();
    engine.host.mkdirp(path.join(seed, 'conf'));
    engine.host.writeFile(path.join(seed, 'conf', 'settings.json'), '{"a":1}');
    engine.host.nodes.set(path.join(seed, 'current'), { kind: 'link', target: 'conf' });
    expect(await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), ctx(false))).toEqual([
      VOLUME.name,
    ]);
    const held = engine.volumeData.get(VOLUME.name);
    expect([...(held?.keys() ?? [])].sort()).toEqual(['conf', 'conf/settings.json', 'current']);
    expect(held?.get('conf/settings.json')).toEqual({
      kind: 'file',
      bytes: Buffer.from('{"a":1}'),
    });
    expect(held?.get('current')).toEqual({ kind: 'link', target: 'conf' });
  });

  it('with the proof, copies the seed pinned on the host; one the engine cannot bind removes the volume', async () => {
    const seed = path.join(tmp.path, 'p', 'seed');
    mkdirSync(seed, { recursive: true });
    writeFileSync(path.join(seed, 'init.sql'), 'create table t;\n');
    const engine = new FakeEngine();
    loadHostTree(engine.host, seed);
    await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), ctx(true));
    expect(engine.volumeData.get(VOLUME.name)?.get('init.sql')).toEqual({
      kind: 'file',
      bytes: Buffer.from('create table t;\n'),
    });

    // The engine's host lacks the seed (a remote daemon, a path not shared into its VM).
    const elsewhere = new FakeEngine({ name: 'podman' });
    const failure = await seedFreshVolumes(
      elsewhere,
      [VOLUME],
      new Set([VOLUME.name]),
      ctx(true),
    ).catch((e: unknown) => e);
    expect(failure).toMatchObject({ rule: 'volume.seed-failed' });
    expect((failure as { cause?: { stderr?: string } }).cause?.stderr).toBe(
      `Error: statfs ${seed}: no such file or directory\n`,
    );
    expect(elsewhere.callsTo('volumeRemove')).toEqual([[VOLUME.name]]);
  });
});
