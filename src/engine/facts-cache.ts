// The engine probe cache (adr/0038): `docker info`'s rootless answer and
// rootless podman's `--version`, remembered in the store under a key that
// names everything the answer depends on (facts-key.ts). All IO here is
// synchronous and small: a few stats and one bounded read, well under a
// millisecond, where an async call would first start bun's worker pool.

import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import path from 'node:path';

import { tempSiblingPath } from '../host/atomic-write.js';
import { readRegularFile } from '../host/read-regular.js';
import {
  decodeEntry,
  dockerConfigFile,
  dockerEndpoint,
  encodeEntry,
  engineEnv,
  probeKey,
  validAnswer,
  type CachedProbe,
  type DockerConfigText,
  type FileId,
} from './facts-key.js';

type Env = Readonly<Record<string, string | undefined>>;

export type CacheLookup =
  | { kind: 'hit'; answer: string }
  /** Not there (or stale): `store` keeps the fresh answer if the key still holds after the probe. */
  | { kind: 'miss'; store: (answer: string) => void }
  /** Not provably keyed: ask, and remember nothing. */
  | { kind: 'uncached' };

export interface ProbeCache {
  lookup(probe: CachedProbe, enginePath: string): CacheLookup;
}

/** The cache's directory in a store. */
function cacheDir(home: string): string {
  return path.join(home, 'cache', 'engine-facts');
}

const ENTRY_MAX_BYTES = 1024;
const CONFIG_MAX_BYTES = 1024 * 1024;

function fileId(st: BigIntStats): FileId {
  return {
    dev: String(st.dev),
    ino: String(st.ino),
    size: String(st.size),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
    birthtimeNs: String(st.birthtimeNs),
  };
}

/** ELF or Mach-O: a program whose answers come from its own bytes, not a script's. */
function nativeMagic(head: Buffer): boolean {
  if (head.length < 4) return false;
  const be = head.readUInt32BE(0);
  return be === 0x7f454c46 || [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(be);
}

/** The identity of the native executable at `p` (followed, as exec follows it), or null. */
export function executableId(p: string): FileId | null {
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) return null;
    const head = Buffer.alloc(4);
    const n = readSync(fd, head, 0, 4, 0);
    return nativeMagic(head.subarray(0, n)) ? fileId(st) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The identity of the socket at `p` (the last component not followed), or null. */
export function socketId(p: string): FileId | null {
  try {
    const st = lstatSync(p, { bigint: true });
    return st.isSocket() ? fileId(st) : null;
  } catch {
    return null;
  }
}

/** The docker CLI's config.json as the endpoint resolution reads it (no link, no FIFO, 1 MiB). */
export function readConfig(file: string): DockerConfigText {
  try {
    const read = readRegularFile(file, CONFIG_MAX_BYTES);
    if (read.kind === 'missing') return { kind: 'missing' };
    return read.kind === 'ok'
      ? { kind: 'ok', text: read.bytes.toString('utf8') }
      : { kind: 'unreadable' };
  } catch {
    return { kind: 'unreadable' };
  }
}

/** The key for one probe now, or null when the answer cannot be pinned to one. */
function currentKey(probe: CachedProbe, enginePath: string, env: Env, uid: number): string | null {
  const engine = executableId(enginePath);
  if (engine === null) return null;
  if (probe === 'podman-version')
    return probeKey({ probe, uid, engine: { path: enginePath, id: engine } });
  const configFile = dockerConfigFile(env);
  if (configFile === null) return null;
  const endpoint = dockerEndpoint(env, readConfig(configFile));
  if (endpoint.kind !== 'unix') return null;
  const socket = socketId(endpoint.path);
  if (socket === null) return null;
  return probeKey({
    probe,
    uid,
    engine: { path: enginePath, id: engine },
    socket: { path: endpoint.path, id: socket },
    env: engineEnv(env),
  });
}

function readEntry(file: string, key: string, probe: CachedProbe): string | null {
  try {
    const read = readRegularFile(file, ENTRY_MAX_BYTES);
    if (read.kind !== 'ok') return null;
    const answer = decodeEntry(read.bytes.toString('utf8'), key);
    return answer !== null && validAnswer(probe, answer) ? answer : null;
  } catch {
    return null;
  }
}

/** Replaces `file` whole (temp + rename); never creates the store itself. Best effort. */
function writeEntry(home: string, file: string, text: string): void {
  if (!existsSync(home)) return;
  const temp = tempSiblingPath(file);
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never written.
    }
  }
}

/** The probe cache in the store at `home`, for the user `uid`. */
export function storeProbeCache(home: string, env: Env, uid: number | undefined): ProbeCache {
  return {
    lookup(probe, enginePath) {
      if (uid === undefined) return { kind: 'uncached' };
      const key = currentKey(probe, enginePath, env, uid);
      if (key === null) return { kind: 'uncached' };
      const file = path.join(cacheDir(home), probe);
      const answer = readEntry(file, key, probe);
      if (answer !== null) return { kind: 'hit', answer };
      return {
        kind: 'miss',
        store: (fresh) => {
          // Kept only when nothing the key names changed while the probe ran.
          if (!validAnswer(probe, fresh) || currentKey(probe, enginePath, env, uid) !== key) return;
          writeEntry(home, file, encodeEntry(key, fresh));
        },
      };
    },
  };
}
