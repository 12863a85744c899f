// Named volumes for a launch: create the missing ones (labelled with their
// project), and seed a FRESH state volume from its `seed` exactly once. A seed
// that fails removes the volume again, so the next launch retries from clean
// rather than trusting a half-filled one.

import type { VolumeSpec } from '../config/types.js';
import { ByreError, EngineError } from '../errors.js';
import { BIND_PROOF_EXIT, bindProofEnvArgs, provenScript } from '../gen/bind-proof.js';
import {
  bindProofRefusal,
  provenBinds,
  type BindPins,
  type SourcedBind,
} from '../containment/bind-pins.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import { LABEL } from '../gen/names.js';
import { expandHost } from '../gen/run-argv.js';
import type { SessionRunner, VolumeRunner } from '../engine/engine.js';

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
  /** Pinned bind sources, proven in each helper before it copies (adr/0045); null: no proof. */
  pins?: BindPins | null;
}

/** Which project and store a volume belongs to (the store: adr/0015). */
interface VolumeOwner {
  projectId: string;
  storeTag: string;
}

/** Labels on a volume byre creates: project volumes name their project and store. */
function volumeLabels(owner: VolumeOwner, decl: VolumeSpec): Record<string, string> {
  return decl.scope === 'machine'
    ? { 'byre.machine': '1' }
    : { [LABEL.project]: owner.projectId, [LABEL.store]: owner.storeTag };
}

function hostSeedBind(host: string, volume: string, home: string): SourcedBind {
  return {
    source: expandHost(host, home),
    target: '/src',
    label: `the seed ${host} of volume ${volume}`,
  };
}

/** A host seed's bind into its helper, or null for a literal seed. */
function seedBind(decl: VolumeSpec, home: string): SourcedBind | null {
  const seed = decl.seed;
  return seed !== undefined && 'host' in seed ? hostSeedBind(seed.host, decl.name, home) : null;
}

/** The helper argv that seeds a volume (pure, but for pinning a seed the containment check did not). */
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
    const bind = hostSeedBind(seed.host, decl.name, ctx.home);
    const pins = ctx.pins ?? null;
    const proof = pins === null ? null : provenBinds([bind], pins);
    return {
      argv: [
        ...head(false),
        ...bindProofEnvArgs(proof),
        ...dest,
        '--mount',
        `type=bind,source=${bind.source},target=${bind.target},readonly`,
        ctx.image,
        '-c',
        provenScript(`cp -a /src/. /dest/ && chown -R ${owner} /dest`, proof),
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
  engine: VolumeRunner,
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
  engine: SessionRunner & VolumeRunner,
  volumes: readonly PlannedVolume[],
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<string[]> {
  const seeded: string[] = [];
  for (const v of volumes) {
    if (!created.has(v.name) || v.decl.seed === undefined || v.decl.role !== 'state') continue;
    try {
      const { argv, input } = seedArgv(v.name, v.decl, ctx);
      await engine.run(argv, input === undefined ? {} : { input });
    } catch (error) {
      await engine.volumeRemove(v.name).catch(() => false);
      // A seed source that is gone or unpinnable says so itself.
      if (error instanceof ByreError && !(error instanceof EngineError)) throw error;
      const bind = seedBind(v.decl, ctx.home);
      const pins = ctx.pins ?? null;
      if (
        bind !== null &&
        pins !== null &&
        error instanceof EngineError &&
        error.engineExitCode === BIND_PROOF_EXIT
      ) {
        throw bindProofRefusal(`seeding volume ${v.decl.name}`, [bind], provenBinds([bind], pins));
      }
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
