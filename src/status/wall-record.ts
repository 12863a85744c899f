// The last session's wall record: what byre read from a walled box's event
// log when its session ended, kept beside the launch records so status and
// the editor can show it after the box is gone (adr/0064). Pure: rendering,
// and reading back with every field held to the event grammar's shapes and
// bounds again, so a file that is not byre's (or was tampered with) is no
// record rather than a way onto the terminal.

import {
  WALL_MAX_ADDRESSES,
  WALL_MAX_COUNT,
  WALL_MAX_ENTRIES,
  wallAddress,
  wallName,
  type DeniedConnect,
  type DeniedName,
  type ResolvedName,
  type WallEvents,
  type WallProto,
} from './wall-events.js';

const WALL_RECORD_FORMAT = 'byre-wall-record';
const WALL_RECORD_VERSION = 1;
/** Above the largest record the bounds allow (200 entries a kind); a larger file is not byre's. */
export const WALL_RECORD_MAX_BYTES = 512 * 1024;

export interface WallRecord {
  /** The launch record of the session (its hash). */
  launch: string;
  engine: 'docker' | 'podman';
  /** Unix seconds when byre read the log, as the session ended. */
  ended: number;
  events: WallEvents;
}

/** `last-session-<worktree id>.json`, inside the launches directory. */
export function wallRecordFileName(worktreeId: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,254}$/.test(worktreeId)) throw new RangeError('not a worktree id');
  return `last-session-${worktreeId}.json`;
}

export function renderWallRecord(record: WallRecord): string {
  return `${JSON.stringify({ format: WALL_RECORD_FORMAT, version: WALL_RECORD_VERSION, ...record }, null, 1)}\n`;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
const TIME_MAX = 999_999_999_999;

function times(o: Json): { first: number; last: number } | null {
  return int(o['first'], TIME_MAX) && int(o['last'], TIME_MAX) && o['first'] <= o['last']
    ? { first: o['first'], last: o['last'] }
    : null;
}

function list<T>(v: unknown, item: (o: Json) => T | null): T[] | null {
  if (!Array.isArray(v) || v.length > WALL_MAX_ENTRIES) return null;
  const out: T[] = [];
  for (const o of v) {
    const parsed = isObject(o) ? item(o) : null;
    if (parsed === null) return null;
    out.push(parsed);
  }
  return out;
}

function deniedName(o: Json): DeniedName | null {
  const name = typeof o['name'] === 'string' ? wallName(o['name']) : null;
  const t = times(o);
  const qtypes = o['qtypes'];
  if (name === null || t === null || !int(o['count'], WALL_MAX_COUNT) || !Array.isArray(qtypes))
    return null;
  if (
    qtypes.length > 8 ||
    !qtypes.every((q) => typeof q === 'string' && /^[A-Z][A-Z0-9]{0,9}$/.test(q))
  )
    return null;
  return { name, qtypes: qtypes as string[], count: o['count'], ...t };
}

function deniedConnect(o: Json): DeniedConnect | null {
  const proto = o['proto'];
  const address = typeof o['address'] === 'string' ? wallAddress(o['address']) : null;
  const t = times(o);
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'icmp' && proto !== 'icmpv6') return null;
  if (address === null || t === null || !int(o['port'], 65535) || !int(o['count'], WALL_MAX_COUNT))
    return null;
  return { proto: proto as WallProto, address, port: o['port'], count: o['count'], ...t };
}

function resolvedName(o: Json): ResolvedName | null {
  const name = typeof o['name'] === 'string' ? wallName(o['name']) : null;
  const t = times(o);
  const a = o['addresses'];
  if (name === null || t === null || !Array.isArray(a) || a.length > WALL_MAX_ADDRESSES)
    return null;
  const addresses = a.map((x) => (typeof x === 'string' ? wallAddress(x) : null));
  if (addresses.some((x) => x === null)) return null;
  return { name, addresses: addresses as string[], ...t };
}

/** The record in `text`, or null when it is not one byre wrote in this version's shape. */
export function parseWallRecord(text: string): WallRecord | null {
  if (text.length > WALL_RECORD_MAX_BYTES) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(doc) || doc['format'] !== WALL_RECORD_FORMAT) return null;
  if (doc['version'] !== WALL_RECORD_VERSION) return null;
  const { launch, engine, ended, events: e } = doc;
  if (typeof launch !== 'string' || !/^[0-9a-f]{64}$/.test(launch)) return null;
  if (engine !== 'docker' && engine !== 'podman') return null;
  if (!int(ended, TIME_MAX) || !isObject(e)) return null;
  const names = list(e['names'], deniedName);
  const connects = list(e['connects'], deniedConnect);
  const resolved = list(e['resolved'], resolvedName);
  const more = ['namesMore', 'connectsMore', 'resolvedMore'].map((k) => e[k]);
  if (names === null || connects === null || resolved === null) return null;
  if (!more.every((m) => int(m, WALL_MAX_COUNT)) || typeof e['partial'] !== 'boolean') return null;
  const [namesMore, connectsMore, resolvedMore] = more as number[];
  return {
    launch,
    engine,
    ended,
    events: {
      names,
      namesMore: namesMore ?? 0,
      connects,
      connectsMore: connectsMore ?? 0,
      resolved,
      resolvedMore: resolvedMore ?? 0,
      partial: e['partial'],
    },
  };
}
