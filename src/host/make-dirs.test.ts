// Directories made where a link could stand: the project walk stops at one,
// and byre's own private directory refuses one and is tightened to 0700.

import { chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import {
  ensurePrivateDirSync,
  makeDirSync,
  makeDirsNoFollow,
  makeUserDirsSync,
} from './make-dirs.js';

const tmp = useTempDir('make-dirs');

describe('makeDirsNoFollow', () => {
  it('makes each component, and stops at a link without making anything through it', async () => {
    expect(await makeDirsNoFollow(tmp.path, 'a/b', 0o755)).toBe(true);
    expect(lstatSync(path.join(tmp.path, 'a', 'b')).isDirectory()).toBe(true);
    const outside = path.join(tmp.path, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, path.join(tmp.path, 'l'));
    expect(await makeDirsNoFollow(tmp.path, 'l/x', 0o755)).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('ensurePrivateDirSync', () => {
  it('makes the directory and its parents 0700, and tightens a looser one', () => {
    const dir = path.join(tmp.path, 'p', 'launches');
    ensurePrivateDirSync(dir);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    chmodSync(dir, 0o755);
    ensurePrivateDirSync(dir);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a link to a directory (its target untouched) and a file', () => {
    const outside = path.join(tmp.path, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    symlinkSync(outside, path.join(tmp.path, 'link'));
    expect(() => ensurePrivateDirSync(path.join(tmp.path, 'link'))).toThrow('not a directory');
    expect(lstatSync(outside).mode & 0o777).toBe(0o755);
    writeFileSync(path.join(tmp.path, 'file'), '');
    expect(() => ensurePrivateDirSync(path.join(tmp.path, 'file'))).toThrow();
  });
});

describe('makeDirSync', () => {
  it('makes one directory with the mode asked, and refuses anything already there, a link included', () => {
    const dir = path.join(tmp.path, 'one');
    makeDirSync(dir, 0o755);
    expect(lstatSync(dir).mode & 0o777).toBe(0o755 & ~process.umask());
    expect(() => makeDirSync(dir, 0o755)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    symlinkSync(path.join(tmp.path, 'elsewhere'), path.join(tmp.path, 'link'));
    expect(() => makeDirSync(path.join(tmp.path, 'link'), 0o755)).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(readdirSync(tmp.path).sort()).toEqual(['link', 'one']);
    expect(() => makeDirSync(path.join(tmp.path, 'no', 'parent'), 0o755)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});

describe('makeUserDirsSync', () => {
  it('makes the directory and its parents, keeps one already there, and refuses a file', () => {
    const dir = path.join(tmp.path, 'home', '.local', 'share', 'applications');
    makeUserDirsSync(dir);
    makeUserDirsSync(dir);
    expect(lstatSync(dir).isDirectory()).toBe(true);
    writeFileSync(path.join(tmp.path, 'file'), '');
    expect(() => makeUserDirsSync(path.join(tmp.path, 'file', 'x'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR' }),
    );
  });
});
