// Named volumes for a launch: create the missing ones (labelled with their
// project), and seed a FRESH state volume from its `seed` exactly once. A seed
// that fails removes the volume again, so the next launch retries from clean
// rather than trusting a half-filled one.

import type { VolumeSpec } from '../config/types.js';
import { ByreError } from '../errors.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import { LABEL } from '../engine/names.js';
import { expandHost } from '../engine/run-argv.js';
import type { Engine } from '../engine/engine.js';

export interface PlannedVolume {
  /** Engine-side name. */
  name: string;
  decl: VolumeSpec;
}

export interface SeedContext {
  image: string;
  uid: number;
  gid: number;
  keepId: boolean;
  home: string;
}

/** Which project and store a volume belongs to (the store: adr/0015). */
export interface VolumeOwner {
  projectId: string;
  storeTag: string;
}

/** Labels on a volume byre creates: project volumes name their project and store. */
function volumeLabels(owner: VolumeOwner, decl: VolumeSpec): Record<string, string> {
  return decl.scope === 'machine'
    ? { 'byre.machine': '1' }
    : { [LABEL.project]: owner.projectId, [LABEL.store]: owner.storeTag };
}

/** The helper argv that seeds a volume (pure). */
function seedArgv(
  volume: string,
  decl: VolumeSpec,
  ctx: SeedContext,
): { argv: string[]; input?: string } {
  const seed = decl.seed;
  if (seed === undefined) throw new TypeError(`volume ${decl.name} has no seed`);
  const owner = `${ctx.uid}:${ctx.gid}`;
  const head = (interactive: boolean): string[] => rootShellHelperArgv(ctx.keepId, interactive);
  const dest = ['--mount', `type=volume,source=${volume},target=/dest`];
  if ('host' in seed) {
    const source = expandHost(seed.host, ctx.home);
    return {
      argv: [
        ...head(false),
        ...dest,
        '--mount',
        `type=bind,source=${source},target=/src,readonly`,
        ctx.image,
        '-c',
        `cp -a /src/. /dest/ && chown -R ${owner} /dest`,
      ],
    };
  }
  return {
    argv: [
      ...head(true),
      '-e',
      `BYRE_DEST=${seed.path}`,
      ...dest,
      ctx.image,
      '-c',
      `set -e; f="/dest/$BYRE_DEST"; mkdir -p "$(dirname "$f")"; cat > "$f"; chown -R ${owner} /dest`,
    ],
    input: seed.literal,
  };
}

/** Creates missing volumes; returns the engine names created by this call. */
export async function ensureVolumes(
  engine: Engine,
  owner: VolumeOwner,
  volumes: readonly PlannedVolume[],
): Promise<Set<string>> {
  const created = new Set<string>();
  for (const v of volumes) {
    if (created.has(v.name) || (await engine.volumeExists(v.name))) continue;
    await engine.volumeCreate(v.name, volumeLabels(owner, v.decl));
    created.add(v.name);
  }
  return created;
}

/** Seeds every freshly created state volume that declares a seed. */
export async function seedFreshVolumes(
  engine: Engine,
  volumes: readonly PlannedVolume[],
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<string[]> {
  const seeded: string[] = [];
  for (const v of volumes) {
    if (!created.has(v.name) || v.decl.seed === undefined || v.decl.role !== 'state') continue;
    const { argv, input } = seedArgv(v.name, v.decl, ctx);
    try {
      await engine.run(argv, input === undefined ? {} : { input });
    } catch (error) {
      await engine.volumeRemove(v.name).catch(() => false);
      throw new ByreError(
        `seeding volume ${v.decl.name} failed; it was removed so the next launch retries`,
        {
          rule: 'volume.seed-failed',
          remedy: 'check the seed source in the config, then run byre develop again',
          cause: error,
        },
      );
    }
    seeded.push(v.name);
  }
  return seeded;
}
