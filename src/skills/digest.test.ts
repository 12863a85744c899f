import { describe, expect, it } from 'vitest';
import { packageDigest, sha256Hex } from './digest.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('packageDigest', () => {
  // Computed independently (Python hashlib) from the published layout; a change here breaks every pinned install.
  it('matches the pinned test vector', () => {
    const manifest = enc('[package]\nid = "me/demo"\n');
    const files = [
      { dest: 'b.sh', sha256: sha256Hex('echo hi\n'), executable: true },
      { dest: 'a.md', sha256: sha256Hex('# a\n'), executable: false },
    ];
    expect(files[0]?.sha256).toBe(
      'ab08508fdf5ca4da5c4995987bc41c56c048aaa5eeb046417ae4049b7d40286e',
    );
    expect(packageDigest(manifest, files)).toBe(
      'sha256:32f78112704a1320c60e33be539d1547c383314e978a7c68dbf181c4c73bea55',
    );
  });

  it('is independent of file order, sensitive to the exec bit and the manifest', () => {
    const m = enc('x');
    const a = { dest: 'a', sha256: sha256Hex('1'), executable: false };
    const b = { dest: 'b', sha256: sha256Hex('2'), executable: false };
    expect(packageDigest(m, [a, b])).toBe(packageDigest(m, [b, a]));
    expect(packageDigest(m, [a, { ...b, executable: true }])).not.toBe(packageDigest(m, [a, b]));
    expect(packageDigest(enc('y'), [a, b])).not.toBe(packageDigest(m, [a, b]));
  });
});
