// Seeding a fresh state volume from a host directory: the helper proves its
// bind first (adr/0045), and a seed that cannot be proven or is gone removes
// the volume again, so the next launch retries from clean.

import { mkdirSync, renameSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { FakeEngine, runExited } from '../../test/support/fake-engine.js';
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
    await seedFreshVolumes(engine, [VOLUME], new Set([VOLUME.name]), ctx(false));
    const argv = engine.callsTo('run')[0]?.[0] as string[];
    expect(argv.at(-1)).toBe('cp -a /src/. /dest/ && chown -R 1000:1000 /dest');
    expect(argv.some((a) => a.startsWith('BYRE_BIND_PROOF='))).toBe(false);
  });
});
