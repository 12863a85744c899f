// seed_prefs (ADR 0028): copy the agent's curated, non-secret preferences (its skill's
// `[agent.prefs]`: a host directory and the files in it worth carrying) into
// its state volume once, when that volume is fresh. Only the listed entries
// that exist as a plain file or directory (never a link) are bound into the
// helper, each read-only on its own, so nothing else in the directory (a
// login token beside the prefs) reaches the helper. A copy: nothing flows back.

import path from 'node:path';

import type { EffectiveConfig } from '../config/types.js';
import { CONTROL, isContainedRelative } from '../config/grammar.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import type { Engine } from '../engine/engine.js';
import { expandHost } from '../gen/run-argv.js';
import { entryKind, type EntryKind } from '../host/path-view.js';
import type { ResolvedSkill } from '../skills/types.js';
import { EngineError } from '../errors.js';
import {
  BIND_PROOF_EXIT,
  bindProofEnvArgs,
  provenScript,
  type ProvenBind,
} from '../gen/bind-proof.js';
import { bindProofRefusal, type SourcedBind } from '../containment/bind-pins.js';
import { pinSource } from '../host/path-pin.js';
import type { PlannedVolume, SeedContext } from './volume-ops.js';

export interface PrefsSeed {
  /** The agent skill whose prefs these are. */
  skill: string;
  /** Engine name of its state volume. */
  volume: string;
  /** The host directory, as the skill wrote it (`~/.claude`). */
  from: string;
  /** Entries to copy: the host path and where it goes in the volume. */
  entries: { host: string; rel: string }[];
  /** Listed entries left out, and why. */
  skipped: { rel: string; why: string }[];
}

/**
 * The seed for this launch, or null: seed_prefs is on, the agent skill has
 * `[agent.prefs]` and a state volume. Pure over `kind` (the host lookup).
 */
export function planPrefsSeed(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  volumes: readonly PlannedVolume[],
  home: string,
  kind: (p: string) => EntryKind = entryKind,
): PrefsSeed | null {
  if (config.seedPrefs?.value !== true || config.agent === null) return null;
  const id = config.agent.value;
  const skill = skills.find((s) => s.id === id) ?? skills.find((s) => s.id === `byre/${id}`);
  const agent = skill?.agent;
  if (skill === undefined || agent?.prefs === undefined || agent.state === null) return null;
  const volume = volumes.find(
    (v) => v.decl.name === agent.state && skill.volumes.some((d) => d.name === v.decl.name),
  );
  if (volume === undefined) return null;
  const from = expandHost(agent.prefs.from, home);
  const entries: PrefsSeed['entries'] = [];
  const skipped: PrefsSeed['skipped'] = [];
  for (const rel of agent.prefs.files) {
    const host = path.join(from, rel);
    if (!isContainedRelative(rel) || host.includes(',') || CONTROL.test(host)) {
      skipped.push({ rel, why: 'not a path byre can bind' });
      continue;
    }
    const k = kind(host);
    if (k === 'file' || k === 'dir') entries.push({ host, rel: path.posix.normalize(rel) });
    else if (k !== 'missing')
      skipped.push({ rel, why: k === 'link' ? 'a symbolic link' : 'not a file or directory' });
  }
  return { skill: skill.id, volume: volume.name, from: agent.prefs.from, entries, skipped };
}

/** Each entry's bind into the helper, in order (`/src/<i>`). */
function prefsBinds(seed: PrefsSeed): SourcedBind[] {
  return seed.entries.map((e, i) => ({
    source: e.host,
    target: `/src/${i}`,
    label: `the seed_prefs entry ${e.host}`,
  }));
}

/** The helper argv that copies the entries into the volume, proving them first when `proof` is given (pure). */
function seedPrefsArgv(
  seed: PrefsSeed,
  ctx: SeedContext,
  proof: readonly ProvenBind[] | null = null,
): string[] {
  const owner = `${ctx.uid}:${ctx.gid}`;
  return [
    ...rootShellHelperArgv(ctx.keepId),
    ...bindProofEnvArgs(proof),
    '--mount',
    `type=volume,source=${seed.volume},target=/dest`,
    ...seed.entries.flatMap((e, i) => [
      '--mount',
      `type=bind,source=${e.host},target=/src/${i},readonly`,
    ]),
    ctx.image,
    '-c',
    provenScript(
      `set -e; i=0; for rel in "$@"; do mkdir -p "/dest/$(dirname "$rel")"; cp -a "/src/$i" "/dest/$rel"; i=$((i+1)); done; chown -R ${owner} /dest`,
      proof,
    ),
    'byre-seed-prefs',
    ...seed.entries.map((e) => e.rel),
  ];
}

/**
 * The entries pinned now, as the plan chose them (no link as the last
 * component): one that has become a link or gone since is left out, and the
 * helper proves the rest (adr/0045).
 */
function pinPrefs(seed: PrefsSeed): { seed: PrefsSeed; proof: ProvenBind[] } {
  const entries: PrefsSeed['entries'] = [];
  const skipped = [...seed.skipped];
  const pins: { dev: bigint; ino: bigint }[] = [];
  for (const e of seed.entries) {
    const pinned = pinSource(e.host, { noFollow: true });
    if (pinned.kind === 'unbindable') {
      skipped.push({ rel: e.rel, why: pinned.why });
      continue;
    }
    entries.push(e);
    pins.push(pinned.pin);
  }
  const kept = { ...seed, entries, skipped };
  const proof = prefsBinds(kept).flatMap((b, i) => {
    const pin = pins[i];
    return pin === undefined ? [] : [{ target: b.target, dev: pin.dev, ino: pin.ino }];
  });
  return { seed: kept, proof };
}

/** Copies the prefs when the state volume was created by this launch; returns what was copied. */
export async function seedAgentPrefs(
  engine: Engine,
  planned: PrefsSeed | null,
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<PrefsSeed | null> {
  if (planned === null || !created.has(planned.volume) || planned.entries.length === 0) return null;
  const { seed, proof } =
    (ctx.pins ?? null) === null ? { seed: planned, proof: null } : pinPrefs(planned);
  if (seed.entries.length === 0) return seed;
  try {
    await engine.run(seedPrefsArgv(seed, ctx, proof));
  } catch (error) {
    if (
      proof !== null &&
      error instanceof EngineError &&
      error.engineExitCode === BIND_PROOF_EXIT
    ) {
      throw bindProofRefusal(`seed_prefs for ${seed.skill}`, prefsBinds(seed), proof);
    }
    throw error;
  }
  return seed;
}
