// Directory access anchored at an open directory, never re-resolving a path
// from its root: each step opens one component with O_NOFOLLOW, and children
// are reached through /proc/self/fd/<fd>/<name> (openat in effect), so a
// directory swapped for a symlink mid-walk fails the open instead of
// redirecting it. Without /proc (macOS), paths are re-checked with lstat:
// the same refusals, with a race window adr/0004 records. Beside it, the
// files such a directory hands out: one opened for reading (no-follow,
// non-blocking, with its fstat) and one created exclusively for writing.
// deliver's tree walk and grab's landing do all their file IO through these.

import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  unlinkSync,
  writeSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import path from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_CREAT, O_EXCL, O_WRONLY } = constants;

const PROC = existsSync('/proc/self/fd');

/** `name` inside the directory open as `fd` (opened at `shown`), resolved from the fd. */
function childPath(fd: number, shown: string, name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) {
    throw new RangeError(`not a single path component: ${JSON.stringify(name)}`);
  }
  return PROC ? `/proc/self/fd/${fd}/${name}` : path.join(shown, name);
}

function notADirectory(): Error {
  return Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
}

/**
 * A directory open as a descriptor, with synchronous calls (deliver's walk
 * of a source tree, grab's writer): a tree is mostly small files, and a
 * thread-pool round trip per directory costs more than the syscall it carries.
 */
export class AnchoredDirSync {
  private constructor(
    readonly fd: number,
    /** The path it was opened at, for messages. */
    readonly shown: string,
  ) {}

  /** Opens `dir` itself; its final component must not be a symlink. */
  static open(dir: string): AnchoredDirSync {
    return new AnchoredDirSync(openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), dir);
  }

  /** A path naming `name` inside this directory, resolved from the open fd. */
  at(name: string): string {
    return childPath(this.fd, this.shown, name);
  }

  /** The directory itself (for readdir). */
  self(): string {
    return PROC ? `/proc/self/fd/${this.fd}` : this.shown;
  }

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /** Its entries, unsorted, each with the type readdir saw (a link is a link). */
  entries(): Dirent[] {
    return readdirSync(this.self(), { withFileTypes: true });
  }

  /**
   * Opens `name` for reading: its last component never followed (a link
   * fails with ELOOP), a FIFO never waited on. The caller judges the
   * handle's `stats` before reading.
   */
  openFile(name: string): HeldReadFile {
    return heldRead(openSync(this.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  }

  /** Creates `name` (EEXIST if anything is there, a link included) and opens it for writing. */
  createExclusive(name: string, mode: number): HeldWriteFile {
    return new HeldWriteFile(
      openSync(this.at(name), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, mode),
    );
  }

  /** mkdir `name` (EEXIST if anything is there). */
  makeDir(name: string, mode: number): void {
    mkdirSync(this.at(name), mode);
  }

  /** Hard-links `from` to `to`, both in this directory (EEXIST if `to` is taken; never replaces). */
  link(from: string, to: string): void {
    linkSync(this.at(from), this.at(to));
  }

  /** Unlinks `name`: a link is removed, never followed. */
  unlink(name: string): void {
    unlinkSync(this.at(name));
  }

  /** rmdir `name`: ENOTEMPTY, ENOTDIR (a link or file there) and ENOENT are thrown as they come. */
  removeDir(name: string): void {
    rmdirSync(this.at(name));
  }

  /** Opens child directory `name`; fails (ELOOP/ENOTDIR) on a symlink or non-directory. */
  openDir(name: string): AnchoredDirSync {
    if (!PROC && !lstatSync(this.at(name)).isDirectory()) throw notADirectory();
    const fd = openSync(this.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    return new AnchoredDirSync(fd, path.join(this.shown, name));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A descriptor open for reading, with its fstat; closed if the fstat fails. */
function heldRead(fd: number): HeldReadFile {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return new HeldReadFile(fd, stats);
}

/**
 * A file open for reading, with what fstat said of it at the open. Opened
 * non-blocking, so a FIFO planted where a file was answers at once instead
 * of waiting for a writer; the caller judges `stats` (a regular file?)
 * before reading.
 */
export class HeldReadFile {
  constructor(
    private readonly fd: number,
    readonly stats: Stats,
  ) {}

  /**
   * Opens `file`, following links: for a path the user named themselves (a
   * top-level deliver source may be a link). A tree's entries go through
   * AnchoredDirSync.openFile, which never follows.
   */
  static openFollowing(file: string): HeldReadFile {
    return heldRead(openSync(file, O_RDONLY | O_NONBLOCK));
  }

  /** One read of up to `length` bytes at `position` into `buf` at `offset`; 0 at the end. */
  readAt(buf: Uint8Array, offset: number, length: number, position: number): number {
    return readSync(this.fd, buf, offset, length, position);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * A file this process created (O_EXCL, never through a link), open for
 * writing. `fd` may be handed to a child as its stdout (grab's engine
 * client writes a file straight into it).
 */
export class HeldWriteFile {
  constructor(readonly fd: number) {}

  /** Writes all of `chunk`. */
  writeAll(chunk: Uint8Array): void {
    for (let off = 0; off < chunk.length;) off += writeSync(this.fd, chunk, off);
  }

  /** Its size now (a child may be writing it). */
  size(): number {
    return fstatSync(this.fd).size;
  }

  chmod(mode: number): void {
    fchmodSync(this.fd, mode);
  }

  close(): void {
    closeSync(this.fd);
  }
}
