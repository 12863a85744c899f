// What is at a host path, looked at without following it: lstat and
// readlink, never opening. The walk over these (project/path-walk.ts) is
// pure; this is the one place it touches the disk. Sync on purpose
// (canonical.ts says why).

import { lstatSync, readlinkSync } from 'node:fs';

/** A path's last component as the walk sees it; `missing` for anything byre cannot look past. */
export type LinkKind = 'link' | 'dir' | 'other' | 'missing';

/** lstat's answer for `abs`: a link is never followed; ENOENT, ENOTDIR and EACCES are all `missing`. */
export function lstatKind(abs: string): LinkKind {
  try {
    const s = lstatSync(abs);
    if (s.isSymbolicLink()) return 'link';
    return s.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

/** The link text at `abs`, or null when it is not a link or cannot be read. */
export function readlinkOrNull(abs: string): string | null {
  try {
    return readlinkSync(abs, 'utf8');
  } catch {
    return null;
  }
}
