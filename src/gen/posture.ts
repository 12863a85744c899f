// A box's network posture as launch inputs: which skill walls it, the
// enforced allowlist (BYRE_EGRESS, the one string both the wall and the
// agent's announcement use), the closures for an open-denylist, the
// published container ports the wall lets in (adr/0049), and the helper
// plan. Pure.

import type { EffectiveConfig } from '../config/types.js';
import type { ResolvedSkill } from '../skills/types.js';
import { deriveBoxEgress, type DerivedEgress } from './allowlist.js';
import { EDGE_UID } from './box-layout.js';

export interface PostureFacts {
  /** 'open' when no posture skill is enabled. */
  posture: string;
  skill: ResolvedSkill | null;
  /** The skill's netns_init hook, when it has one. */
  hook: string | null;
  egress: DerivedEgress;
  /** BYRE_EGRESS for the box and the helper; only under an allowlist posture. */
  allowlist: string | null;
  /** BYRE_EGRESS_DENY for the helper: the closures, without their `!`. */
  deny: string;
  /**
   * BYRE_INBOUND for the helper: the published container ports (tcp), sorted
   * and space-joined, the only ones a walled box accepts new connections on.
   * Container ports, so a linked worktree's shifted host ports change nothing.
   */
  inbound: string;
}

export function postureFacts(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
): PostureFacts {
  const skill = skills.find((s) => s.runtime.networkPosture !== null) ?? null;
  const posture = skill?.runtime.networkPosture ?? 'open';
  const egress = deriveBoxEgress(config, skills);
  return {
    posture,
    skill,
    hook: skill?.runtime.netnsInit ?? null,
    egress,
    allowlist: posture === 'deny-by-default' ? egress.allowed.join(' ') : null,
    deny: egress.closures.map((c) => c.text.slice(1)).join(' '),
    inbound: [...new Set(config.ports.map((p) => p.value.container))]
      .sort((a, b) => a - b)
      .join(' '),
  };
}

/**
 * The helper's environment: the box's runtime env plus the wall's inputs.
 * Nothing else from the host's own environment than the resolver's upstream
 * when the user names one: the deny probe aims at a listener of the helper's
 * own on loopback (adr/0061).
 */
export function helperEnv(
  boxEnv: Readonly<Record<string, string>>,
  facts: PostureFacts,
  boxUid: number,
  upstream?: string,
  edgeHosts: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { ...boxEnv };
  // The edge's hosts (`name:port`) and user: the wall admits that user alone
  // to those names' answers (adr/0070). Never the box's own say.
  delete env['BYRE_EDGE_HOSTS'];
  delete env['BYRE_EDGE_UID'];
  if (edgeHosts.length > 0) {
    env['BYRE_EDGE_HOSTS'] = edgeHosts.join(' ');
    env['BYRE_EDGE_UID'] = String(EDGE_UID);
  }
  // The resolver's user must not be the box's (adr/0063).
  env['BYRE_BOX_UID'] = String(boxUid);
  // Where the wall's resolver sends allowlisted names, when not the engine's
  // resolver: the host's BYRE_WALL_UPSTREAM, `ip[#port]` (adr/0063).
  delete env['BYRE_WALL_UPSTREAM'];
  if (upstream !== undefined && upstream !== '') env['BYRE_WALL_UPSTREAM'] = upstream;
  // Which wall the hook builds; the bundled postures share one hook (adr/0063).
  env['BYRE_WALL_POSTURE'] = facts.posture;
  env['BYRE_EGRESS'] = facts.allowlist ?? '';
  env['BYRE_EGRESS_DENY'] = facts.deny;
  env['BYRE_INBOUND'] = facts.inbound;
  return env;
}

/**
 * What this config's network posture takes away from an open box, as lines
 * for a message: the posture skill, and the closures it enforces (an open box
 * enforces none). A fresh config that lacks one of them is looser (adr/0047).
 */
export function networkRestrictions(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
): string[] {
  const facts = postureFacts(config, skills);
  if (facts.skill === null) return [];
  return [
    `network ${facts.posture} (${facts.skill.id})`,
    ...facts.egress.closures.map((c) => `egress closure ${c.text}`),
  ];
}
