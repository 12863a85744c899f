// The launch banner develop prints on stderr before the box starts, read off
// the same grant facts `byre status` shows so the two never disagree: what the
// box is exposed to, its network line, one loud line per containment hole, and
// one line per raw run_args entry that widens the box.

import type { EffectiveConfig } from '../config/types.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { shellQuote } from '../output/shell-quote.js';
import { exposureParts, exposureSummary } from './exposure.js';
import { rawRunArgHole, rawRunArgSource } from './rows.js';
import { grantFacts, type GrantFacts } from './model.js';

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
    ...facts.raw_run_args.flatMap((r) => rawRunArgLine(r)),
  ];
}

/**
 * A raw run_args entry that widens the box, or that byre cannot read: a hole
 * is as loud as a skill's; the rest are named, so a raw bind is never silent
 * behind a count (adr/0051).
 */
function rawRunArgLine(r: GrantFacts['raw_run_args'][number]): string[] {
  switch (r.effect) {
    case 'hole':
      return [`byre: 🛑 containment hole: ${rawRunArgHole(r)}`];
    case 'inert':
      return [];
    case 'unknown':
      return [
        `byre: run_args ${shellQuote(r.argv)}: not introspected, passed through as written${r.what === '' ? '' : ` (${r.what})`}  (${rawRunArgSource(r)})`,
      ];
    default:
      return [`byre: run_args ${shellQuote(r.argv)}: ${r.what}  (${rawRunArgSource(r)})`];
  }
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
