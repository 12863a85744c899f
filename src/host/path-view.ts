// What is at a host path, looked at without following it: lstat and
// readlink, never opening. The walk over these (project/path-walk.ts) is
// pure; this is the one place it touches the disk. Beside them the two
// looks that follow links, for a yes/no only: whether a path reaches
// anything, and a directory's entry names; neither opens a file, so neither
// waits on a FIFO (a read goes through read-regular.ts, which never follows
// the last link). The throwing forms (lstatEntry, readLink, listEntries) are
// for walks that tell one error from another. Sync on purpose (canonical.ts
// says why).

import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  statSync,
} from 'node:fs';
import type { Stats } from 'node:fs';

export type { Stats };

/** What is at a path, its last component not followed; `missing` for anything byre cannot look past. */
export type EntryKind = 'file' | 'dir' | 'link' | 'other' | 'missing';

/** A path's last component as the path walk sees it: a file is just `other`. */
type LinkKind = Exclude<EntryKind, 'file'>;

/** lstat's answer for `abs`: a link is never followed; ENOENT, ENOTDIR and EACCES are all `missing`. */
export function entryKind(abs: string): EntryKind {
  try {
    const s = lstatSync(abs);
    if (s.isSymbolicLink()) return 'link';
    if (s.isFile()) return 'file';
    return s.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

/** entryKind without telling a file from a FIFO, socket or device. */
export function lstatKind(abs: string): LinkKind {
  const kind = entryKind(abs);
  return kind === 'file' ? 'other' : kind;
}

/** lstat(2) of `abs`: the entry itself, a link never followed. Throws as lstat does (ENOENT …). */
export function lstatEntry(abs: string): Stats {
  return lstatSync(abs);
}

/** stat(2) of `abs`, links followed: for a path the user named themselves (a deliver source). Throws as stat does. */
export function statFollowing(abs: string): Stats {
  return statSync(abs);
}

/** lstatEntry, or null when nothing is there (ENOENT, ENOTDIR); any other error is thrown. */
export function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** The link text at `abs`. Throws as readlink(2) does (EINVAL for a non-link, ENOENT …). */
export function readLink(abs: string): string {
  return readlinkSync(abs, 'utf8');
}

/** The link text at `abs`, or null when it is not a link or cannot be read. */
export function readlinkOrNull(abs: string): string | null {
  try {
    return readLink(abs);
  } catch {
    return null;
  }
}

/** Whether this user may search (a directory) or run (a file) `abs`: access(2) with X_OK, links followed. */
export function maySearch(abs: string): boolean {
  try {
    accessSync(abs, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `abs` reaches anything, links followed: false for a dangling link
 * and for anything byre cannot look past (ENOENT, ENOTDIR, EACCES). A yes/no
 * only: never a check before reading what is there.
 */
export function pathExists(abs: string): boolean {
  return existsSync(abs);
}

/**
 * Whether `abs` reaches a directory, links followed (a local package may be a
 * link to a checkout): a yes/no only, false for anything byre cannot look past.
 */
export function reachesDirectory(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `abs` reaches a regular file, links followed: a yes/no only, false for anything byre cannot look past. */
export function reachesRegularFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether anything is at `abs` as one who may be allowed where byre is not
 * sees it (an engine's mount source): links followed, and only ENOENT and
 * ENOTDIR are absent; EACCES and the like say something is there.
 */
export function presentUnlessMissing(abs: string): boolean {
  try {
    statSync(abs);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

/** The entry names of the directory at `dir` (a link to one followed), in the system's order. Throws as readdir does. */
export function listEntries(dir: string): string[] {
  return readdirSync(dir);
}

/** listEntries, empty when the directory cannot be listed. */
export function entryNames(dir: string): string[] {
  try {
    return listEntries(dir);
  } catch {
    return [];
  }
}
