// Making directories in a tree someone else can write (the project, which is
// the box's): one component at a time, never through a link. A component that
// is a link or not a directory stops the walk and is left as it is. Beside it,
// a private directory of byre's own store, refused when it is not one, and the
// plain mkdir -p of a path in the user's own tree (never a box's).

import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
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

/**
 * Makes `dir` (and its parents) 0700, refuses it when it is a link or not a
 * directory, and tightens one made looser back to 0700. Throws on refusal
 * and on any OS error.
 */
export function ensurePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** Makes the one directory `dir` with `mode` (its parent must exist); throws EEXIST when anything is there, a link included. */
export function makeDirSync(dir: string, mode: number): void {
  mkdirSync(dir, { mode });
}

/**
 * mkdir -p of `dir` in the user's own tree (their home's application
 * folders, byre's home), each component it makes with `mode` (under the
 * umask); links along it are followed, as the user's own are. Never for a
 * tree a box can write: that is makeDirsNoFollow. Throws on any OS error.
 */
export function makeUserDirsSync(dir: string, mode = 0o777): void {
  mkdirSync(dir, { recursive: true, mode });
}
