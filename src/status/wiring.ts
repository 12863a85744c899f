// The wiring facts (MCP servers, Claude Skills, standing instructions): the
// effective set of each, attributed, and whether the agent gets it. Status,
// develop's banner and the `mcp|claude-skill|context list` verbs all read
// these, so a list and the status page never disagree. Pure.

import { layerLabel, type EffectiveConfig, type McpSpec } from '../config/types.js';
import { CLAUDE_SKILLS_DIR, CONTEXT_DIR, MCP_CONFIG_PATH } from '../gen/box-layout.js';
import type { ResolvedSkill, SkillAgent } from '../skills/types.js';
import type { StatusData } from './data-schema.js';

/** One declared server as the list verbs show it: the env NAMES it consumes, as written. */
interface DeclaredMcpRow {
  name: string;
  transport: 'command' | 'url';
  target: string;
  env: string[];
  source: string;
}

/**
 * The wiring facts; `mcp_servers` here is the declared set (status adds,
 * per server, whether its env is provided and its endpoint reachable).
 */
type WiringFacts = Pick<
  StatusData,
  | 'mcp_closed'
  | 'mcp_delivery'
  | 'claude_skills'
  | 'claude_skills_closed'
  | 'claude_skills_delivery'
  | 'instructions'
  | 'instructions_delivery'
> & { mcp_servers: DeclaredMcpRow[] };

/** The effective MCP set: config ∪ skills, minus `!name` closures (which reach skill servers too). */
export function declaredMcp(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
): { spec: McpSpec; source: string }[] {
  return [
    ...config.mcp.map((m) => ({ spec: m.value, source: layerLabel(m.from) })),
    ...skills.flatMap((s) => s.mcp.map((spec) => ({ spec, source: skillSource(s.id) }))),
  ].filter(({ spec }) => !config.mcpClosed.some((c) => c.value === spec.name));
}

export const skillSource = (id: string): string => `skill ${id}`;

/** What an agent skill vouches it delivers (`[agent] mcp|claude_skills|context = "inject"`). */
export type WiringKind = 'mcp' | 'claudeSkills' | 'context';

const ADAPTER: Readonly<Record<WiringKind, { what: string; baked: string }>> = {
  mcp: { what: 'MCP', baked: MCP_CONFIG_PATH },
  claudeSkills: { what: 'Claude Skills', baked: CLAUDE_SKILLS_DIR },
  context: { what: 'context', baked: CONTEXT_DIR },
};

/** The selected agent's skill; a bare name matches a local package first, then byre/<name>. */
function agentSkill(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
): ResolvedSkill | null {
  const id = config.agent?.value;
  if (id === undefined) return null;
  return skills.find((s) => s.id === id) ?? skills.find((s) => s.id === `byre/${id}`) ?? null;
}

function vouches(agent: SkillAgent | null, kind: WiringKind): boolean {
  return agent?.[kind] === true;
}

/** With no agent selected: said first, before anything about the set itself (adr/0059). */
function noAgent(kind: WiringKind): string {
  return `declared; NOT delivered: no agent is selected (baked at ${ADAPTER[kind].baked} for anything that wants it)`;
}

function delivery(
  count: number,
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  kind: WiringKind,
): string | null {
  if (count === 0) return null;
  const { what, baked } = ADAPTER[kind];
  const agentId = config.agent?.value;
  if (agentId === undefined) return noAgent(kind);
  const agent = agentSkill(config, skills);
  if (agent === null) return `declared; NOT delivered: agent ${agentId} is not resolved`;
  return vouches(agent.agent, kind)
    ? `delivered to ${agent.id}`
    : `declared; NOT delivered: ${agent.id} has no ${what} adapter (baked at ${baked})`;
}

/** Every enabled agent skill, and whether it would get this kind of wiring were it the agent. */
export function agentDeliveries(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  kind: WiringKind,
): { skill: string; selected: boolean; delivered: boolean }[] {
  const selected = agentSkill(config, skills);
  return skills
    .filter((s) => s.agent !== null)
    .map((s) => ({ skill: s.id, selected: s === selected, delivered: vouches(s.agent, kind) }));
}

/**
 * A set develop would refuse to bake is never delivered. With no agent that
 * is said after "no agent is selected": develop bakes the set with or
 * without an agent, so the refusal is still true, but it is not the reason
 * nothing reaches an agent.
 */
function claudeSkillsDelivery(
  count: number,
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  problems: readonly string[],
): string | null {
  const refused = `develop refuses to bake ${problems.join('; ')}`;
  if (count === 0) return null;
  if (config.agent?.value === undefined) {
    return problems.length === 0
      ? noAgent('claudeSkills')
      : `${noAgent('claudeSkills')}; ${refused}`;
  }
  if (problems.length > 0) return `declared; NOT delivered: ${refused}`;
  return delivery(count, config, skills, 'claudeSkills');
}

export function wiringFacts(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  claudeSkillProblems: readonly string[],
): WiringFacts {
  const mcpServers = declaredMcp(config, skills).map(({ spec, source }) => ({
    name: spec.name,
    transport: spec.url !== undefined ? ('url' as const) : ('command' as const),
    target: spec.url ?? (spec.command ?? []).join(' '),
    env: [...spec.env],
    source,
  }));
  const claudeSkills = [
    ...config.claudeSkills.map((c) => ({ ...c.value, source: layerLabel(c.from) })),
    ...skills.flatMap((s) => s.claudeSkills.map((c) => ({ ...c, source: skillSource(s.id) }))),
  ]
    .filter((c) => !config.claudeSkillsClosed.some((x) => x.value === c.name))
    .map((c) => ({ name: c.name, path: c.path, source: c.source }));
  const instructions = [
    ...config.context.map((c) => ({
      name: c.value.name,
      source: layerLabel(c.from),
      text: 'text' in c.value ? c.value.text : null,
      file: 'file' in c.value ? c.value.file : null,
    })),
    ...skills.flatMap((s) =>
      s.context === null
        ? []
        : [{ name: s.id, source: skillSource(s.id), text: s.context, file: null }],
    ),
  ];
  return {
    mcp_servers: mcpServers,
    mcp_closed: config.mcpClosed.map((c) => ({ name: c.value, source: layerLabel(c.from) })),
    mcp_delivery: delivery(mcpServers.length, config, skills, 'mcp'),
    claude_skills: claudeSkills,
    claude_skills_closed: config.claudeSkillsClosed.map((c) => ({
      name: c.value,
      source: layerLabel(c.from),
    })),
    claude_skills_delivery: claudeSkillsDelivery(
      claudeSkills.length,
      config,
      skills,
      claudeSkillProblems,
    ),
    instructions,
    instructions_delivery: delivery(instructions.length, config, skills, 'context'),
  };
}
