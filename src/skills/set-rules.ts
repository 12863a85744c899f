// Rules over the ENABLED set of skills, checked once the set is resolved: one
// network posture, one netns_init, no env tug-of-war, byte-identical shared
// destinations, unique MCP / Claude Skill names. Pure; every finding names both sides.

import type { EffectiveConfig } from '../config/types.js';
import { normalizeTarget } from '../config/grammar.js';
import { ByreError } from '../errors.js';
import type { ResolvedSkill } from './types.js';

interface SetFinding {
  rule: string;
  message: string;
  remedy: string;
}

const q = (s: string): string => JSON.stringify(s);

function single(
  skills: readonly ResolvedSkill[],
  pick: (s: ResolvedSkill) => string | null,
  key: string,
  rule: string,
): SetFinding[] {
  const holders = skills.filter((s) => pick(s) !== null);
  const [first, second] = holders;
  if (first === undefined || second === undefined) return [];
  return [
    {
      rule,
      message: `skills ${q(first.id)} and ${q(second.id)} both declare a ${key}; disable one`,
      remedy: `a box has one ${key}: remove one of the two skills from skills = […]`,
    },
  ];
}

function envConflicts(skills: readonly ResolvedSkill[]): SetFinding[] {
  const owner = new Map<string, { id: string; value: string }>();
  const out: SetFinding[] = [];
  for (const skill of skills) {
    for (const [key, value] of Object.entries(skill.runtime.env)) {
      const earlier = owner.get(key);
      if (earlier === undefined) owner.set(key, { id: skill.id, value });
      else if (earlier.value !== value) {
        out.push({
          rule: 'skills.env-conflict',
          message: `skills ${q(earlier.id)} and ${q(skill.id)} set ${key} to different values (${q(earlier.value)} vs ${q(value)})`,
          remedy: 'disable one of the two skills, or fork one and align the value',
        });
      }
    }
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function destinationConflicts(skills: readonly ResolvedSkill[]): SetFinding[] {
  const claims = new Map<string, { id: string; content: Uint8Array; executable: boolean }>();
  const out: SetFinding[] = [];
  for (const skill of skills) {
    for (const file of skill.build.files) {
      const dest = normalizeTarget(file.dest);
      const earlier = claims.get(dest);
      if (earlier === undefined) {
        claims.set(dest, { id: skill.id, content: file.content, executable: file.executable });
      } else if (
        earlier.id !== skill.id &&
        (!sameBytes(earlier.content, file.content) || earlier.executable !== file.executable)
      ) {
        out.push({
          rule: 'skills.destination-conflict',
          message: `skills ${q(earlier.id)} and ${q(skill.id)} both install ${dest} with different contents`,
          remedy: 'two claims on one destination must be byte-identical; disable one of the skills',
        });
      }
    }
  }
  return out;
}

function nameConflicts(
  skills: readonly ResolvedSkill[],
  configNames: readonly string[],
  closed: readonly string[],
  pick: (s: ResolvedSkill) => string[],
  what: string,
  rule: string,
): SetFinding[] {
  const owner = new Map<string, string>(configNames.map((n) => [n, 'config']));
  const out: SetFinding[] = [];
  for (const skill of skills) {
    for (const name of pick(skill)) {
      if (closed.includes(name)) continue;
      const earlier = owner.get(name);
      if (earlier !== undefined) {
        const first = earlier === 'config' ? 'your config' : `skill ${q(earlier)}`;
        out.push({
          rule,
          message: `${what} ${q(name)} is declared by both ${first} and skill ${q(skill.id)}`,
          remedy: `rename one, or close the skill's entry with a "!${name}" ${what} entry in your config`,
        });
      } else owner.set(name, skill.id);
    }
  }
  return out;
}

/** Every set-level problem of the enabled skills under one config. */
function checkSkillSet(
  skills: readonly ResolvedSkill[],
  config: Pick<EffectiveConfig, 'mcp' | 'mcpClosed' | 'claudeSkills' | 'claudeSkillsClosed'>,
): SetFinding[] {
  return [
    ...single(
      skills,
      (s) => s.runtime.networkPosture,
      'network_posture',
      'skills.posture-conflict',
    ),
    ...single(skills, (s) => s.runtime.netnsInit, 'netns_init', 'skills.netns-init-conflict'),
    ...envConflicts(skills),
    ...destinationConflicts(skills),
    ...nameConflicts(
      skills,
      config.mcp.map((m) => m.value.name),
      config.mcpClosed.map((m) => m.value),
      (s) => s.mcp.map((m) => m.name),
      'mcp server',
      'skills.mcp-duplicate',
    ),
    ...nameConflicts(
      skills,
      config.claudeSkills.map((m) => m.value.name),
      config.claudeSkillsClosed.map((m) => m.value),
      (s) => s.claudeSkills.map((m) => m.name),
      'claude skill',
      'skills.claude-skill-duplicate',
    ),
  ];
}

/** Throws the first set-level problem as a ByreError. */
export function assertSkillSet(
  skills: readonly ResolvedSkill[],
  config: Pick<EffectiveConfig, 'mcp' | 'mcpClosed' | 'claudeSkills' | 'claudeSkillsClosed'>,
): void {
  const [first] = checkSkillSet(skills, config);
  if (first !== undefined)
    throw new ByreError(first.message, { rule: first.rule, remedy: first.remedy });
}
