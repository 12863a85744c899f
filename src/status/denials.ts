// What the wall refused, on the status page: the running walled box's events
// (or the last walled session's record) as `network.denials`, each egress
// host's resolution state, and the "Denied" rows. Pure. Names reach the page
// only in the event grammar's escaped ASCII, and the row funnel escapes them
// again like every value.

import { isCanonicalIPv4 } from '../config/address.js';
import type { StatusData } from './data-schema.js';
import type { StatusRow, StatusTier } from './layout.js';
import { hostResolution, type WallEvents } from './wall-events.js';
import type { WallRecord } from './wall-record.js';

type Network = StatusData['network'];
type Denials = NonNullable<Network['denials']>;
/** A page row (rows.ts's ModelRow, written out so the two modules need not import each other). */
type ModelRow = StatusRow & { tier?: StatusTier };

/** What status knows of the wall's events. */
export type WallInput =
  /** The running walled box: its events, or why they could not be read. */
  | { of: 'running_box'; events: WallEvents | null; error: string | null }
  /** No box runs here: what byre kept when the last walled session ended. */
  | { of: 'last_session'; record: WallRecord };

/** `2026-12-02T07:01:02Z`. */
function isoSeconds(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

function denialsOf(events: WallEvents): Omit<Denials, 'of' | 'error' | 'ended' | 'launch_record'> {
  return {
    partial: events.partial,
    names: events.names.map((n) => ({
      name: n.name,
      qtypes: [...n.qtypes],
      count: n.count,
      first: isoSeconds(n.first),
      last: isoSeconds(n.last),
    })),
    names_more: events.namesMore,
    connects: events.connects.map((c) => ({
      proto: c.proto,
      address: c.address,
      port: c.port,
      count: c.count,
      first: isoSeconds(c.first),
      last: isoSeconds(c.last),
    })),
    connects_more: events.connectsMore,
  };
}

const isAddress = (host: string): boolean =>
  isCanonicalIPv4(host) || host.includes(':') || host.includes('/');

/**
 * The network facts with the wall's events folded in: `denials`, and under
 * a running box's allowlist each open host's resolution state.
 */
export function withWall(network: Network, wall: WallInput | null): Network {
  if (wall === null) return network;
  if (wall.of === 'last_session') {
    const { record } = wall;
    return {
      ...network,
      denials: {
        of: 'last_session',
        error: null,
        ended: isoSeconds(record.ended),
        launch_record: record.launch,
        ...denialsOf(record.events),
      },
    };
  }
  const events = wall.events;
  const allow = network.posture === 'deny-by-default';
  return {
    ...network,
    egress: network.egress.map((e) => ({
      ...e,
      resolution: !allow
        ? null
        : isAddress(e.host)
          ? 'address'
          : events === null
            ? 'unknown'
            : hostResolution(events, e.host),
    })),
    denials: {
      of: 'running_box',
      error: events === null ? (wall.error ?? 'not read') : null,
      ended: null,
      launch_record: null,
      ...(events === null
        ? { partial: false, names: [], names_more: 0, connects: [], connects_more: 0 }
        : denialsOf(events)),
    },
  };
}

/** How many entries the default tier names before `…`. */
const SHOWN = 3;

const times = (n: number): string => (n === 1 ? '' : ` ×${n}`);

function connectText(c: Denials['connects'][number]): string {
  const host = c.address.includes(':') ? `[${c.address}]` : c.address;
  return `${host}:${c.port}/${c.proto}`;
}

function some<T>(items: readonly T[], more: number, text: (t: T) => string): string {
  const shown = items.slice(0, SHOWN).map(text);
  return `${shown.join(', ')}${items.length > SHOWN || more > 0 ? ', …' : ''}`;
}

/** `3 names refused (evil.example ×12, …); 2 connects rejected (10.0.0.5:443/tcp ×4)`. */
function deniedSummary(d: Denials): string {
  const names = d.names.length + d.names_more;
  const connects = d.connects.length + d.connects_more;
  if (names === 0 && connects === 0) return 'nothing refused';
  const parts: string[] = [];
  if (names > 0) {
    parts.push(
      `${names} name${names === 1 ? '' : 's'} refused (${some(d.names, d.names_more, (n) => `${n.name}${times(n.count)}`)})`,
    );
  }
  if (connects > 0) {
    parts.push(
      `${connects} connect${connects === 1 ? '' : 's'} rejected (${some(d.connects, d.connects_more, (c) => `${connectText(c)}${times(c.count)}`)})`,
    );
  }
  return parts.join('; ');
}

const clock = (iso: string): string => iso.replace('T', ' ').replace(/Z$/, ' UTC');

function whose(d: Denials): string {
  return d.of === 'last_session' ? `last session (ended ${clock(d.ended ?? '')}): ` : '';
}

/** The Denied rows: a summary in the default tier, one row per entry in the full tier. */
export function deniedRows(d: StatusData): ModelRow[] {
  const w = d.network.denials;
  if (w === null) return [];
  if (w.error !== null) {
    return [{ label: 'Denied', value: `unknown — ${w.error}`, kind: 'never-truncate' }];
  }
  const partial = w.partial ? '  (older events not read: counts are at least these)' : '';
  const summary = `${whose(w)}${deniedSummary(w)}${partial}`;
  const rows: ModelRow[] = [
    { label: 'Denied', value: summary, tier: 'default' },
    { label: 'Denied', value: summary, tier: 'full' },
  ];
  const span = (e: { first: string; last: string }): string =>
    e.first === e.last ? clock(e.first) : `first ${clock(e.first)}, last ${clock(e.last)}`;
  for (const n of w.names) {
    rows.push({
      label: '',
      continuation: true,
      tier: 'full',
      value: `name ${n.name}${times(n.count)}  (${n.qtypes.join(', ')}; ${span(n)})`,
    });
  }
  if (w.names_more > 0)
    rows.push({
      label: '',
      continuation: true,
      tier: 'full',
      value: `and ${w.names_more} more names`,
    });
  for (const c of w.connects) {
    rows.push({
      label: '',
      continuation: true,
      tier: 'full',
      value: `connect ${connectText(c)}${times(c.count)}  (${span(c)})`,
    });
  }
  if (w.connects_more > 0) {
    rows.push({
      label: '',
      continuation: true,
      tier: 'full',
      value: `and ${w.connects_more} more destinations`,
    });
  }
  if (w.names.length > 0) {
    rows.push({
      label: '',
      continuation: true,
      value: 'to allow a refused name: byre config (Egress); it applies at the next launch',
    });
  }
  return rows;
}
