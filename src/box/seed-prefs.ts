// seed_prefs (ADR 0028): copy the agent's curated, non-secret preferences (its skill's
// `[agent.prefs]`: a host directory and the files in it worth carrying) into
// its state volume once, when that volume is fresh. Only the listed entries
// that exist as a plain file or directory (never a link) are bound into the
// helper, each read-only on its own, so nothing else in the directory (a
// login token beside the prefs) reaches the helper. A copy: nothing flows back.

import { lstatSync } from 'node:fs';
import path from 'node:path';

import type { EffectiveConfig } from '../config/types.js';
import { CONTROL, isContainedRelative } from '../config/grammar.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import type { Engine } from '../engine/engine.js';
import { expandHost } from '../engine/run-argv.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { PlannedVolume, SeedContext } from './volumes.js';

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

/** What a host entry is, without following a link. */
export type EntryKind = 'file' | 'dir' | 'link' | 'other' | 'missing';

function hostEntryKind(p: string): EntryKind {
  try {
    const s = lstatSync(p);
    if (s.isSymbolicLink()) return 'link';
    if (s.isFile()) return 'file';
    if (s.isDirectory()) return 'dir';
    return 'other';
  } catch {
    return 'missing';
  }
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
  kind: (p: string) => EntryKind = hostEntryKind,
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

/** The helper argv that copies the entries into the volume (pure). */
export function seedPrefsArgv(seed: PrefsSeed, ctx: SeedContext): string[] {
  const owner = `${ctx.uid}:${ctx.gid}`;
  return [
    ...rootShellHelperArgv(ctx.keepId),
    '--mount',
    `type=volume,source=${seed.volume},target=/dest`,
    ...seed.entries.flatMap((e, i) => [
      '--mount',
      `type=bind,source=${e.host},target=/src/${i},readonly`,
    ]),
    ctx.image,
    '-c',
    `set -e; i=0; for rel in "$@"; do mkdir -p "/dest/$(dirname "$rel")"; cp -a "/src/$i" "/dest/$rel"; i=$((i+1)); done; chown -R ${owner} /dest`,
    'byre-seed-prefs',
    ...seed.entries.map((e) => e.rel),
  ];
}

/** Copies the prefs when the state volume was created by this launch; returns what was copied. */
export async function seedAgentPrefs(
  engine: Engine,
  seed: PrefsSeed | null,
  created: ReadonlySet<string>,
  ctx: SeedContext,
): Promise<PrefsSeed | null> {
  if (seed === null || !created.has(seed.volume) || seed.entries.length === 0) return null;
  await engine.run(seedPrefsArgv(seed, ctx));
  return seed;
}
