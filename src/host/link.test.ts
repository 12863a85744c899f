// The store's one kind of link: made only where nothing is, never replacing
// or following what stands there.

import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { linkNewDir } from './link.js';

const tmp = useTempDir('link');

describe('linkNewDir', () => {
  it('links a directory where nothing is, its text as given', async () => {
    mkdirSync(path.join(tmp.path, 'checkout'));
    await linkNewDir(path.join(tmp.path, 'checkout'), path.join(tmp.path, 'adopted'));
    expect(readlinkSync(path.join(tmp.path, 'adopted'))).toBe(path.join(tmp.path, 'checkout'));
  });

  it('refuses a file, a directory and a dangling link where the link goes, leaving each', async () => {
    const at = (n: string): string => path.join(tmp.path, n);
    writeFileSync(at('file'), 'mine');
    mkdirSync(at('dir'));
    symlinkSync(at('nowhere'), at('dangling'));
    for (const name of ['file', 'dir', 'dangling']) {
      await expect(linkNewDir(at('elsewhere'), at(name))).rejects.toMatchObject({
        code: 'EEXIST',
      });
    }
    expect(readFileSync(at('file'), 'utf8')).toBe('mine');
    expect(readlinkSync(at('dangling'))).toBe(at('nowhere'));
  });
});
