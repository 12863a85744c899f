// Removing what byre made on the host: a file, a record, a store directory.
// Never through a link: a link is removed itself, not what it points to, and
// a tree is walked without following the links inside it (rm's lstat walk),
// so a link a box planted in a store directory cannot steer a removal
// outside it. Something already absent is removed.

import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

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
