// The wall's event log, read: the netns helper's `byre-wall 1 …` lines
// (the grammar is in adr/0064) parsed into bounded, aggregated denials and
// the names its resolver answered. Pure. Every field comes from the box (it
// chooses each name and address it asks for): a line that does not match its
// shape exactly is dropped whole, nothing is kept unbounded, and a name is
// kept only in the grammar's escaped ASCII, so it cannot carry a control byte.

import { canonicalIPv6, isCanonicalIPv4 } from '../config/address.js';

/** The format version this reader knows; a line of another version is ignored. */
const WALL_LOG_VERSION = '1';
/** A longer line is ignored whole (the helper never writes one). */
const WALL_LINE_MAX_BYTES = 600;
/** The most lines byre reads from the end of the log (the engine's `logs --tail`). */
export const WALL_LOG_TAIL_LINES = 5000;
/** The most bytes of log text parsed: the tail of a larger text. */
const WALL_LOG_MAX_BYTES = WALL_LOG_TAIL_LINES * (WALL_LINE_MAX_BYTES + 1);
/** Distinct entries kept per kind; the rest are counted in `…More`. */
export const WALL_MAX_ENTRIES = 200;
/** Addresses kept per resolved name (the latest). */
export const WALL_MAX_ADDRESSES = 16;
/** Counts saturate here. */
export const WALL_MAX_COUNT = 1_000_000_000;

export type WallProto = 'tcp' | 'udp' | 'icmp' | 'icmpv6';

export interface DeniedName {
  /** The query name as the grammar escapes it: `[a-z0-9._-]` and `\DDD`. */
  name: string;
  /** The query types asked for it, sorted. */
  qtypes: string[];
  count: number;
  /** Unix seconds. */
  first: number;
  last: number;
}

export interface DeniedConnect {
  proto: WallProto;
  address: string;
  port: number;
  count: number;
  first: number;
  last: number;
}

export interface ResolvedName {
  name: string;
  /** Canonical spellings, the latest answers last. */
  addresses: string[];
  first: number;
  last: number;
}

export interface WallEvents {
  names: DeniedName[];
  /** Distinct refused names beyond the bound, not listed. */
  namesMore: number;
  connects: DeniedConnect[];
  connectsMore: number;
  resolved: ResolvedName[];
  resolvedMore: number;
  /** Older lines were beyond what byre reads, so counts are at least these. */
  partial: boolean;
}

type WallEvent =
  | { kind: 'resolved'; time: number; name: string; address: string; ttl: number }
  | { kind: 'refused-name'; time: number; name: string; qtype: string }
  | {
      kind: 'refused-connect';
      time: number;
      proto: WallProto;
      address: string;
      port: number;
      /** The helper's running count for this destination, when it prints one. */
      running: number | null;
    };

export const NO_WALL_EVENTS: WallEvents = {
  names: [],
  namesMore: 0,
  connects: [],
  connectsMore: 0,
  resolved: [],
  resolvedMore: 0,
  partial: false,
};

const NAME = /^(?:[a-z0-9._-]|\\[0-9]{3})+$/;
const QTYPE = /^(?:[A-Z][A-Z0-9]{0,9}|TYPE[0-9]{1,5})$/;
const SECONDS = /^(?:0|[1-9][0-9]{0,11})$/;
const DECIMAL = /^(?:0|[1-9][0-9]{0,9})$/;
const COUNT = /^count=([1-9][0-9]{0,9})$/;
const PROTOS: readonly string[] = ['tcp', 'udp', 'icmp', 'icmpv6'];
/** The DNS wire limit on a name, in octets. */
const NAME_MAX_OCTETS = 255;

/** A query name in the grammar's escaped form, or null: every `\DDD` at most 255, at most 255 octets. */
export function wallName(text: string): string | null {
  if (!NAME.test(text)) return null;
  let octets = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '\\') {
      if (Number(text.slice(i + 1, i + 4)) > 255) return null;
      i += 3;
    }
    octets += 1;
  }
  return octets <= NAME_MAX_OCTETS ? text : null;
}

/** An address in its canonical spelling (IPv4 dotted, IPv6 per RFC 5952), or null. */
export function wallAddress(text: string): string | null {
  if (isCanonicalIPv4(text)) return text;
  if (!text.includes(':') || text.length > 45) return null;
  return canonicalIPv6(text);
}

function seconds(text: string | undefined): number | null {
  return text !== undefined && SECONDS.test(text) ? Number(text) : null;
}

function decimal(text: string | undefined, max: number): number | null {
  if (text === undefined || !DECIMAL.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

/** One line, or null when it is not a well-formed event of this version. */
export function parseWallLine(line: string): WallEvent | null {
  if (line.length > WALL_LINE_MAX_BYTES || !/^[\x20-\x7e]*$/.test(line)) return null;
  const f = line.split(' ');
  if (f[0] !== 'byre-wall' || f[1] !== WALL_LOG_VERSION) return null;
  const time = seconds(f[3]);
  if (time === null) return null;
  switch (f[2]) {
    case 'resolved': {
      if (f.length !== 7) return null;
      const name = wallName(f[4] ?? '');
      const address = wallAddress(f[5] ?? '');
      const ttl = decimal(f[6], 0xffffffff);
      if (name === null || address === null || ttl === null) return null;
      return { kind: 'resolved', time, name, address, ttl };
    }
    case 'refused-name': {
      if (f.length !== 6) return null;
      const name = wallName(f[4] ?? '');
      const qtype = f[5] ?? '';
      if (name === null || !QTYPE.test(qtype)) return null;
      return { kind: 'refused-name', time, name, qtype };
    }
    case 'refused-connect': {
      if (f.length !== 7 && f.length !== 8) return null;
      const proto = f[4] ?? '';
      const address = wallAddress(f[5] ?? '');
      const port = decimal(f[6], 65535);
      const count = f.length === 8 ? COUNT.exec(f[7] ?? '') : null;
      if (!PROTOS.includes(proto) || address === null || port === null) return null;
      if (f.length === 8 && count === null) return null;
      return {
        kind: 'refused-connect',
        time,
        proto: proto as WallProto,
        address,
        port,
        running: count === null ? null : Math.min(Number(count[1]), WALL_MAX_COUNT),
      };
    }
    default:
      return null;
  }
}

/** The lines byre reads: the tail of the text, at most WALL_LOG_TAIL_LINES, and whether older ones were cut. */
function tailLines(text: string): { lines: string[]; partial: boolean } {
  let partial = false;
  let body = text;
  if (body.length > WALL_LOG_MAX_BYTES) {
    body = body.slice(body.length - WALL_LOG_MAX_BYTES);
    // The first line is probably cut in two: never read half a line.
    body = body.slice(body.indexOf('\n') + 1);
    partial = true;
  }
  const lines = body.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length > WALL_LOG_TAIL_LINES) {
    partial = true;
    return { lines: lines.slice(lines.length - WALL_LOG_TAIL_LINES), partial };
  }
  return { lines, partial };
}

const saturate = (n: number): number => Math.min(n, WALL_MAX_COUNT);

/** Most frequent first, then most recent, then by key: one order for every reader. */
function byWeight<T extends { count: number; last: number }>(key: (t: T) => string) {
  return (a: T, b: T): number =>
    b.count - a.count || b.last - a.last || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Keep the first WALL_MAX_ENTRIES of `all` in `order`; the rest are counted. */
function bounded<T>(all: T[], order: (a: T, b: T) => number): { kept: T[]; more: number } {
  const sorted = [...all].sort(order);
  return {
    kept: sorted.slice(0, WALL_MAX_ENTRIES),
    more: Math.max(0, sorted.length - WALL_MAX_ENTRIES),
  };
}

interface ConnectTally extends DeniedConnect {
  /** Lines without a running count, each one event. */
  single: number;
  running: number;
}

/**
 * The helper's log text as bounded aggregates. Lines of another shape or
 * version (diagnostics, the resolver's own chatter, anything the box forged
 * into a name) are ignored. A refused connect counts one per line, or the
 * helper's running `count=`, whichever form it prints.
 */
export function parseWallLog(text: string): WallEvents {
  const { lines, partial } = tailLines(text);
  const names = new Map<string, DeniedName>();
  const connects = new Map<string, ConnectTally>();
  const resolved = new Map<string, ResolvedName>();
  for (const line of lines) {
    const e = parseWallLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (e === null) continue;
    if (e.kind === 'refused-name') {
      const n = names.get(e.name) ?? {
        name: e.name,
        qtypes: [],
        count: 0,
        first: e.time,
        last: e.time,
      };
      n.count = saturate(n.count + 1);
      n.first = Math.min(n.first, e.time);
      n.last = Math.max(n.last, e.time);
      if (!n.qtypes.includes(e.qtype) && n.qtypes.length < 8)
        n.qtypes = [...n.qtypes, e.qtype].sort();
      names.set(e.name, n);
    } else if (e.kind === 'refused-connect') {
      const key = `${e.proto} ${e.address} ${e.port}`;
      const c = connects.get(key) ?? {
        proto: e.proto,
        address: e.address,
        port: e.port,
        count: 0,
        first: e.time,
        last: e.time,
        single: 0,
        running: 0,
      };
      if (e.running === null) c.single = saturate(c.single + 1);
      else c.running = Math.max(c.running, e.running);
      c.count = saturate(c.single + c.running);
      c.first = Math.min(c.first, e.time);
      c.last = Math.max(c.last, e.time);
      connects.set(key, c);
    } else {
      const r = resolved.get(e.name) ?? {
        name: e.name,
        addresses: [],
        first: e.time,
        last: e.time,
      };
      r.first = Math.min(r.first, e.time);
      r.last = Math.max(r.last, e.time);
      r.addresses = [...r.addresses.filter((a) => a !== e.address), e.address].slice(
        -WALL_MAX_ADDRESSES,
      );
      resolved.set(e.name, r);
    }
  }
  const n = bounded(
    [...names.values()],
    byWeight((x: DeniedName) => x.name),
  );
  const c = bounded(
    [...connects.values()].map(({ single: _s, running: _r, ...rest }) => rest),
    byWeight((x: DeniedConnect) => `${x.proto} ${x.address} ${x.port}`),
  );
  const r = bounded(
    [...resolved.values()],
    (a, b) => b.last - a.last || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return {
    names: n.kept,
    namesMore: n.more,
    connects: c.kept,
    connectsMore: c.more,
    resolved: r.kept,
    resolvedMore: r.more,
    partial,
  };
}

/**
 * Whether the resolver has answered for an allowlisted host: the host itself
 * or a name under it was resolved. `unknown` when resolved names were left
 * out by the bound, so "not yet" cannot be said.
 */
export function hostResolution(
  events: WallEvents,
  host: string,
): 'resolved' | 'not_resolved' | 'unknown' {
  const h = host.toLowerCase();
  if (events.resolved.some((r) => r.name === h || r.name.endsWith(`.${h}`))) return 'resolved';
  return events.resolvedMore > 0 ? 'unknown' : 'not_resolved';
}
