// The egress allowlist derivation: every skill's [runtime]
// egress ∪ MCP-implied egress ∪ the config's egress key, minus the config's
// `!host[:port]` closures applied LAST (skill entries included), a closed
// name closing the names under it too (adr/0063). Pure; it never
// decides posture or enforcement, and egress_offered is never an input.

import { closureReaches, parseEgressEntry } from '../config/egress-entry.js';
import type { EffectiveConfig, EgressEntry, LayerRef } from '../config/types.js';
import type { ResolvedSkill } from '../skills/types.js';

/** One declarer of egress: `source` is a skill id, `config`, or `mcp:<name>`. */
interface EgressContribution {
  source: string;
  /** Raw `host[:port]` strings (skill.toml) or already-parsed entries (config). */
  entries: readonly (string | EgressEntry)[];
}

interface EgressClosure {
  entry: EgressEntry;
  /** Who wrote the closure, for attribution (`project`, `default`, …). */
  source: string;
}

interface DerivedEgressEntry {
  host: string;
  port: number;
  /** Every declarer, in first-seen order. */
  sources: string[];
  /** The closure text (`!host` or `!host:port`) that removed it; null when open. */
  closedBy: string | null;
}

export interface DerivedEgress {
  /** The union before closures, first-seen order, closed entries marked. */
  entries: DerivedEgressEntry[];
  /** `host:port` after closures: what an allowlist posture would open. */
  allowed: string[];
  /** The closures, in config order, as text. */
  closures: { text: string; source: string }[];
  /** Strings a skill declared that are not egress entries; never opened. */
  invalid: { source: string; raw: string; message: string }[];
}

/** `host:port`, or `host` for a portless closure. */
export function egressText(entry: EgressEntry): string {
  return entry.port === null ? entry.host : `${entry.host}:${entry.port}`;
}

/** Split a recorded `host:port` (IPv6 kept bracketed) back into an entry. */
export function parseRecordedEgress(text: string): EgressEntry {
  const colon = text.lastIndexOf(':');
  const bracketEnd = text.lastIndexOf(']');
  if (colon < 0 || colon < bracketEnd) return { host: text, port: null };
  const port = Number(text.slice(colon + 1));
  return Number.isInteger(port) ? { host: text.slice(0, colon), port } : { host: text, port: null };
}

function deriveEgress(
  contributions: readonly EgressContribution[],
  closures: readonly EgressClosure[],
): DerivedEgress {
  const byKey = new Map<string, DerivedEgressEntry>();
  const invalid: DerivedEgress['invalid'] = [];
  for (const c of contributions) {
    for (const raw of c.entries) {
      let entry: EgressEntry;
      if (typeof raw === 'string') {
        const parsed = parseEgressEntry(raw);
        // A closure is only meaningful in config; a skill cannot close doors.
        if (!parsed.ok || parsed.closure) {
          invalid.push({
            source: c.source,
            raw,
            message: parsed.ok ? 'a skill cannot declare a closure' : parsed.message,
          });
          continue;
        }
        entry = parsed.entry;
      } else {
        entry = raw;
      }
      if (entry.port === null) continue;
      const key = `${entry.host}:${entry.port}`;
      const seen = byKey.get(key);
      if (seen === undefined) {
        byKey.set(key, { host: entry.host, port: entry.port, sources: [c.source], closedBy: null });
      } else if (!seen.sources.includes(c.source)) {
        seen.sources.push(c.source);
      }
    }
  }
  const entries = [...byKey.values()];
  for (const e of entries) {
    const closure = closures.find((c) => closureReaches(c.entry, e));
    if (closure !== undefined) e.closedBy = `!${egressText(closure.entry)}`;
  }
  return {
    entries,
    allowed: entries.filter((e) => e.closedBy === null).map((e) => `${e.host}:${e.port}`),
    closures: closures.map((c) => ({ text: `!${egressText(c.entry)}`, source: c.source })),
    invalid,
  };
}

/** The egress an MCP server implies: its url's host and port, plus declared extras. */
export function mcpEgress(server: { url?: string; egress: readonly string[] }): string[] {
  const out: string[] = [];
  if (server.url !== undefined) {
    try {
      const url = new URL(server.url);
      const port = url.port !== '' ? url.port : url.protocol === 'http:' ? '80' : '443';
      out.push(`${url.hostname}:${port}`);
    } catch {
      // An unparseable url opens nothing; config validation reports it.
    }
  }
  return [...out, ...server.egress];
}

/**
 * The box's egress from its config and enabled skills: every skill's
 * [runtime] egress, MCP-implied egress, the config's egress key, minus the
 * config's closures. develop enforces `allowed`; status attributes `entries`.
 */
export function deriveBoxEgress(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  label: (from: LayerRef) => string = (from) => from.name,
): DerivedEgress {
  return deriveEgress(
    [
      ...skills.map((s) => ({ source: s.id, entries: s.runtime.egress })),
      ...skills.flatMap((s) =>
        s.mcp.map((m) => ({ source: `mcp:${m.name}`, entries: mcpEgress(m) })),
      ),
      ...config.mcp.map((m) => ({ source: `mcp:${m.value.name}`, entries: mcpEgress(m.value) })),
      { source: 'config', entries: config.egress.map((e) => e.value) },
    ],
    config.egressClosed.map((c) => ({ entry: c.value, source: label(c.from) })),
  );
}
