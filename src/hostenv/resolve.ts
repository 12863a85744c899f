// env_from_host resolution: which host values cross into the box, and why the
// others did not. Pure over injected readers; values never leave this result
// except as `-e` pairs at create (never baked, never in a launch record).

import type { Sourced } from '../config/types.js';
import { isCredentialSource } from '../config/credential-rows.js';

export type HostEnvState = 'delivered' | 'disabled' | 'overridden' | 'empty';

export interface HostEnvEntry {
  key: string;
  /** The source as written: `git:user.name`, `env:TERM`, `tz:`, or "". */
  source: string;
  state: HostEnvState;
  /** Present only when delivered. */
  value?: string;
  from: Sourced<string>['from'];
}

export interface HostReaders {
  git(key: string): string | null;
  env(name: string): string | null;
  tz(): string | null;
}

function read(source: string, readers: HostReaders): string | null {
  if (source.startsWith('git:')) return readers.git(source.slice(4));
  if (source.startsWith('env:')) return readers.env(source.slice(4));
  if (source === 'tz:') return readers.tz();
  return null;
}

/**
 * Resolve every env_from_host entry. An explicit [env] key beats the
 * passthrough ("overridden"); "" disables; a source that resolves empty sets
 * nothing. Sorted by key so output is stable. Encrypted rows ask the host
 * for nothing and never travel as `-e`: credentials/rows.ts owns them.
 */
export function resolveHostEnv(
  envFromHost: Record<string, Sourced<string>>,
  explicitEnvKeys: ReadonlySet<string>,
  readers: HostReaders,
): HostEnvEntry[] {
  return Object.keys(envFromHost)
    .filter((key) => !isCredentialSource((envFromHost[key] as Sourced<string>).value))
    .sort()
    .map((key): HostEnvEntry => {
      const sourced = envFromHost[key] as Sourced<string>;
      const base = { key, source: sourced.value, from: sourced.from };
      if (sourced.value === '') return { ...base, state: 'disabled' };
      if (explicitEnvKeys.has(key)) return { ...base, state: 'overridden' };
      const value = read(sourced.value, readers);
      if (value === null || value === '') return { ...base, state: 'empty' };
      return { ...base, state: 'delivered', value };
    });
}

/** The delivered pairs only, for the run argv. */
export function deliveredHostEnv(entries: readonly HostEnvEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries)
    if (e.state === 'delivered' && e.value !== undefined) out[e.key] = e.value;
  return out;
}

/** The IANA zone name from a /etc/localtime symlink target, if it names one. */
export function zoneFromLocaltimeTarget(target: string): string | null {
  const marker = 'zoneinfo/';
  const at = target.lastIndexOf(marker);
  if (at < 0) return null;
  const zone = target.slice(at + marker.length);
  return /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(zone) ? zone : null;
}
