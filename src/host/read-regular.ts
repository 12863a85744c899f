// The one way byre reads a small file that someone else could have planted:
// never through a symbolic link (the last component), never blocking on a
// FIFO, only a regular file, and never more than a cap. Config files, git's
// worktree pointers and [[context]] files all come through here.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

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

function readRegular(path: string, cap: number, over: 'refuse' | 'truncate'): RegularRead {
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
  try {
    const stat = fstatSync(fd);
    const what = kindOf(stat);
    if (what !== null) return { kind: 'not-regular', what };
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
