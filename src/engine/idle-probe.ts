// The facts behind adr/0039's proof that local Podman runs no container for
// this user (the process table, every containers.conf, the client's real
// path), and the pool less such an engine. Shared by deliver and grab's
// discovery and by `byre status`'s scan: an engine that provably runs no
// container would answer "no boxes", so neither waits for its `ps`. The same
// process table names the containers podman's monitors watch (adr/0044).

import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

import { executableId } from './facts-cache.js';
import { readRegularFile } from '../host/read-regular.js';
import {
  podmanCensus,
  podmanIsLocal,
  podmanProvablyIdle,
  processNameState,
  type ProcessView,
} from './idle-engine.js';
import type { EnginePool } from './pool.js';

/** `/proc/<pid>/stat` of every process this user can see, by pid; null when /proc cannot be read. */
function processStats(): { pid: string; stat: string }[] | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  const stats: { pid: string; stat: string }[] = [];
  for (const pid of pids) {
    try {
      stats.push({ pid, stat: readFileSync(`/proc/${pid}/stat`, 'utf8') });
    } catch {
      // Gone since the listing, or hidden: a hidden process is another user's.
    }
  }
  return stats;
}

/**
 * Owner and argv of each process that may be a `conmon` (a stat line that
 * does not parse may be one); other processes are only counted.
 */
function monitorViews(stats: readonly { pid: string; stat: string }[]): ProcessView[] {
  const out: ProcessView[] = [];
  for (const { pid, stat } of stats) {
    const p = processNameState(stat);
    if (p !== null && p.name !== 'conmon') continue;
    let owner: number | null;
    try {
      owner = statSync(`/proc/${pid}`).uid;
    } catch (error) {
      // Gone since the listing: it watches nothing now.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      owner = null;
    }
    let argv: string[] | null;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch (error) {
      // Gone since its stat was read: it watches nothing now.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      argv = null;
    }
    out.push({ stat, owner, argv });
  }
  return out;
}

const CONF_NAME = /^containers(\.rootful|\.rootless)?\.conf$/;
const CONF_MAX_BYTES = 1024 * 1024;
const CONF_DIR = /^containers(\.rootful|\.rootless)?\.conf\.d$/;

/** Every containers.conf podman reads (system, admin, user; drop-in directories too); null if one is unreadable. */
function containersConf(env: Readonly<Record<string, string | undefined>>): string[] | null {
  const home = env['HOME'] ?? '';
  const user = env['XDG_CONFIG_HOME'] ?? (home === '' ? '' : path.join(home, '.config'));
  const dirs = ['/usr/share/containers', '/etc/containers'];
  if (user !== '') dirs.push(path.join(user, 'containers'));
  const texts: string[] = [];
  // Read as every other small config file: no link, no FIFO, bounded. One
  // that is not plainly readable ends the proof (podman is then asked).
  const read = (file: string): boolean => {
    try {
      const got = readRegularFile(file, CONF_MAX_BYTES);
      if (got.kind === 'missing') return true;
      if (got.kind !== 'ok') return false;
      texts.push(got.bytes.toString('utf8'));
      return true;
    } catch {
      return false;
    }
  };
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return null;
    }
    for (const name of names) {
      if (CONF_NAME.test(name) && !read(path.join(dir, name))) return null;
      if (!CONF_DIR.test(name)) continue;
      let dropIns: string[];
      try {
        dropIns = readdirSync(path.join(dir, name));
      } catch {
        return null;
      }
      for (const d of dropIns)
        if (d.endsWith('.conf') && !read(path.join(dir, name, d))) return null;
    }
  }
  return texts;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Owned by root and writable by no one else. */
function rootOnly(p: string): boolean {
  const st = statSync(p);
  return st.uid === 0 && (st.mode & 0o022) === 0;
}

/**
 * A native executable (adr/0038's executableId) that only root can change,
 * in a directory only root can change: how a distribution installs podman.
 * A script, or a program a user put on PATH, may run podman as anyone.
 */
export function systemExecutable(file: string): boolean {
  try {
    return executableId(file) !== null && rootOnly(file) && rootOnly(path.dirname(file));
  } catch {
    return false;
  }
}

/** One read of what the proofs need: podman's member, its client's real path, containers.conf, /proc. */
function scanPodman(pool: EnginePool, env: Env) {
  const podman = pool.members.find((m) => m.name === 'podman');
  if (podman === undefined || podman.state !== 'ok') return null;
  let clientPath: string | null;
  try {
    clientPath = realpathSync(podman.engine.facts.path);
  } catch {
    clientPath = null;
  }
  const stats = process.platform === 'linux' ? processStats() : null;
  const facts = {
    platform: process.platform,
    env,
    clientPath,
    processStats: stats?.map((p) => p.stat) ?? null,
    containersConf: containersConf(env),
  };
  return { podman, facts, stats };
}

/**
 * The pool less the engines that provably run no container for this user
 * (adr/0039): their `ps` would list nothing, so discovery's answer, and
 * every choice made from it, is the same without waiting for it.
 */
export function withoutIdleEngines(pool: EnginePool, env: Env): EnginePool {
  return transferPool(pool, env, null).pool;
}

/**
 * withoutIdleEngines' pool, plus the containers that local podman's live
 * monitors owned by `uid` watch (adr/0044), from the same reads. `monitored`
 * is null when podman is not in the pool, not provably local, or a monitor
 * cannot be read: then only asking podman tells what runs.
 */
export function transferPool(
  pool: EnginePool,
  env: Env,
  uid: number | null,
): { pool: EnginePool; monitored: string[] | null } {
  const scan = scanPodman(pool, env);
  if (scan === null) return { pool, monitored: null };
  if (podmanProvablyIdle(scan.facts)) {
    return { pool: { members: pool.members.filter((m) => m !== scan.podman) }, monitored: null };
  }
  if (uid === null || scan.stats === null || !podmanIsLocal(scan.facts)) {
    return { pool, monitored: null };
  }
  const clientTrusted = scan.facts.clientPath !== null && systemExecutable(scan.facts.clientPath);
  return { pool, monitored: podmanCensus({ clientTrusted, uid, views: monitorViews(scan.stats) }) };
}
