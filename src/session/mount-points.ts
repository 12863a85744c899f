// Volume and bind targets inside /workspace need a directory in the project
// to mount on. Left to the engine, a rootful one makes it as root, leaving a
// root-owned directory in the user's tree; byre makes it first, as the user.
// The project is the box's to write, so nothing here follows a link.

import path from 'node:path';
import { WORKSPACE } from '../gen/box-layout.js';
import { makeDirsNoFollow } from '../host/make-dirs.js';

/** Targets strictly inside /workspace, as `/`-separated paths relative to it, unique and sorted. Pure. */
function workspaceMountPoints(targets: readonly string[]): string[] {
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
    if (!(await makeDirsNoFollow(workspaceDir, rel, 0o755))) skipped.push(`${WORKSPACE}/${rel}`);
  }
  return skipped;
}
