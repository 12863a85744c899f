// The one place develop refuses a credential injected at the edge while the
// edge is not yet part of develop (adr/0070): a config whose effective
// cascade injects anything stops here, located at the winning row, before a
// passphrase is asked or anything is built. Never a fallback that delivers
// the secret into the box. Delivered (`encrypted:`) rows are untouched.
// Remove this module, and its two calls in commands/develop.ts, when develop
// starts the edge.

import type { ValueLocation } from '../config/check-effective.js';
import type { EffectiveConfig } from '../config/types.js';
import { RefusedError, type Location } from '../errors.js';

/** Throws when the config injects a credential; `locate` gives the row's line. */
export function refuseInjectionUntilEdge(config: EffectiveConfig, locate?: ValueLocation): void {
  const first = config.injections[0];
  if (first === undefined) return;
  const path = ['env_from_host', first.key];
  const location: Location =
    locate === undefined
      ? { file: first.from.path ?? first.from.name, key: path.join('.') }
      : locate(first.from, () => path);
  const keys = config.injections.map((i) => i.key).join(', ');
  throw new RefusedError(
    `${keys}: injection at the edge is not yet available to byre develop, and an injected credential is never delivered into the box instead`,
    {
      rule: 'develop.inject-not-yet',
      location,
      remedy: `to deliver it into the box, seal it as a delivered row: byre credential remove ${first.key}, then byre credential add ${first.key} (without --inject)`,
    },
  );
}
