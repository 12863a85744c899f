// How much room a filesystem has, for doctor's engine storage check:
// statfs(2) of a path byre was told (the engine's storage root), which reads
// no file and follows the path as the engine itself would.

import { statfsSync } from 'node:fs';

/** Bytes free to this user and bytes in all on the filesystem holding `p`; throws as statfs does. */
export function diskSpace(p: string): { freeBytes: number; totalBytes: number } {
  const s = statfsSync(p);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
