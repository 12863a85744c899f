// Publication a reader never sees torn: a replace that a last check can still
// call off, and a create-only publish that never replaces, links included.

import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { publishNew, writeFileAtomic, writeFileAtomicSync } from './atomic-write.js';

const tmp = useTempDir('atomic-write');

describe('writeFileAtomic', () => {
  it('replaces the file with the mode asked, leaving no temp', async () => {
    const file = path.join(tmp.path, 'f');
    writeFileSync(file, 'old');
    await writeFileAtomic(file, 'new', 0o640);
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(lstatSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(tmp.path)).toEqual(['f']);
  });

  it('leaves the old bytes and no temp when the check before the rename throws', async () => {
    const file = path.join(tmp.path, 'f');
    writeFileSync(file, 'old');
    let checked = false;
    await expect(
      writeFileAtomic(file, 'new', 0o600, () => {
        checked = true;
        throw new Error('changed meanwhile');
      }),
    ).rejects.toThrow('changed meanwhile');
    expect(checked).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(tmp.path)).toEqual(['f']);
  });

  it('replaces a link planted at the target, never writing through it', async () => {
    const outside = path.join(tmp.path, 'outside');
    writeFileSync(outside, 'theirs');
    const file = path.join(tmp.path, 'f');
    symlinkSync(outside, file);
    await writeFileAtomic(file, 'mine');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe('theirs');
  });
});

describe('publishNew', () => {
  it('publishes only where nothing is; an existing file or link is left as it was', async () => {
    const file = path.join(tmp.path, 'new');
    expect(await publishNew(file, 'first')).toBe(true);
    expect(await publishNew(file, 'second')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('first');
    const link = path.join(tmp.path, 'link');
    const target = path.join(tmp.path, 'target');
    symlinkSync(target, link);
    expect(await publishNew(link, 'x')).toBe(false);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(tmp.path).sort()).toEqual(['link', 'new']);
  });
});

describe('writeFileAtomicSync', () => {
  it('replaces the file (a planted link replaced, not followed), leaving no temp', () => {
    const outside = path.join(tmp.path, 'outside');
    writeFileSync(outside, 'theirs');
    const file = path.join(tmp.path, 'f');
    symlinkSync(outside, file);
    writeFileAtomicSync(file, 'mine', { mode: 0o600, durable: true });
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(outside, 'utf8')).toBe('theirs');
    writeFileAtomicSync(file, new Uint8Array([104, 105]), { durable: false });
    expect(readFileSync(file, 'utf8')).toBe('hi');
    expect(readdirSync(tmp.path).sort()).toEqual(['f', 'outside']);
  });

  it('throws the OS error and leaves no temp when the rename fails', () => {
    const dir = path.join(tmp.path, 'dir');
    mkdirSync(path.join(dir, 'taken'), { recursive: true });
    writeFileSync(path.join(dir, 'taken', 'inside'), 'x');
    expect(() => writeFileAtomicSync(path.join(dir, 'taken'), 'new', { durable: false })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }),
    );
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  // Root writes anyway: the refusal is seen only as another user.
  it.skipIf(process.getuid?.() === 0)('throws when the directory cannot be written', () => {
    const dir = path.join(tmp.path, 'ro');
    mkdirSync(dir);
    chmodSync(dir, 0o500);
    try {
      expect(() => writeFileAtomicSync(path.join(dir, 'f'), 'x', { durable: false })).toThrow(
        expect.objectContaining({ code: 'EACCES' }),
      );
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});
