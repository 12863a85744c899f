// ~/.byre/AGENTS.md: byre's guide for coding agents working on the host about
// the store (its map, who may write what, and how it is shared). byre owns
// the file: it is rewritten whenever it differs from this binary's copy, and
// only where byre is writing the store anyway (develop, the package verbs).

import path from 'node:path';

import { embeddedText, VERSION } from '../embedded.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { readRegularFile } from '../host/read-regular.js';

const STORE_GUIDE = 'AGENTS.md';

/** This binary's copy of the guide. */
function storeGuideText(version: string = VERSION): string {
  const template = embeddedText('src/project/guide/AGENTS.md');
  if (template === null) throw new Error('the store guide is missing from this build');
  return template.replaceAll('{{VERSION}}', version);
}

/**
 * Writes `<home>/AGENTS.md` when it is missing or differs (a symlink there is
 * replaced, never followed). Returns whether it wrote. The store must exist.
 */
export async function syncStoreGuide(home: string, version: string = VERSION): Promise<boolean> {
  const file = path.join(home, STORE_GUIDE);
  const want = storeGuideText(version);
  try {
    // Not a link, not a FIFO, and no larger than this binary's copy.
    const read = readRegularFile(file, Buffer.byteLength(want));
    if (read.kind === 'ok' && read.bytes.toString('utf8') === want) return false;
  } catch {
    // Unreadable: write it.
  }
  await writeFileAtomic(file, want, 0o644);
  return true;
}
