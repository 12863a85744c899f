// Removal through host/remove.ts: a link goes, its target stays; a tree goes
// without following the links inside it; absent is done.

import {
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
import { testTempDir } from '../../test/support/temp.js';
import {
  removeEmptyDirSync,
  removeEntry,
  removeEntrySync,
  removeTree,
  removeTreeSync,
  moveTreeIn,
  replaceTree,
  swapTreeIn,
  swapTreeInSync,
} from './remove.js';

describe('host removal', () => {
  it('removes a link, never its target, and takes an absent entry as done', async () => {
    const dir = testTempDir('remove');
    writeFileSync(path.join(dir, 'target'), 'x');
    symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'));
    await removeEntry(path.join(dir, 'link'));
    expect(existsSync(path.join(dir, 'target'))).toBe(true);
    removeEntrySync(path.join(dir, 'target'));
    expect(existsSync(path.join(dir, 'target'))).toBe(false);
    await removeEntry(path.join(dir, 'never-was'));
    removeEntrySync(path.join(dir, 'never-was'));
  });

  it('removes a tree without following a link planted inside it', async () => {
    const dir = testTempDir('remove');
    mkdirSync(path.join(dir, 'outside'));
    writeFileSync(path.join(dir, 'outside', 'keep'), 'x');
    mkdirSync(path.join(dir, 'tree', 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'tree', 'sub', 'f'), 'x');
    symlinkSync(path.join(dir, 'outside'), path.join(dir, 'tree', 'planted'));
    await removeTree(path.join(dir, 'tree'));
    expect(existsSync(path.join(dir, 'tree'))).toBe(false);
    expect(existsSync(path.join(dir, 'outside', 'keep'))).toBe(true);
    await removeTree(path.join(dir, 'tree'));
  });

  it('removes a directory only when empty, never a link to one or a file', () => {
    const dir = testTempDir('remove');
    mkdirSync(path.join(dir, 'empty'));
    mkdirSync(path.join(dir, 'full'));
    writeFileSync(path.join(dir, 'full', 'f'), '');
    mkdirSync(path.join(dir, 'target'));
    symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'));
    expect(removeEmptyDirSync(path.join(dir, 'empty'))).toBe(true);
    expect(existsSync(path.join(dir, 'empty'))).toBe(false);
    expect(removeEmptyDirSync(path.join(dir, 'full'))).toBe(false);
    expect(removeEmptyDirSync(path.join(dir, 'link'))).toBe(false);
    expect(removeEmptyDirSync(path.join(dir, 'full', 'f'))).toBe(false);
    expect(existsSync(path.join(dir, 'full', 'f'))).toBe(true);
    expect(existsSync(path.join(dir, 'target'))).toBe(true);
    expect(existsSync(path.join(dir, 'link'))).toBe(true);
    expect(removeEmptyDirSync(path.join(dir, 'never-was'))).toBe(false);
  });

  it('replaceTree puts the staged tree in place of the old, whose links are removed, never followed', async () => {
    const dir = testTempDir('remove');
    const outside = path.join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'keep'), 'kept');
    mkdirSync(path.join(dir, 'target'));
    symlinkSync(outside, path.join(dir, 'target', 'link'));
    mkdirSync(path.join(dir, 'staged'));
    writeFileSync(path.join(dir, 'staged', 'new'), 'new');
    await replaceTree(path.join(dir, 'staged'), path.join(dir, 'target'));
    expect(readdirSync(path.join(dir, 'target'))).toEqual(['new']);
    expect(existsSync(path.join(dir, 'staged'))).toBe(false);
    expect(readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('kept');
    mkdirSync(path.join(dir, 'again'));
    await replaceTree(path.join(dir, 'again'), path.join(dir, 'fresh'));
    expect(existsSync(path.join(dir, 'fresh'))).toBe(true);
  });

  it('removeTreeSync removes a tree without following a link inside it; absent is done', () => {
    const dir = testTempDir('remove');
    mkdirSync(path.join(dir, 'outside'));
    writeFileSync(path.join(dir, 'outside', 'keep'), 'x');
    mkdirSync(path.join(dir, 'tree'));
    symlinkSync(path.join(dir, 'outside'), path.join(dir, 'tree', 'planted'));
    removeTreeSync(path.join(dir, 'tree'));
    expect(readdirSync(dir)).toEqual(['outside']);
    expect(existsSync(path.join(dir, 'outside', 'keep'))).toBe(true);
    removeTreeSync(path.join(dir, 'tree'));
  });

  it('swapTreeInSync puts the staged tree in, the old moved aside then removed, links never followed', () => {
    const dir = testTempDir('remove');
    const outside = path.join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'keep'), 'kept');
    const [staged, target, aside] = ['staged', 'target', 'aside'].map((n) => path.join(dir, n)) as [
      string,
      string,
      string,
    ];
    // Nothing there yet: the staged tree simply moves in.
    mkdirSync(staged);
    writeFileSync(path.join(staged, 'v1'), '1');
    swapTreeInSync(staged, target, aside);
    expect(readdirSync(target)).toEqual(['v1']);
    // An old tree with a link out, and a stale aside with one too: both go, the outside stays.
    symlinkSync(outside, path.join(target, 'planted'));
    mkdirSync(aside);
    symlinkSync(outside, path.join(aside, 'stale'));
    mkdirSync(staged);
    writeFileSync(path.join(staged, 'v2'), '2');
    swapTreeInSync(staged, target, aside);
    expect(readdirSync(target)).toEqual(['v2']);
    expect(readdirSync(dir).sort()).toEqual(['outside', 'target']);
    expect(readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('kept');
    // A link swapped in at the target is moved aside and removed itself, never followed.
    removeTreeSync(target);
    symlinkSync(outside, target);
    mkdirSync(staged);
    swapTreeInSync(staged, target, aside);
    expect(lstatSync(target).isDirectory()).toBe(true);
    expect(readdirSync(outside)).toEqual(['keep']);
    expect(readdirSync(dir).sort()).toEqual(['outside', 'target']);
  });

  it('moveTreeIn puts a staged tree where nothing or an empty directory is, and never over anything else', async () => {
    const dir = testTempDir('remove');
    const at = (n: string): string => path.join(dir, n);
    const staged = (): string => {
      mkdirSync(at('staged'), { recursive: true });
      writeFileSync(at('staged/new'), 'new');
      return at('staged');
    };
    await moveTreeIn(staged(), at('absent'));
    expect(readdirSync(at('absent'))).toEqual(['new']);
    mkdirSync(at('empty'));
    await moveTreeIn(staged(), at('empty'));
    expect(readdirSync(at('empty'))).toEqual(['new']);
    // A racing writer's tree, a file and a link (to a directory) all stay as they were.
    mkdirSync(at('outside'));
    writeFileSync(at('file'), 'mine');
    symlinkSync(at('outside'), at('link'));
    for (const name of ['absent', 'file', 'link']) {
      await expect(moveTreeIn(staged(), at(name))).rejects.toMatchObject({
        code: expect.stringMatching(/^(ENOTEMPTY|EEXIST|ENOTDIR)$/),
      });
    }
    expect(readdirSync(at('absent'))).toEqual(['new']);
    expect(readFileSync(at('file'), 'utf8')).toBe('mine');
    expect(readdirSync(at('outside'))).toEqual([]);
    expect(lstatSync(at('link')).isSymbolicLink()).toBe(true);
  });

  it('swapTreeIn swaps the staged tree in, the old removed without following its links, or put back on failure', async () => {
    const dir = testTempDir('remove');
    const at = (n: string): string => path.join(dir, n);
    mkdirSync(at('outside'));
    writeFileSync(at('outside/keep'), 'kept');
    mkdirSync(at('staged'));
    writeFileSync(at('staged/v1'), '1');
    await swapTreeIn(at('staged'), at('ctx'), at('.ctx.old'));
    expect(readdirSync(at('ctx'))).toEqual(['v1']);
    symlinkSync(at('outside'), at('ctx/planted'));
    mkdirSync(at('staged'));
    writeFileSync(at('staged/v2'), '2');
    await swapTreeIn(at('staged'), at('ctx'), at('.ctx.old'));
    expect(readdirSync(at('ctx'))).toEqual(['v2']);
    expect(readdirSync(dir).sort()).toEqual(['ctx', 'outside']);
    expect(readFileSync(at('outside/keep'), 'utf8')).toBe('kept');
    // A staged tree that is not there: the old one is put back.
    await expect(swapTreeIn(at('gone'), at('ctx'), at('.ctx.old'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(readdirSync(at('ctx'))).toEqual(['v2']);
    expect(readdirSync(dir).sort()).toEqual(['ctx', 'outside']);
  });
});
