// The volumes and seed steps: the box's volumes named, created when absent,
// and a fresh state volume seeded once, from its declaration (seed) and
// from the agent's curated prefs (seed_prefs; a nicety, so its failure is a
// warning and the box still launches, unseeded).

import type { Io } from '../io.js';
import type { BindPins } from '../containment/bind-pins.js';
import { planPrefsSeed, seedAgentPrefs, type PrefsSeed } from './seed-prefs.js';
import {
  ensureVolumes,
  seedFreshVolumes,
  type PlannedVolume,
  type SeedContext,
} from './volume-ops.js';
import type { EffectiveConfig } from '../config/types.js';
import type { Engine } from '../engine/engine.js';
import { volumeEngineName } from '../gen/names.js';
import { say } from '../output/notes.js';
import { storeTag } from '../project/store-layout.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { SessionContext } from './context.js';
import type { ProjectImage } from './image.js';

/** The config's volumes, then each skill's, by their engine names. */
export function plannedVolumes(
  projectId: string,
  hostUid: number,
  loaded: { config: EffectiveConfig; skills: readonly ResolvedSkill[] },
): PlannedVolume[] {
  return [
    ...loaded.config.volumes.map((v) => v.value),
    ...loaded.skills.flatMap((s) => s.volumes),
  ].map((decl) => ({ name: volumeEngineName(projectId, hostUid, decl), decl }));
}

/** Create the absent volumes and seed the fresh ones; after the image (the seeders run in it). */
export async function fillVolumes(
  s: Pick<SessionContext, 'io' | 'ctx' | 'home' | 'engine'>,
  loaded: { config: EffectiveConfig; skills: readonly ResolvedSkill[]; pins: BindPins | null },
  volumes: readonly PlannedVolume[],
  image: ProjectImage,
): Promise<void> {
  const { ctx, engine } = s;
  const owner = { projectId: ctx.projectId, storeTag: storeTag(ctx.store.home) };
  const created = await ensureVolumes(engine, owner, volumes);
  const seedCtx: SeedContext = {
    image: image.tag,
    uid: image.uid,
    gid: image.gid,
    keepId: engine.facts.keepId,
    home: s.home,
    pins: loaded.pins,
  };
  await seedFreshVolumes(engine, volumes, created, seedCtx);
  const prefs = planPrefsSeed(loaded.config, loaded.skills, volumes, s.home);
  await seedPrefsOnce(s.io, engine, prefs, created, seedCtx);
}

/** seed_prefs: the agent's curated prefs into its fresh state volume, once. */
async function seedPrefsOnce(
  io: Io,
  engine: Engine,
  seed: PrefsSeed | null,
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<void> {
  try {
    const done = await seedAgentPrefs(engine, seed, created, ctx);
    if (done === null) return;
    say(
      io.stderr,
      `seeded ${done.skill}'s prefs into its fresh state volume: ${done.entries.map((e) => e.rel).join(', ')} (from ${done.from}; seed_prefs)`,
    );
    for (const skipped of done.skipped) {
      say(io.stderr, `seed_prefs left out ${skipped.rel}: ${skipped.why}`, 'note');
    }
  } catch (error) {
    say(
      io.stderr,
      `seed_prefs: copying ${seed?.skill ?? 'the agent'}'s prefs failed; the box starts without them (${error instanceof Error ? error.message : String(error)})`,
      'warning',
    );
  }
}
