// Volume and bind targets inside /workspace need a directory in the project
// to mount on. Left to the engine, a rootful one makes it as root, leaving a
// root-owned directory in the user's tree; byre makes it first, as the user.
// The project is the box's to write, so nothing here follows a link.

import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { WORKSPACE } from '../gen/box-layout.js';

/** Targets strictly inside /workspace, as `/`-separated paths relative to it, unique and sorted. Pure. */
export function workspaceMountPoints(targets: readonly string[]): string[] {
  const rels = targets.flatMap((t) => {
    const rel = path.posix.relative(WORKSPACE, path.posix.normalize(t));
    return rel === '' || rel.startsWith('..') || path.posix.isAbsolute(rel) ? [] : [rel];
  });
  return [...new Set(rels)].sort();
}

/**
 * Creates each mount point under `workspaceDir`, one component at a time,
 * never through a symlink: a component that is a link or not a directory
 * stops that path (the engine then decides), and is reported.
 */
export async function precreateMountPoints(
  workspaceDir: string,
  targets: readonly string[],
): Promise<string[]> {
  const skipped: string[] = [];
  for (const rel of workspaceMountPoints(targets)) {
    let dir = workspaceDir;
    for (const part of rel.split('/')) {
      dir = path.join(dir, part);
      try {
        await mkdir(dir, { mode: 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const info = await lstat(dir);
      if (!info.isDirectory()) {
        skipped.push(`${WORKSPACE}/${rel}`);
        break;
      }
    }
  }
  return skipped;
}
