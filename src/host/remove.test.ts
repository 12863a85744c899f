// Removal through host/remove.ts: a link goes, its target stays; a tree goes
// without following the links inside it; absent is done.

import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import { removeEntry, removeEntrySync, removeTree } from './remove.js';

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
});
