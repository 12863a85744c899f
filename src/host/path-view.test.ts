// The path view's looks: which follow a link and which do not, and what
// each says for a path it cannot look past.

import { execFileSync } from 'node:child_process';
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
  reachesDirectory,
  reachesRegularFile,
  pathExists,
  presentUnlessMissing,
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

  it('reachesDirectory follows a link to a directory, and is false for a file, a dangling link or nothing', () => {
    const dir = testTempDir('path-view');
    mkdirSync(path.join(dir, 'd'));
    writeFileSync(path.join(dir, 'f'), '');
    symlinkSync(path.join(dir, 'd'), path.join(dir, 'to-d'));
    symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    expect(reachesDirectory(path.join(dir, 'd'))).toBe(true);
    expect(reachesDirectory(path.join(dir, 'to-d'))).toBe(true);
    expect(reachesDirectory(path.join(dir, 'f'))).toBe(false);
    expect(reachesDirectory(path.join(dir, 'dangling'))).toBe(false);
    expect(reachesDirectory(path.join(dir, 'missing'))).toBe(false);
  });

  it('reachesRegularFile follows a link to a file, and is false for a directory, a FIFO, a dangling link or nothing', () => {
    const dir = testTempDir('path-view');
    mkdirSync(path.join(dir, 'd'));
    writeFileSync(path.join(dir, 'f'), '');
    symlinkSync(path.join(dir, 'f'), path.join(dir, 'to-f'));
    symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    expect(reachesRegularFile(path.join(dir, 'f'))).toBe(true);
    expect(reachesRegularFile(path.join(dir, 'to-f'))).toBe(true);
    expect(reachesRegularFile(path.join(dir, 'd'))).toBe(false);
    expect(reachesRegularFile(path.join(dir, 'fifo'))).toBe(false);
    expect(reachesRegularFile(path.join(dir, 'dangling'))).toBe(false);
    expect(reachesRegularFile(path.join(dir, 'missing'))).toBe(false);
  });

  it('presentUnlessMissing follows links, and only ENOENT and ENOTDIR are absent', () => {
    const dir = testTempDir('path-view');
    writeFileSync(path.join(dir, 'f'), '');
    symlinkSync(path.join(dir, 'f'), path.join(dir, 'to-f'));
    symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
    expect(presentUnlessMissing(path.join(dir, 'f'))).toBe(true);
    expect(presentUnlessMissing(path.join(dir, 'to-f'))).toBe(true);
    expect(presentUnlessMissing(path.join(dir, 'dangling'))).toBe(false);
    expect(presentUnlessMissing(path.join(dir, 'missing'))).toBe(false);
    expect(presentUnlessMissing(path.join(dir, 'f', 'under-a-file'))).toBe(false);
  });
});
