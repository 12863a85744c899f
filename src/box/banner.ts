// The launch banner develop prints on stderr before the box starts, read off
// the same grant facts `byre status` shows so the two never disagree: what the
// box is exposed to, its network line, and one loud line per containment hole.

import type { EffectiveConfig } from '../config/types.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { exposureParts, exposureSummary } from '../status/exposure.js';
import { grantFacts, type GrantFacts } from '../status/model.js';

/** The banner lines for already-computed grant facts. */
export function bannerLines(facts: GrantFacts, selfEdit = false): string[] {
  const summary = exposureSummary(facts);
  const [workspace, ...rest] = exposureParts(summary);
  const parts = selfEdit ? [workspace, 'self-edit rw', ...rest] : [workspace, ...rest];
  return [
    `byre: exposure: ${parts.join(' · ')}`,
    `byre: network ${summary.network}`,
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
  selfEdit = false,
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
    selfEdit,
  );
}
