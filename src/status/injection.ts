// What status says about credentials injected at the edge (adr/0070): one
// row per injected key, whether the edge is up for the running box, and the
// requests it refused, read from its `byre-edge 1 …` event lines. Pure. The
// hosts in the rows come from config (the inject grammar); every field of an
// event line comes from the box (it chooses the server name it sends), so a
// line that does not match exactly is dropped whole and a name is kept only
// in the wall's escaped form (adr/0064).

import { formatInjectHost, type Injection, type Presentation } from '../config/inject.js';
import { wallName } from './wall-events.js';

/** One row per injected key, in the words the user reads in status. */
export function injectionRowText(injection: Injection): string {
  const hosts = injection.rules.flatMap((r) => r.hosts.map(formatInjectHost));
  return `${injection.key} -> injected at the edge for ${hosts.join(', ')}; the box holds a sentinel`;
}

function presentationWords(p: Presentation): string {
  switch (p.kind) {
    case 'header':
      return `as header ${p.name}`;
    case 'bearer':
      return 'as Authorization: Bearer';
    case 'basic':
      return `as Authorization: Basic (user ${p.user})`;
  }
}

/** The full tier: how each host gets the key ("api.github.com as Authorization: Bearer"). */
export function injectionDetailText(injection: Injection): string {
  return injection.rules
    .map((r) => `${r.hosts.map(formatInjectHost).join(', ')} ${presentationWords(r.presentation)}`)
    .join('; ');
}

/** What byre knows of the running box's edge. */
export type EdgeState =
  /** Its helper runs and printed its ready line. */
  | 'up'
  /** Its helper is gone or never became ready: injected hosts cannot be reached. */
  | 'down'
  /** The engine could not be asked. */
  | 'unknown'
  /** No box of this project runs. */
  | 'no-box';

export function edgeStateText(state: EdgeState, injections: readonly Injection[]): string | null {
  if (injections.length === 0) return null;
  switch (state) {
    case 'up':
      return 'up for the running box: it alone holds the injected values';
    case 'down':
      return 'NOT up for the running box: requests to the injected hosts fail (the box holds only sentinels)';
    case 'unknown':
      return 'unknown — the engine did not say whether the edge runs';
    case 'no-box':
      return 'starts with the box (byre develop asks the passphrase and hands it the values)';
  }
}

// ---------------------------------------------------------------------------
// The edge's refusals: `byre-edge 1 refused <unix-seconds> <reason> <name>`,
// one a line, ASCII, at most 600 bytes; `<name>` is the server name (or the
// Host header) in the wall's escaped form, `-` when the client sent none.

const EDGE_LOG_VERSION = '1';
const EDGE_LINE_MAX_BYTES = 600;
const EDGE_MAX_ENTRIES = 200;
const EDGE_MAX_COUNT = 1_000_000_000;

/** Why the edge refused a request. */
const EDGE_REFUSALS = [
  /** Plain HTTP to an injected name: answered 403, never forwarded. */
  'plain-http',
  /** A TLS client whose server name is no injected host (or none). */
  'unknown-host',
  /** The request's Host differs from the name the TLS session was for. */
  'host-mismatch',
  /** The real server's certificate did not verify: nothing was sent. */
  'upstream-unverified',
  /** A response held the value (the server reflected the request): the edge masked it. */
  'reflected-secret',
  /** A response in a content coding (gzip…) the edge cannot check for the value: answered 502. */
  'encoded-response',
] as const;
type EdgeRefusal = (typeof EDGE_REFUSALS)[number];

interface EdgeRefused {
  reason: EdgeRefusal;
  /** Escaped, or `-`. */
  name: string;
  count: number;
  first: number;
  last: number;
}

export interface EdgeEvents {
  refused: EdgeRefused[];
  /** Distinct entries past the bound, not kept. */
  more: number;
  /** The requests those entries counted. */
  moreRequests: number;
}

function parseEdgeLine(line: string): { reason: EdgeRefusal; name: string; at: number } | null {
  if (line.length > EDGE_LINE_MAX_BYTES || !/^[\x20-\x7e]*$/.test(line)) return null;
  const f = line.split(' ');
  if (f.length !== 6 || f[0] !== 'byre-edge' || f[1] !== EDGE_LOG_VERSION || f[2] !== 'refused') {
    return null;
  }
  if (!/^(0|[1-9][0-9]{0,11})$/.test(f[3] ?? '')) return null;
  const reason = EDGE_REFUSALS.find((r) => r === f[4]);
  const name = f[5] === '-' ? '-' : wallName(f[5] ?? '');
  if (reason === undefined || name === null) return null;
  return { reason, name, at: Number(f[3]) };
}

/** The refusals in a log's text, aggregated by reason and name, bounded (most frequent kept). */
export function parseEdgeEvents(text: string): EdgeEvents {
  const byKey = new Map<string, EdgeRefused>();
  for (const line of text.split('\n')) {
    const e = parseEdgeLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (e === null) continue;
    const key = `${e.reason} ${e.name}`;
    const had = byKey.get(key);
    if (had === undefined) {
      byKey.set(key, { reason: e.reason, name: e.name, count: 1, first: e.at, last: e.at });
    } else {
      had.count = Math.min(had.count + 1, EDGE_MAX_COUNT);
      had.first = Math.min(had.first, e.at);
      had.last = Math.max(had.last, e.at);
    }
  }
  const order = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  const all = [...byKey.values()].sort(
    (a, b) =>
      b.count - a.count || b.last - a.last || order(a.name, b.name) || order(a.reason, b.reason),
  );
  const dropped = all.slice(EDGE_MAX_ENTRIES);
  return {
    refused: all.slice(0, EDGE_MAX_ENTRIES),
    more: dropped.length,
    moreRequests: dropped.reduce((n, r) => Math.min(n + r.count, EDGE_MAX_COUNT), 0),
  };
}

/** One line beside the wall's denials: `2 requests refused at the edge (plain-http api.x ×2)`. */
export function edgeRefusedSummary(events: EdgeEvents): string | null {
  if (events.refused.length === 0) return null;
  const total = events.refused.reduce(
    (n, r) => Math.min(n + r.count, EDGE_MAX_COUNT),
    events.moreRequests,
  );
  const shown = events.refused
    .slice(0, 3)
    .map((r) => `${r.reason} ${r.name}${r.count > 1 ? ` ×${r.count}` : ''}`);
  const rest = events.refused.length - shown.length + events.more;
  const tail = rest > 0 ? `, and ${rest} more` : '';
  return `${total} request${total === 1 ? '' : 's'} refused at the edge (${shown.join(', ')}${tail})`;
}
