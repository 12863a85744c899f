// The path view's looks: which follow a link and which do not, and what
// each says for a path it cannot look past.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import { entryKind, entryNames, pathExists } from './path-view.js';

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
});
