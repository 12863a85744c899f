// The one symbolic link byre makes on the host: an adopted checkout linked
// into the store. Made only where nothing is (symlink(2) never replaces and
// never follows what stands at the link's own path); removed, as every entry
// is, by remove.ts without following it.

import { symlink } from 'node:fs/promises';

/**
 * Makes a link at `linkPath` leading to the directory `target` (its text as
 * given). Throws EEXIST when anything is at `linkPath`, a dangling link
 * included, and leaves it as it was.
 */
export async function linkNewDir(target: string, linkPath: string): Promise<void> {
  await symlink(target, linkPath, 'dir');
}
