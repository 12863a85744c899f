// The real filesystem as path-walk.ts sees it: lstat and readlink, never
// following, never opening. Sync on purpose (canonical.ts says why).

import { lstatSync, readlinkSync } from 'node:fs';

import { walkPath, type PathKind, type PathView, type PathWalk } from './path-walk.js';

const hostPathView: PathView = {
  kind(abs: string): PathKind {
    try {
      const s = lstatSync(abs);
      if (s.isSymbolicLink()) return 'link';
      return s.isDirectory() ? 'dir' : 'other';
    } catch {
      // ENOENT, ENOTDIR, EACCES: nothing byre can look past.
      return 'missing';
    }
  },
  readlink(abs: string): string | null {
    try {
      return readlinkSync(abs, 'utf8');
    } catch {
      return null;
    }
  },
};

/** walkPath over the host's real filesystem. */
export function walkHostPath(given: string): PathWalk {
  return walkPath(given, hostPathView);
}
