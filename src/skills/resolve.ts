// Which skills a config enables, looked up in a catalog: the config's
// `skills` in cascade order, plus the selected agent (appended when missing,
// since choosing an agent enables it). Pure over the injected catalog.

import type { EffectiveConfig, Sourced } from '../config/types.js';
import { ByreError, type Location } from '../errors.js';
import { assertSkillSet } from './set-rules.js';
import type { ResolvedSkill } from './types.js';

export interface SkillCatalog {
  /** Resolve a reference as written (`claude`, `byre/claude`, `owner/name`); null when unknown. */
  lookup(reference: string): ResolvedSkill | null;
  /** Every id the catalog can resolve, for the remedy text. */
  ids(): string[];
}

/** A catalog with nothing in it. */
export const EMPTY_CATALOG: SkillCatalog = { lookup: () => null, ids: () => [] };

function locate(entry: Sourced<unknown>, key: string): Location {
  return { file: entry.from.path ?? `(${entry.from.kind} layer ${entry.from.name})`, key };
}

function notFound(
  reference: string,
  entry: Sourced<unknown>,
  key: string,
  catalog: SkillCatalog,
): ByreError {
  const known = catalog.ids();
  return new ByreError(`skill "${reference}" is not available`, {
    rule: 'skills.not-found',
    location: locate(entry, key),
    remedy:
      known.length === 0
        ? 'no skills are installed or bundled in this byre yet; remove the entry'
        : `known skills: ${known.join(', ')}; fix the name or remove the entry`,
  });
}

/** The enabled skills in enable order, each resolved once. */
export function resolveEnabledSkills(
  config: EffectiveConfig,
  catalog: SkillCatalog,
): ResolvedSkill[] {
  const out: ResolvedSkill[] = [];
  const seen = new Set<string>();
  const add = (reference: string, entry: Sourced<unknown>, key: string): ResolvedSkill => {
    const skill = catalog.lookup(reference);
    if (skill === null) throw notFound(reference, entry, key, catalog);
    if (!seen.has(skill.id)) {
      seen.add(skill.id);
      out.push(skill);
    }
    return skill;
  };
  for (const entry of config.skills) add(entry.value, entry, 'skills');
  if (config.agent !== null) {
    const agent = add(config.agent.value, config.agent, 'agent');
    if (agent.agent === null) {
      throw new ByreError(
        `agent "${config.agent.value}": skill ${agent.id} has no [agent] command`,
        {
          rule: 'agent.not-an-agent',
          location: locate(config.agent, 'agent'),
          remedy: 'choose an agent skill, or set agent = "none"',
        },
      );
    }
  }
  assertSkillSet(out, config);
  return out;
}
