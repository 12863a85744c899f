// Removing what byre made on the host: a file, a record, a store directory.
// Never through a link: a link is removed itself, not what it points to, and
// a tree is walked without following the links inside it (rm's lstat walk),
// so a link a box planted in a store directory cannot steer a removal
// outside it. Something already absent is removed. A staged tree is put in
// place of an old one by rename, the old removed only once the new is in.

import { renameSync, rmdirSync, rmSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { entryKind } from './path-view.js';

/** Removes the entry at `p` (a link itself, never its target); absent is done. */
export async function removeEntry(p: string): Promise<void> {
  await rm(p, { force: true });
}

/** removeEntry for a synchronous caller. */
export function removeEntrySync(p: string): void {
  rmSync(p, { force: true });
}

/** Removes the tree at `p`, its links removed and never followed; absent is done. */
export async function removeTree(p: string): Promise<void> {
  await rm(p, { recursive: true, force: true });
}

/** removeTree for a synchronous caller. */
export function removeTreeSync(p: string): void {
  rmSync(p, { recursive: true, force: true });
}

/** Removes the directory `dir` only when it is empty (rmdir: never a link, never a file); false when it was not removed. */
export function removeEmptyDirSync(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Puts the directory `staged` (built beside it) at `target`: whatever tree
 * was there is removed first, its links never followed, then `staged` is
 * renamed into place. Not atomic: a crash between the two leaves no
 * `target`, which the callers' verification treats as not installed.
 */
export async function replaceTree(staged: string, target: string): Promise<void> {
  await removeTree(target);
  await rename(staged, target);
}

/**
 * Puts the directory `staged` (built beside it) at `target` with the old tree
 * kept until the new one is in: whatever stale tree is at `aside` is removed,
 * what is at `target` (a link itself, never its target) is renamed to
 * `aside`, `staged` is renamed into place, and only then `aside` is removed.
 * Every removal is removeTree's, its links never followed. A failure is
 * thrown as the OS gave it.
 */
export function swapTreeInSync(staged: string, target: string, aside: string): void {
  removeTreeSync(aside);
  const had = entryKind(target) !== 'missing';
  if (had) renameSync(target, aside);
  renameSync(staged, target);
  if (had) removeTreeSync(aside);
}

/**
 * Renames the directory `staged` (built beside it) to `target`, which must be
 * absent or an empty directory: a tree with content there is never replaced
 * (ENOTEMPTY or EEXIST), nor a file or a link (ENOTDIR), and rename(2)
 * follows nothing. So of two writers racing to publish, the second fails.
 */
export async function moveTreeIn(staged: string, target: string): Promise<void> {
  await rename(staged, target);
}

/**
 * Puts the directory `staged` at `target`, whatever tree was there kept at
 * `aside` until the new one is in, then removed without following a link in
 * it; when `staged` cannot be put in, the old tree is put back. Nothing at
 * `target` is fine; any other failure is thrown as the OS gave it.
 */
export async function swapTreeIn(staged: string, target: string, aside: string): Promise<void> {
  let moved = false;
  try {
    await rename(target, aside);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    await rename(staged, target);
  } catch (error) {
    if (moved) await rename(aside, target).catch(() => undefined);
    throw error;
  }
  if (moved) await removeTree(aside);
}
