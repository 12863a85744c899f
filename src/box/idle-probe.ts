// The facts behind adr/0039's proof that local Podman runs no container for
// this user (the process table, every containers.conf, the client's real
// path), and the pool less such an engine. Shared by deliver and grab's
// discovery and by `byre status`'s scan: an engine that provably runs no
// container would answer "no boxes", so neither waits for its `ps`.

import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

import { readRegularFile } from '../project/read-regular.js';
import { podmanProvablyIdle } from './idle-engine.js';
import type { EnginePool } from './pool.js';

/** `/proc/<pid>/stat` of every process this user can see; null when /proc cannot be read. */
function processStats(): string[] | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  const stats: string[] = [];
  for (const pid of pids) {
    try {
      stats.push(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // Gone since the listing, or hidden: a hidden process is another user's.
    }
  }
  return stats;
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

/**
 * The pool less the engines that provably run no container for this user
 * (adr/0039): their `ps` would list nothing, so discovery's answer, and
 * every choice made from it, is the same without waiting for it.
 */
export function withoutIdleEngines(
  pool: EnginePool,
  env: Readonly<Record<string, string | undefined>>,
): EnginePool {
  const podman = pool.members.find((m) => m.name === 'podman');
  if (podman === undefined || podman.state !== 'ok') return pool;
  let clientPath: string | null;
  try {
    clientPath = realpathSync(podman.engine.facts.path);
  } catch {
    clientPath = null;
  }
  const idle = podmanProvablyIdle({
    platform: process.platform,
    env,
    clientPath,
    processStats: process.platform === 'linux' ? processStats() : null,
    containersConf: containersConf(env),
  });
  return idle ? { members: pool.members.filter((m) => m !== podman) } : pool;
}
