// The launch banner develop prints on stderr before the box starts, read off
// the same grant facts `byre status` shows so the two never disagree: what the
// box is exposed to, its network line, and one loud line per containment hole.

import type { EffectiveConfig } from '../config/types.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { grantFacts, type GrantFacts } from '../status/model.js';
import { networkValue } from '../status/rows.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The banner lines for already-computed grant facts. */
export function bannerLines(facts: GrantFacts): string[] {
  const disabled = facts.binds.filter((b) => b.disabled).length;
  const active = facts.binds.length - disabled;
  const delivered = facts.host_env.filter((e) => e.state === 'delivered').length;
  const mountText = `${plural(active, 'host mount')}${disabled > 0 ? ` (+${disabled} disabled)` : ''}`;
  const credentials = facts.credentials.filter((c) => c.state !== 'overridden').length;
  const credentialText = credentials === 0 ? '' : ` · ${plural(credentials, 'credential')}`;
  return [
    `byre: exposure: /workspace rw · ${mountText} · ${plural(facts.ports.length, 'port')} · ${plural(delivered, 'env var')}${credentialText}`,
    `byre: network ${networkValue(facts.network)}`,
    ...facts.containments.map((c) => `byre: 🛑 containment hole: ${c.text}  (skill: ${c.skill})`),
    ...facts.managed_path_shadows.map(
      (s) =>
        `byre: 🛑 containment hole: ${s.kind} over ${s.target} shadows byre-managed ${s.shadows}  (${s.source})`,
    ),
  ];
}

export function exposureLines(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  hostEnv: readonly HostEnvEntry[],
  box: { projectId: string; hostUid: number } = { projectId: '', hostUid: 0 },
): string[] {
  return bannerLines(
    grantFacts({
      config,
      skills,
      skillError: null,
      hostEnv,
      projectId: box.projectId,
      hostUid: box.hostUid,
    }),
  );
}
