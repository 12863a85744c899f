// The one place develop refuses a credential injected at the edge that it
// cannot yet serve (adr/0070): a walled box (a network-posture skill) whose
// effective cascade injects anything stops here, located at the winning
// row, before a passphrase is asked or anything is built. The edge inside
// the wall's helper (resolving injected names through the wall's resolver)
// is not built. Never a fallback that delivers the secret into the box.
// Delivered (`encrypted:`) rows, and injection without a wall, are untouched.
// Remove this module, and its two calls in commands/develop.ts, when the
// walled edge is built.

import type { ValueLocation } from '../config/check-effective.js';
import type { EffectiveConfig } from '../config/types.js';
import { RefusedError, type Location } from '../errors.js';
import { postureFacts } from '../gen/posture.js';
import type { ResolvedSkill } from '../skills/types.js';

/** Throws when a walled config injects a credential; `locate` gives the row's line. */
export function refuseInjectionUntilEdge(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  locate?: ValueLocation,
): void {
  const first = config.injections[0];
  if (first === undefined) return;
  const posture = postureFacts(config, skills);
  if (posture.hook === null) return;
  const path = ['env_from_host', first.key];
  const location: Location =
    locate === undefined
      ? { file: first.from.path ?? first.from.name, key: path.join('.') }
      : locate(first.from, () => path);
  const keys = config.injections.map((i) => i.key).join(', ');
  throw new RefusedError(
    `${keys}: injection at the edge is not yet available behind a network wall (skill ${posture.skill?.id ?? '?'}, ${posture.posture}), and an injected credential is never delivered into the box instead`,
    {
      rule: 'develop.inject-not-yet',
      location,
      remedy: `drop the network-posture skill to inject without a wall, or seal ${first.key} as a delivered row: byre credential remove ${first.key}, then byre credential add ${first.key} (without --inject)`,
    },
  );
}
