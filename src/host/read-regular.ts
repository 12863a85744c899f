// The one way byre reads a small file that someone else could have planted:
// never through a symbolic link (the last component), never blocking on a
// FIFO, only a regular file, and never more than a cap. Config files, git's
// worktree pointers and [[context]] files all come through here. A file of any
// size that is only hashed (a staged build context) is streamed through the
// hash in bounded chunks, opened the same way. A file the user named to send
// (deliver's one file) is the one read that follows its last link -- it is the
// user's own path -- but it too never waits on a FIFO and is only a regular file.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/** What is at a path that is not a readable regular file, as data. */
export type NotRegular = 'symlink' | 'directory' | 'fifo' | 'socket' | 'device' | 'other';

export type RegularRead =
  | { kind: 'missing' }
  | { kind: 'not-regular'; what: NotRegular }
  | { kind: 'too-large'; size: number }
  | { kind: 'ok'; bytes: Buffer; mode: number };

/** Words for a NotRegular in messages ("a FIFO"). */
export function describeNotRegular(what: NotRegular): string {
  switch (what) {
    case 'symlink':
      return 'a symbolic link';
    case 'directory':
      return 'a directory';
    case 'fifo':
      return 'a FIFO';
    case 'socket':
      return 'a socket';
    case 'device':
      return 'a device';
    case 'other':
      return 'not a regular file';
  }
}

function kindOf(stat: Stats): NotRegular | null {
  if (stat.isFile()) return null;
  if (stat.isDirectory()) return 'directory';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isBlockDevice() || stat.isCharacterDevice()) return 'device';
  if (stat.isSymbolicLink()) return 'symlink';
  return 'other';
}

/**
 * Read to the end, but at most `limit` bytes; the size cap is checked before
 * the text is decoded or parsed. The buffer starts at `expected` bytes (the
 * size fstat saw, plus one to see the end in the same pass) and doubles while
 * the file has more: a 200-byte config does not zero a 1 MiB buffer.
 */
export function readCapped(fd: number, limit: number, expected = limit): Buffer {
  let buffer = Buffer.alloc(Math.max(1, Math.min(limit, expected)));
  let length = 0;
  while (length < limit) {
    if (length === buffer.length) {
      const grown = Buffer.alloc(Math.min(limit, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, null);
    if (n === 0) break;
    length += n;
  }
  return buffer.subarray(0, length);
}

/**
 * Opens `path` with O_NOFOLLOW|O_NONBLOCK, fstats the descriptor, and reads
 * it only when it is a regular file of at most `cap` bytes. A missing path
 * (or a missing parent) is `missing`; other errors (EACCES …) are thrown.
 */
export function readRegularFile(path: string, cap: number): RegularRead {
  return readRegular(path, cap, 'refuse');
}

/**
 * The first `n` bytes of a regular file at most, opened as readRegularFile
 * opens it (no link, no FIFO): for a reader that, like git reading `HEAD`,
 * looks only at the start of a file of any size.
 */
export function readRegularHead(path: string, n: number): RegularRead {
  return readRegular(path, n, 'truncate');
}

/** A regular file held open: its descriptor, its size then, and a stream from its start that leaves the descriptor open. */
interface OpenRegularFile {
  fd: number;
  size: number;
  stream: () => Readable;
}

/**
 * `fn` over the regular file at `path`, its last link followed (the user
 * named it), opened O_NONBLOCK so a FIFO is refused, never waited on; closed
 * once `fn` settles. A missing path is `missing`; other open errors are thrown.
 */
export async function withNamedRegularFile<T>(
  path: string,
  fn: (file: OpenRegularFile) => Promise<T>,
): Promise<
  { kind: 'missing' } | { kind: 'not-regular'; what: NotRegular } | { kind: 'ok'; value: T }
> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ENXIO') return { kind: 'not-regular', what: 'socket' };
    throw error;
  }
  try {
    const stat = await fh.stat();
    const what = kindOf(stat);
    if (what !== null) return { kind: 'not-regular', what };
    const handle = fh;
    const value = await fn({
      fd: fh.fd,
      size: stat.size,
      stream: () => handle.createReadStream({ autoClose: false, start: 0 }),
    });
    return { kind: 'ok', value };
  } finally {
    await fh.close();
  }
}

type Opened =
  | { kind: 'missing' }
  | { kind: 'not-regular'; what: NotRegular }
  | { kind: 'open'; fd: number; stat: Stats };

/** Opens `path` with O_NOFOLLOW|O_NONBLOCK and keeps the descriptor only for a regular file; the caller closes it. */
function openRegular(path: string): Opened {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP') return { kind: 'not-regular', what: 'symlink' };
    // A socket cannot be opened at all; it is refused like any other non-file.
    if (code === 'ENXIO') return { kind: 'not-regular', what: 'socket' };
    throw error;
  }
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const what = kindOf(stat);
  if (what === null) return { kind: 'open', fd, stat };
  closeSync(fd);
  return { kind: 'not-regular', what };
}

function readRegular(path: string, cap: number, over: 'refuse' | 'truncate'): RegularRead {
  const opened = openRegular(path);
  if (opened.kind !== 'open') return opened;
  const { fd, stat } = opened;
  try {
    if (over === 'truncate') {
      return { kind: 'ok', bytes: readCapped(fd, cap, stat.size + 1), mode: stat.mode & 0o7777 };
    }
    if (stat.size > cap) return { kind: 'too-large', size: stat.size };
    // One byte over the cap catches a file that grew after the stat.
    const bytes = readCapped(fd, cap + 1, stat.size + 1);
    if (bytes.length > cap) return { kind: 'too-large', size: bytes.length };
    return { kind: 'ok', bytes, mode: stat.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

type RegularHash =
  | { kind: 'missing' }
  | { kind: 'not-regular'; what: NotRegular }
  | { kind: 'ok'; sha256: string; mode: number };

const HASH_CHUNK = 64 * 1024;

/**
 * The sha256 of a regular file, opened as readRegularFile opens it (no link,
 * no FIFO), read in 64 KiB chunks so its size costs time, never memory.
 */
export function sha256OfRegularFile(path: string): RegularHash {
  const opened = openRegular(path);
  if (opened.kind !== 'open') return opened;
  const { fd, stat } = opened;
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(HASH_CHUNK);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
    return { kind: 'ok', sha256: hash.digest('hex'), mode: stat.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}
