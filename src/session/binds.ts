// The judge-the-binds step, over the config as re-read under the lock and
// before the engine creates or removes anything: every bind source pinned
// first and the pinned objects judged by the containment rules, so the
// objects the launcher proves at start are the ones judged here (adr/0045).
// When the engine runs elsewhere nothing can be pinned, and the banner says so.

import { boxSources, checkContainment, containmentInput } from '../containment/check.js';
import { pinSources, type BindPins } from '../containment/bind-pins.js';
import type { EffectiveConfig } from '../config/types.js';
import { engineElsewhereNow } from '../engine/locality-facts.js';
import { expandHost } from '../gen/run-argv.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { SessionContext } from './context.js';
import { selfEditBind } from './self-edit.js';

interface JudgedBinds {
  pins: BindPins | null;
  /** Why the binds cannot be proven; null when the engine runs here. */
  elsewhere: string | null;
}

export async function judgeBinds(
  s: Pick<SessionContext, 'io' | 'ctx' | 'home' | 'engine' | 'selfEdit'>,
  loaded: { config: EffectiveConfig; skills: readonly ResolvedSkill[] },
): Promise<JudgedBinds> {
  const { ctx, home } = s;
  const elsewhere = engineElsewhereNow(s.engine.facts, s.io.env);
  const checked = containmentInput(ctx, ctx.store.home, home, loaded.config, loaded.skills);
  const pins: BindPins | null =
    elsewhere === null
      ? pinSources([
          ...boxSources(checked).map((b) => b.source),
          ...(s.selfEdit ? [expandHost(selfEditBind(ctx).host, home)] : []),
        ])
      : null;
  await checkContainment(pins === null ? checked : { ...checked, pins });
  return { pins, elsewhere };
}

/** The banner line when the engine cannot be shown to mount what byre checked (adr/0045). */
export function unprovenBanner(why: string): string {
  return `byre: 🛑 binds not proven: ${why}; byre cannot show the engine mounts the objects it checked, so a box that can write above a bind source could redirect it (docs/SECURITY.md)`;
}
