// Host paths a config grants a box (mount and seed hosts, a skill's mounts,
// seeds and prefs directory), each with where it was declared, and the
// load-time refusal of one whose resolution passes through a link that lives
// in a box-writable tree (adr/0046). Every verb that loads a box's config
// refuses here, before any engine is asked; the rule is box-trees.ts's.

import path from 'node:path';

import { mountPath, type PathIn, type ValueLocation } from '../config/check-effective.js';
import { expandHostPath } from '../config/grammar.js';
import type { EffectiveConfig } from '../config/types.js';
import { RefusedError, type Location } from '../errors.js';
import { formatLocation } from '../output/render-error.js';
import { plantableLink, type BoxTree, type PlantableLink } from '../project/box-trees.js';
import type { ContainmentRefusal } from '../project/containment.js';
import type { PathWalk } from '../project/path-walk.js';
import type { ResolvedSkill } from '../skills/types.js';

/** One host path a box would be given, as declared. */
interface GrantedPath {
  /** As written (`~/p/data`). */
  declared: string;
  /** Absolute, `~` expanded. */
  host: string;
  /** How messages name the declaration: "the mount ~/p/data -> /data (rw)". */
  label: string;
  location: Location;
}

/** Where a named list entry's field sits in a layer's raw table. */
function named(
  list: 'volumes' | 'claude_skills' | 'context',
  name: string,
  ...field: string[]
): PathIn {
  return (raw) => {
    const entries: readonly { name?: string | undefined }[] = raw[list] ?? [];
    return [list, entries.findIndex((r) => r.name === name), ...field];
  };
}

function skillLocation(skill: ResolvedSkill, key: string): Location {
  const dir = skill.meta?.dir ?? null;
  return { file: dir === null ? `skill ${skill.id}` : path.join(dir, 'skill.toml'), key };
}

/**
 * Every host path the config and its skills name for a box: enabled mounts
 * (any mode), host seeds, Claude Skill directories and `[[context]]` files
 * (copied into the image), and the agent's prefs directory when seed_prefs
 * is on. Pure; `locate` places a config entry in its layer's file.
 */
export function grantedHostPaths(
  config: Pick<EffectiveConfig, 'mounts' | 'volumes' | 'seedPrefs' | 'claudeSkills' | 'context'>,
  skills: readonly ResolvedSkill[],
  home: string,
  locate: ValueLocation,
): GrantedPath[] {
  const out: GrantedPath[] = [];
  const add = (declared: string, label: string, location: Location): void => {
    const host = expandHostPath(declared, home);
    if (host !== null) out.push({ declared, host, label, location });
  };
  for (const { value: m, from } of config.mounts) {
    if (m.disabled) continue;
    add(
      m.host,
      `the mount ${m.host} -> ${m.target} (${m.mode})`,
      locate(from, mountPath(m.target, 'host')),
    );
  }
  for (const { value: v, from } of config.volumes) {
    if (v.seed === undefined || !('host' in v.seed)) continue;
    add(
      v.seed.host,
      `the seed ${v.seed.host} of volume ${v.name}`,
      locate(from, named('volumes', v.name, 'seed', 'host')),
    );
  }
  for (const { value: c, from } of config.claudeSkills) {
    add(
      c.path,
      `the Claude Skill ${c.name} (${c.path})`,
      locate(from, named('claude_skills', c.name, 'path')),
    );
  }
  for (const { value: c, from } of config.context) {
    if (!('file' in c)) continue;
    add(
      c.file,
      `the context file ${c.file} (${c.name})`,
      locate(from, named('context', c.name, 'file')),
    );
  }
  for (const skill of skills) {
    for (const m of skill.runtime.mounts) {
      if (m.disabled) continue;
      add(
        m.host,
        `${skill.id}'s mount ${m.host} -> ${m.target} (${m.mode})`,
        skillLocation(skill, 'runtime.mounts'),
      );
    }
    for (const v of skill.volumes) {
      if (v.seed === undefined || !('host' in v.seed)) continue;
      add(
        v.seed.host,
        `${skill.id}'s seed ${v.seed.host} of volume ${v.name}`,
        skillLocation(skill, 'volumes'),
      );
    }
    const prefs = skill.agent?.prefs;
    if (prefs !== undefined && config.seedPrefs?.value === true) {
      add(
        prefs.from,
        `${skill.id}'s prefs directory ${prefs.from}`,
        skillLocation(skill, 'agent.prefs.from'),
      );
    }
  }
  return out;
}

export const LINK_RULE = 'containment.link-in-box-tree';

/** A granted path and the link on its way that a box could have planted. */
export interface LinkFinding {
  granted: GrantedPath;
  planted: PlantableLink;
  /** Where the whole path resolves, for the remedy. */
  resolved: string;
}

/** Each granted path whose walk passes through a link inside a tree. Pure. */
export function plantedLinkFindings(
  granted: readonly GrantedPath[],
  walk: (host: string) => PathWalk,
  trees: readonly BoxTree[],
): LinkFinding[] {
  return granted.flatMap((g) => {
    const w = walk(g.host);
    const planted = plantableLink(w, trees);
    return planted === null ? [] : [{ granted: g, planted, resolved: w.resolved }];
  });
}

/** The one sentence for a finding (status, the editor and the refusal all say it so). */
export function linkFindingMessage(f: LinkFinding): string {
  const { link, tree } = f.planted;
  return `${f.granted.label} reaches its host path through the link ${link.at} -> ${JSON.stringify(link.target)}, which lies in ${tree.what}, where a box can write: byre does not follow a link a box could have planted`;
}

export function linkFindingRemedy(f: LinkFinding): string {
  return `if you made that link, declare where it leads (${f.resolved}) instead; if not, remove it and look at what else a box left in ${f.planted.tree.what}`;
}

/** A finding as a page's Refused row (status, like adr/0018's refusals). */
export function linkFindingRefusal(f: LinkFinding): ContainmentRefusal {
  return { rule: LINK_RULE, message: linkFindingMessage(f), remedy: linkFindingRemedy(f) };
}

/** The exit-3 refusal for a non-empty list, located at the first declaration. */
export function linkRefusal(findings: readonly LinkFinding[]): RefusedError {
  const [first, ...rest] = findings;
  if (first === undefined) throw new TypeError('linkRefusal needs a finding');
  return new RefusedError(linkFindingMessage(first), {
    rule: LINK_RULE,
    remedy: linkFindingRemedy(first),
    location: first.granted.location,
    details: rest.flatMap((f) => [
      `also: ${formatLocation(f.granted.location)}: ${linkFindingMessage(f)} [${LINK_RULE}]`,
      `  fix: ${linkFindingRemedy(f)}`,
    ]),
  });
}
