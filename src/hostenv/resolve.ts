// env_from_host resolution: which host values cross into the box, and why the
// others did not. Pure over injected readers; values never leave this result
// except as `-e` pairs at create (never baked, never in a launch record).

import type { Sourced } from '../config/types.js';
import { isCredentialSource } from '../config/credential-rows.js';
import { isInjectedSource } from '../config/inject.js';

type HostEnvState = 'delivered' | 'disabled' | 'overridden' | 'empty';

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

/**
 * A git config key as `git config --list` spells it: the section and the
 * variable name lower-cased, a subsection (`branch.Main.remote`) kept as
 * written. Null for a key git would refuse (no section).
 */
export function canonicalGitKey(key: string): string | null {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return null;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return first === last ? `${section}.${name}` : `${section}${key.slice(first, last)}.${name}`;
}

/**
 * `git config --list -z` output as a map from canonical key to value: each
 * entry is `key\nvalue\0`, or `key\0` for a key with no value (read as "").
 * A key set more than once keeps its last value, as `git config --get` does.
 */
export function parseGitConfigList(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of text.split('\0')) {
    if (entry === '') continue;
    const nl = entry.indexOf('\n');
    const key = nl === -1 ? entry : entry.slice(0, nl);
    out.set(key, nl === -1 ? '' : entry.slice(nl + 1));
  }
  return out;
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
    .filter((key) => {
      const source = (envFromHost[key] as Sourced<string>).value;
      return !isCredentialSource(source) && !isInjectedSource(source);
    })
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
