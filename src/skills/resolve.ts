// Which skills a config enables, looked up in a catalog: the config's
// `skills` in cascade order, plus the selected agent (appended when missing,
// since choosing an agent enables it). Pure over the injected catalog.

import { RETIRED_BUNDLED, type RetiredBundled } from '../config/grammar.js';
import type { PathSegment } from '../config/locate.js';
import type { RawLayer } from '../config/schema.js';
import { findHint, installHint, tombstoneInstall } from '../config/source-hint.js';
import { nearestName } from '../config/suggest.js';
import type { ValueLocation } from '../config/check-effective.js';
import type { EffectiveConfig, Sourced } from '../config/types.js';
import { ConfigError, type Location } from '../errors.js';
import { assertSkillSet } from './set-rules.js';
import type { ResolvedSkill } from './types.js';

export interface SkillCatalog {
  /** Resolve a reference as written (`claude`, `byre/claude`, `owner/name`); null when unknown. */
  lookup(reference: string): ResolvedSkill | null;
  /** Every id the catalog can resolve, for the remedy text. */
  ids(): string[];
}

/** Without the file texts (config/read.ts's locator has them): the file and key only. */
const KEY_ONLY: ValueLocation = (from, path) => {
  const key = path({})[0];
  return {
    file: from.path ?? `(${from.kind} layer ${from.name})`,
    ...(typeof key === 'string' ? { key } : {}),
  };
};

const BUNDLED_PREFIX = 'byre/';

/** The ids a reference may be hinted under: as written, and bare or prefixed for a bundled name. */
function hintIds(reference: string): string[] {
  if (reference.startsWith(BUNDLED_PREFIX))
    return [reference, reference.slice(BUNDLED_PREFIX.length)];
  return reference.includes('/') ? [reference] : [reference, `${BUNDLED_PREFIX}${reference}`];
}

/** A located refusal: rendered with its file, line, column, key and rule id. */
function located(rule: string, message: string, location: Location, fix: string): ConfigError {
  return new ConfigError([{ rule, message, location, fix }]);
}

/**
 * A retired bundled name: its tombstone's story and pinned install, never a
 * bare not-found. A `[sources]` hint naming another copy (a mirror) is shown
 * beside the pin, never instead of it.
 */
function retired(
  reference: string,
  tomb: RetiredBundled,
  location: Location,
  config: EffectiveConfig,
): ConfigError {
  const hint = findHint(config.sources, [...hintIds(reference), tomb.successor]);
  const other =
    hint === null || (hint.value.uri === tomb.uri && hint.value.digest === tomb.digest)
      ? ''
      : `; [sources] names another copy: ${installHint('skill', hint)}`;
  return located(
    'skills.retired',
    `skill "${reference}" is no longer bundled with byre: it was ${tomb.fate}, and lives on as ${tomb.successor}`,
    location,
    `install it: ${tombstoneInstall(tomb)}, then write "${tomb.successor}" in place of "${reference}"${other}`,
  );
}

function notFound(
  reference: string,
  location: Location,
  config: EffectiveConfig,
  catalog: SkillCatalog,
): ConfigError {
  const bare = reference.startsWith(BUNDLED_PREFIX)
    ? reference.slice(BUNDLED_PREFIX.length)
    : reference;
  const tomb = RETIRED_BUNDLED[bare];
  if (tomb !== undefined) return retired(reference, tomb, location, config);
  const hint = findHint(config.sources, hintIds(reference));
  const install = hint === null ? null : installHint('skill', hint);
  if (install !== null) {
    return located(
      'skills.not-found',
      `skill "${reference}" is not installed`,
      location,
      `install it: ${install}`,
    );
  }
  const known = catalog.ids();
  const typo = misspeltSkill(reference, known);
  return located(
    'skills.not-found',
    typo === null
      ? `skill "${reference}" is not available`
      : `skill "${reference}" is not available — did you mean ${typo}?`,
    location,
    known.length === 0
      ? 'no skills are installed or bundled in this byre yet; remove the entry'
      : `${typo === null ? '' : `write "${typo}", or `}known skills: ${known.join(', ')}; fix the name, install it, or remove the entry`,
  );
}

/**
 * The known skill `reference` is a typo of, spelt as the user spells it (a
 * bundled skill bare when written bare), as unknown keys get one; null when
 * none is close.
 */
function misspeltSkill(reference: string, ids: readonly string[]): string | null {
  const bare = !reference.includes('/');
  const spelt = ids.map((id) =>
    bare && id.startsWith(BUNDLED_PREFIX) ? id.slice(BUNDLED_PREFIX.length) : id,
  );
  return nearestName(reference, spelt);
}

/** The position of `value` in a layer's `skills` (the last one: a later entry is the one that counts). */
function skillsEntry(value: string): (raw: RawLayer) => PathSegment[] {
  return (raw) => {
    let index = -1;
    (raw.skills ?? []).forEach((entry, i) => {
      if (entry === value) index = i;
    });
    return index < 0 ? ['skills'] : ['skills', index];
  };
}

/**
 * The enabled skills in enable order, each resolved once. `locate` places
 * an error at the `skills` entry or `agent` that caused it.
 */
export function resolveEnabledSkills(
  config: EffectiveConfig,
  catalog: SkillCatalog,
  locate: ValueLocation = KEY_ONLY,
): ResolvedSkill[] {
  const out: ResolvedSkill[] = [];
  const seen = new Set<string>();
  const add = (reference: string, location: () => Location): ResolvedSkill => {
    const skill = catalog.lookup(reference);
    if (skill === null) throw notFound(reference, location(), config, catalog);
    if (!seen.has(skill.id)) {
      seen.add(skill.id);
      out.push(skill);
    }
    return skill;
  };
  for (const entry of config.skills) {
    add(entry.value, () => locate(entry.from, skillsEntry(entry.value)));
  }
  const agentRef: Sourced<string> | null = config.agent;
  if (agentRef !== null) {
    const agentAt = (): Location => locate(agentRef.from, () => ['agent']);
    const agent = add(agentRef.value, agentAt);
    if (agent.agent === null) {
      throw located(
        'agent.not-an-agent',
        `agent "${agentRef.value}" names skill ${agent.id}, which has no [agent] command`,
        agentAt(),
        'choose an agent skill (claude, codex, gemini, grok, opencode), or set agent = "none"',
      );
    }
  }
  assertSkillSet(out, config);
  return out;
}
