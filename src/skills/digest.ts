// The package digest: one sha256 that names an installed snapshot, computed
// over the manifest bytes and every payload entry. The byte layout is a
// published contract (a pinned test vector guards it); never change it in place.

import { createHash } from 'node:crypto';
import type { PackageFileEntry } from './manifest/index.js';

const DIGEST_DOMAIN = 'byre-package-digest-v1';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function byteOrder(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

/**
 * sha256 over `"byre-package-digest-v1\0<len>\0" + manifest` then, per file
 * sorted by dest, `"\0<len(dest)>\0<dest>\0<sha256>\0<exec 0|1>"`. Lengths
 * are decimal byte counts. Returns `sha256:<hex>`.
 */
export function packageDigest(
  manifest: Uint8Array,
  files: readonly Pick<PackageFileEntry, 'dest' | 'sha256' | 'executable'>[],
): string {
  const hash = createHash('sha256');
  hash.update(utf8(`${DIGEST_DOMAIN}\0${manifest.length}\0`));
  hash.update(manifest);
  const sorted = [...files].sort((a, b) => byteOrder(a.dest, b.dest));
  for (const file of sorted) {
    const dest = utf8(file.dest);
    hash.update(utf8(`\0${dest.length}\0`));
    hash.update(dest);
    hash.update(utf8(`\0${file.sha256}\0${file.executable ? '1' : '0'}`));
  }
  return `sha256:${hash.digest('hex')}`;
}

/** The directory name of a snapshot: the digest's hex. */
export function digestHex(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice('sha256:'.length) : digest;
}
