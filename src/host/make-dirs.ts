// Making directories in a tree someone else can write (the project, which is
// the box's): one component at a time, never through a link. A component that
// is a link or not a directory stops the walk and is left as it is.

import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Makes each component of the relative `rel` (`/`-separated) under `root`,
 * with `mode`, keeping those that are already directories. False at the first
 * component that is a link or not a directory, true when all of `rel` is a
 * directory; any other error (EACCES …) is thrown. `root` itself is trusted.
 */
export async function makeDirsNoFollow(root: string, rel: string, mode: number): Promise<boolean> {
  let dir = root;
  for (const part of rel.split('/')) {
    dir = path.join(dir, part);
    try {
      await mkdir(dir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const info = await lstat(dir);
    if (!info.isDirectory()) return false;
  }
  return true;
}
