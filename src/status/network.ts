// The network facts of the status page: posture, what degrades its claim, the
// egress a box may reach, what is offered but closed, and what each closure
// does under the posture. Pure; it states only what the posture enforces, so
// an entry that is not a grant (skill egress on an open network) is not listed.

import { closureReaches, parseEgressEntry } from '../config/egress-entry.js';
import type { EffectiveConfig, EgressEntry, LayerRef } from '../config/types.js';
import { NETWORK_CLAIM } from '../gen/box-layout.js';
import { deriveBoxEgress, parseRecordedEgress } from '../gen/allowlist.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { StatusData } from './data-schema.js';

type Network = StatusData['network'];
type ClosureState = Network['closed'][number]['state'];

export const ALLOWLIST_POSTURE = 'deny-by-default';
export const DENYLIST_POSTURE = 'open-denylist';
export const RECORD_SOURCE = 'launch record';

interface NetworkInput {
  config: EffectiveConfig;
  skills: readonly ResolvedSkill[];
  skillError: string | null;
  posture: string;
  postureSkill: string | null;
  /** A verified record's egress after closures; attribution still comes from config. */
  recorded: readonly string[] | null;
  projectRunArgs: boolean;
  rawBuild: boolean;
  reserved: StatusData['reserved_env'];
  label: (from: LayerRef) => string;
}

/**
 * What present could make the posture claim untrue. Raw run_args can change
 * any network (`--network host` or `none` on an open box too); raw build lines
 * and reserved keys only skew a firewall's own machinery.
 */
function degradations(n: NetworkInput, posture: string): string[] {
  if (posture === 'unknown') return [];
  const runArgs = n.projectRunArgs ? ['raw run_args'] : [];
  if (posture === 'open') return runArgs;
  return [
    ...runArgs,
    ...(n.rawBuild ? ['raw build lines'] : []),
    ...n.reserved
      .filter((r) => r.claims.includes(NETWORK_CLAIM))
      .map((r) => `reserved ${r.key} (${r.skill})`),
  ];
}

/** What a closure does under a posture: only a firewall acts on it. */
function closureState(posture: string): ClosureState {
  switch (posture) {
    case ALLOWLIST_POSTURE:
      return 'enforced';
    case DENYLIST_POSTURE:
      return 'blocked';
    case 'unknown':
      return 'unknown';
    default:
      return 'unenforced';
  }
}

const key = (e: { host: string; port: number | null }): string => `${e.host}:${e.port}`;

/**
 * egress_offered entries (template and layer config, and skills) that an
 * allowlist does not already open: the doors a user may choose to open. An
 * entry a closure covers is not offered: the user shut it on purpose.
 */
function offeredEgress(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  open: ReadonlySet<string>,
  label: (from: LayerRef) => string,
): Network['offered'] {
  const declared: { entry: EgressEntry; source: string }[] = [
    ...config.egressOffered.map((e) => ({ entry: e.value, source: label(e.from) })),
    ...skills.flatMap((s) =>
      s.runtime.egressOffered.flatMap((raw) => {
        const parsed = parseEgressEntry(raw);
        return parsed.ok && !parsed.closure ? [{ entry: parsed.entry, source: s.id }] : [];
      }),
    ),
  ];
  const out: Network['offered'] = [];
  for (const { entry, source } of declared) {
    if (entry.port === null || open.has(key(entry))) continue;
    if (config.egressClosed.some((c) => closureReaches(c.value, entry))) continue;
    const seen = out.find((o) => o.host === entry.host && o.port === entry.port);
    if (seen === undefined) out.push({ host: entry.host, port: entry.port, source: [source] });
    else if (!seen.source.includes(source)) seen.source.push(source);
  }
  return out;
}

export function networkFacts(n: NetworkInput): Network {
  const { config, skills } = n;
  const derived = deriveBoxEgress(config, skills, n.label);
  const posture = n.skillError !== null ? 'unknown' : n.posture;
  const degradedBy = degradations(n, posture);
  const allow = posture === ALLOWLIST_POSTURE;
  // On an open network no egress entry is a grant: only what the user wrote
  // in `egress` is listed, so they see it does nothing there.
  let egress: Network['egress'] = derived.entries
    .filter((e) => allow || e.sources.includes('config'))
    .map((e) => ({
      host: e.host,
      port: e.port,
      source: e.sources,
      enforced: allow && e.closedBy === null && degradedBy.length === 0,
      closed_by: e.closedBy,
      resolution: null,
    }));
  if (n.recorded !== null && allow) {
    // The box's own allowlist: attribute what config still explains.
    egress = n.recorded.map((text) => {
      const entry = parseRecordedEgress(text);
      const known = derived.entries.find((e) => `${e.host}:${e.port}` === text);
      return {
        host: entry.host,
        port: entry.port ?? 0,
        source: known?.sources ?? [RECORD_SOURCE],
        enforced: degradedBy.length === 0,
        closed_by: null,
        resolution: null,
      };
    });
  }
  const open = new Set(egress.filter((e) => e.closed_by === null).map(key));
  const state = closureState(posture);
  return {
    posture,
    posture_skill: n.postureSkill,
    warranted: posture !== 'open' && posture !== 'unknown' && degradedBy.length === 0,
    degraded_by: degradedBy,
    egress,
    offered: allow ? offeredEgress(config, skills, open, n.label) : [],
    closed: derived.closures.map((c) => ({ entry: c.text, source: c.source, state })),
    denials: null,
  };
}
