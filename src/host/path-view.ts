// What is at a host path, looked at without following it: lstat and
// readlink, never opening. The walk over these (project/path-walk.ts) is
// pure; this is the one place it touches the disk. Sync on purpose
// (canonical.ts says why).

import { lstatSync, readlinkSync } from 'node:fs';

/** What is at a path, its last component not followed; `missing` for anything byre cannot look past. */
export type EntryKind = 'file' | 'dir' | 'link' | 'other' | 'missing';

/** A path's last component as the path walk sees it: a file is just `other`. */
export type LinkKind = Exclude<EntryKind, 'file'>;

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

/** The link text at `abs`, or null when it is not a link or cannot be read. */
export function readlinkOrNull(abs: string): string | null {
  try {
    return readlinkSync(abs, 'utf8');
  } catch {
    return null;
  }
}
