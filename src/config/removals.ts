// The removal markers one layer file carries: what it takes away from the
// layers beneath it (`!name` in a union list, an entry whose identity is
// `!id`, a port's `remove = true`, an on/off key turned off). A fresh config
// that lacks them gives those grants back, so a change of identity counts
// them as restrictions (adr/0047). Egress closures are the network posture's
// to report. Pure.

import { configKey, configKeys } from './keys.js';
import type { RawLayer } from './schema.js';

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `key !name` for each marker, in file order. */
export function removalMarkers(raw: RawLayer): string[] {
  const table = raw as Record<string, unknown>;
  const out: string[] = [];
  for (const key of configKeys()) {
    const value = table[key];
    const merge = configKey(key).merge;
    if (merge.kind === 'tristate' && value === false) out.push(`${key} = false`);
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (merge.kind === 'union' && typeof item === 'string' && item.startsWith('!')) {
        out.push(`${key} ${item}`);
      } else if ((merge.kind === 'identity' || merge.kind === 'closable') && isTable(item)) {
        const field = merge.kind === 'identity' ? merge.identity : 'name';
        const id = item[field];
        if (typeof id === 'string' && id.startsWith('!')) out.push(`${key} ${id}`);
        else if (item['remove'] === true) out.push(`${key} ${String(id)} removed`);
      }
    }
  }
  return out;
}
