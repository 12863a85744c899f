// Directory access anchored at an open directory, never re-resolving a path
// from its root: each step opens one component with O_NOFOLLOW, and children
// are reached through /proc/self/fd/<fd>/<name> (openat in effect), so a
// directory swapped for a symlink mid-walk fails the open instead of
// redirecting it. Without /proc (macOS), paths are re-checked with lstat:
// the same refusals, with a race window adr/0004 records.

import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

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
