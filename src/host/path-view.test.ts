// The path view's looks: which follow a link and which do not, and what
// each says for a path it cannot look past.

import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import {
  entryKind,
  entryNames,
  listEntries,
  lstatEntry,
  lstatOrNull,
  maySearch,
  pathExists,
  readLink,
  readlinkOrNull,
} from './path-view.js';

function errnoOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return undefined;
}

describe('path view', () => {
  it('pathExists follows links: a dangling one and a path under a file are absent', () => {
    const dir = testTempDir('path-view');
    writeFileSync(path.join(dir, 'f'), 'x');
    symlinkSync(path.join(dir, 'f'), path.join(dir, 'to-f'));
    symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling'));
    expect(pathExists(path.join(dir, 'f'))).toBe(true);
    expect(pathExists(path.join(dir, 'to-f'))).toBe(true);
    expect(pathExists(path.join(dir, 'dangling'))).toBe(false);
    expect(entryKind(path.join(dir, 'dangling'))).toBe('link');
    expect(pathExists(path.join(dir, 'f', 'below'))).toBe(false);
  });

  it('entryNames lists a directory, through a link, and is empty for what cannot be listed', () => {
    const dir = testTempDir('path-view');
    mkdirSync(path.join(dir, 'd'));
    writeFileSync(path.join(dir, 'd', 'a'), '');
    writeFileSync(path.join(dir, 'd', 'b'), '');
    symlinkSync(path.join(dir, 'd'), path.join(dir, 'to-d'));
    expect(entryNames(path.join(dir, 'd')).sort()).toEqual(['a', 'b']);
    expect(entryNames(path.join(dir, 'to-d')).sort()).toEqual(['a', 'b']);
    expect(entryNames(path.join(dir, 'missing'))).toEqual([]);
    expect(entryNames(path.join(dir, 'd', 'a'))).toEqual([]);
  });

  it('lstatEntry and lstatOrNull see a link itself; only absence is null, other errors are thrown', () => {
    const dir = testTempDir('path-view');
    mkdirSync(path.join(dir, 'd'));
    symlinkSync(path.join(dir, 'd'), path.join(dir, 'to-d'));
    writeFileSync(path.join(dir, 'f'), 'x');
    expect(lstatEntry(path.join(dir, 'to-d')).isSymbolicLink()).toBe(true);
    expect(lstatOrNull(path.join(dir, 'to-d'))?.isSymbolicLink()).toBe(true);
    expect(lstatOrNull(path.join(dir, 'd'))?.isDirectory()).toBe(true);
    expect(lstatOrNull(path.join(dir, 'missing'))).toBeNull();
    expect(lstatOrNull(path.join(dir, 'f', 'below'))).toBeNull();
    expect(errnoOf(() => lstatEntry(path.join(dir, 'missing')))).toBe('ENOENT');
    expect(errnoOf(() => lstatOrNull(path.join(dir, 'x'.repeat(300))))).toBe('ENAMETOOLONG');
  });

  it('readLink gives the link text or throws; readlinkOrNull says null', () => {
    const dir = testTempDir('path-view');
    writeFileSync(path.join(dir, 'f'), 'x');
    symlinkSync('../elsewhere', path.join(dir, 'l'));
    expect(readLink(path.join(dir, 'l'))).toBe('../elsewhere');
    expect(errnoOf(() => readLink(path.join(dir, 'f')))).toBe('EINVAL');
    expect(errnoOf(() => readLink(path.join(dir, 'missing')))).toBe('ENOENT');
    expect(readlinkOrNull(path.join(dir, 'f'))).toBeNull();
  });

  it('listEntries throws what entryNames swallows', () => {
    const dir = testTempDir('path-view');
    writeFileSync(path.join(dir, 'f'), '');
    expect(listEntries(dir)).toEqual(['f']);
    expect(errnoOf(() => listEntries(path.join(dir, 'missing')))).toBe('ENOENT');
    expect(errnoOf(() => listEntries(path.join(dir, 'f')))).toBe('ENOTDIR');
  });

  it('maySearch answers access X_OK: a searchable directory, not a plain file, not what is absent', () => {
    const dir = testTempDir('path-view');
    writeFileSync(path.join(dir, 'f'), '');
    writeFileSync(path.join(dir, 'run'), '');
    chmodSync(path.join(dir, 'f'), 0o600);
    chmodSync(path.join(dir, 'run'), 0o700);
    expect(maySearch(dir)).toBe(true);
    expect(maySearch(path.join(dir, 'run'))).toBe(true);
    expect(maySearch(path.join(dir, 'missing'))).toBe(false);
    // No execute bit at all: refused even to root.
    expect(maySearch(path.join(dir, 'f'))).toBe(false);
  });
});
