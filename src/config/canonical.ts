// Package references in a layer, rewritten to the ids the catalog knows them
// by before the merge: `claude` and `byre/claude` name one package, so
// `!byre/claude` must cancel `claude` (and the reverse), and a `[sources]`
// hint keyed `claude` must match it. Pure: the catalog arrives as functions.

import { NONE } from './grammar.js';
import type { RawLayer } from './schema.js';

/** Maps a reference as written to the package's id; a reference the catalog does not know comes back unchanged. */
export interface PackageCanon {
  skill(reference: string): string;
  template(reference: string): string;
}

/** Leaves every reference as written (no catalog at hand). */
export const AS_WRITTEN: PackageCanon = { skill: (r) => r, template: (r) => r };

function canonScalar(value: string | undefined, canon: (r: string) => string): string | undefined {
  if (value === undefined || value === '' || value === NONE) return value;
  return canon(value);
}

/** A `[sources]` key names a skill or a template; whichever the catalog knows. */
function canonSourceKey(key: string, canon: PackageCanon): string {
  const skill = canon.skill(key);
  return skill !== key ? skill : canon.template(key);
}

/**
 * The layer with `skills` (removal markers included), `agent`, `template`
 * and the `[sources]` keys canonicalised. Array positions are kept, so an
 * issue about entry i still points at line of entry i in the file.
 */
export function canonicalLayer(raw: RawLayer, canon: PackageCanon): RawLayer {
  const out: RawLayer = { ...raw };
  if (raw.skills !== undefined) {
    out.skills = raw.skills.map((entry) =>
      entry.startsWith('!') && entry.length > 1
        ? `!${canon.skill(entry.slice(1))}`
        : entry === ''
          ? entry
          : canon.skill(entry),
    );
  }
  const agent = canonScalar(raw.agent, canon.skill);
  if (agent !== undefined) out.agent = agent;
  const template = canonScalar(raw.template, canon.template);
  if (template !== undefined) out.template = template;
  if (raw.sources !== undefined) {
    // Later keys win, as a later layer's hint beats an earlier one.
    out.sources = Object.fromEntries(
      Object.entries(raw.sources).map(([key, hint]) => [canonSourceKey(key, canon), hint]),
    );
  }
  return out;
}
