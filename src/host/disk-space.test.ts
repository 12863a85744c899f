// statfs of a path: the free and total bytes of its filesystem, and a throw
// for a path that is not there.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { diskSpace } from './disk-space.js';

const tmp = useTempDir('disk-space');

describe('diskSpace', () => {
  it('measures the filesystem holding a directory', () => {
    const { freeBytes, totalBytes } = diskSpace(tmp.path);
    expect(totalBytes).toBeGreaterThan(0);
    expect(freeBytes).toBeGreaterThanOrEqual(0);
    expect(freeBytes).toBeLessThanOrEqual(totalBytes);
  });

  it('throws for a missing path', () => {
    expect(() => diskSpace(path.join(tmp.path, 'missing'))).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
