// fsTree over hostile package directories: a link out of the package is an
// escape never read through, and a file swapped after the walk (for a link
// out, a FIFO, or one past the cap) is refused, never followed, waited on or
// slurped.

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp.js';
import { fsTree } from './fs-tree.js';

describe('fsTree', () => {
  let dir: string;
  let pkg: string;
  useTempDir('fs-tree', (tmp) => {
    dir = tmp;
    pkg = path.join(tmp, 'pkg');
    mkdirSync(path.join(pkg, 'sub'), { recursive: true });
    writeFileSync(path.join(tmp, 'secret'), 'outside');
    writeFileSync(path.join(pkg, 'a.sh'), 'echo a', { mode: 0o755 });
    writeFileSync(path.join(pkg, 'sub', 'b'), 'b');
  });

  const refusal = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (error) {
      return (error as { rule?: string }).rule;
    }
    return undefined;
  };

  it('lists and reads the files, with their executable bit', () => {
    const t = fsTree(pkg, []);
    expect(t.list()).toEqual(['a.sh', 'sub/b']);
    expect(new TextDecoder().decode(t.read('sub/b') ?? new Uint8Array())).toBe('b');
    expect([t.executable('a.sh'), t.executable('sub/b')]).toEqual([true, false]);
    expect(t.isDir?.('sub')).toBe(true);
  });

  it('reports a link out of the package as an escape and never reads through it', () => {
    symlinkSync(path.join(dir, 'secret'), path.join(pkg, 'out'));
    const t = fsTree(pkg, []);
    expect(t.escapes('out')).toBe(true);
    expect(t.read('out')).toBeNull();
  });

  it('refuses a file swapped for a link out of the package after the walk', () => {
    const t = fsTree(pkg, []);
    rmSync(path.join(pkg, 'sub', 'b'));
    symlinkSync(path.join(dir, 'secret'), path.join(pkg, 'sub', 'b'));
    expect(refusal(() => t.read('sub/b'))).toBe('package.file-unreadable');
  });

  it('refuses a file swapped for a FIFO after the walk without waiting on it', () => {
    const t = fsTree(pkg, []);
    rmSync(path.join(pkg, 'sub', 'b'));
    execFileSync('mkfifo', [path.join(pkg, 'sub', 'b')]);
    expect(refusal(() => t.read('sub/b'))).toBe('package.file-unreadable');
  });

  it('never lists a FIFO', () => {
    execFileSync('mkfifo', [path.join(pkg, 'pipe')]);
    expect(fsTree(pkg, []).list()).toEqual(['a.sh', 'sub/b']);
  });

  it('refuses a file past the cap (64 MiB) without reading it', () => {
    const t = fsTree(pkg, []);
    truncateSync(path.join(pkg, 'sub', 'b'), 64 * 1024 * 1024 + 1);
    expect(refusal(() => t.read('sub/b'))).toBe('package.file-unreadable');
  });
});
