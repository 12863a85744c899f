// The anchored directory and the files it hands out, on a real filesystem,
// against what a box-writable tree can plant: a link where a file or
// directory was, a FIFO where a file was, a name already taken.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { AnchoredDirSync, HeldReadFile } from './anchored.js';

const tmp = useTempDir('anchored');

function fresh(name: string): { root: string; dir: AnchoredDirSync } {
  const root = path.join(tmp.path, name);
  mkdirSync(root);
  return { root, dir: AnchoredDirSync.open(root) };
}

describe('AnchoredDirSync', () => {
  it('opens a file without following a link at its name, and reads it through the handle', () => {
    const { root, dir } = fresh('read');
    writeFileSync(path.join(tmp.path, 'outside'), 'secret');
    symlinkSync(path.join(tmp.path, 'outside'), path.join(root, 'link'));
    writeFileSync(path.join(root, 'file'), 'inside');
    try {
      expect(() => dir.openFile('link')).toThrow(expect.objectContaining({ code: 'ELOOP' }));
      const file = dir.openFile('file');
      const buf = Buffer.alloc(16);
      expect(file.stats.isFile()).toBe(true);
      expect(file.readAt(buf, 0, 16, 0)).toBe(6);
      expect(buf.subarray(0, 6).toString()).toBe('inside');
      file.close();
    } finally {
      dir.close();
    }
  });

  it('opens a FIFO at once (no writer needed) and says it is not a regular file', () => {
    const { root, dir } = fresh('fifo');
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    try {
      const held = dir.openFile('pipe');
      expect(held.stats.isFIFO()).toBe(true);
      held.close();
    } finally {
      dir.close();
    }
  });

  it('creates only where nothing is, never through a link, and links without replacing', () => {
    const { root, dir } = fresh('write');
    symlinkSync(path.join(tmp.path, 'target-of-link'), path.join(root, 'planted'));
    writeFileSync(path.join(root, 'taken'), 'old');
    try {
      expect(() => dir.createExclusive('planted', 0o600)).toThrow(
        expect.objectContaining({ code: 'EEXIST' }),
      );
      expect(() => statSync(path.join(tmp.path, 'target-of-link'))).toThrow();
      const out = dir.createExclusive('new', 0o600);
      out.writeAll(Buffer.from('fresh bytes'));
      expect(out.size()).toBe(11);
      out.chmod(0o640);
      out.close();
      expect(statSync(path.join(root, 'new')).mode & 0o777).toBe(0o640);
      expect(() => dir.link('new', 'taken')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
      expect(readFileSync(path.join(root, 'taken'), 'utf8')).toBe('old');
      dir.link('new', 'landed');
      expect(readFileSync(path.join(root, 'landed'), 'utf8')).toBe('fresh bytes');
    } finally {
      dir.close();
    }
  });

  it('unlinks a link planted for a directory instead of following it', () => {
    const { root, dir } = fresh('remove');
    const victim = path.join(tmp.path, 'victim');
    mkdirSync(victim);
    writeFileSync(path.join(victim, 'keep'), 'k');
    symlinkSync(victim, path.join(root, 'sub'));
    try {
      expect(() => dir.removeDir('sub')).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
      dir.unlink('sub');
      expect(readFileSync(path.join(victim, 'keep'), 'utf8')).toBe('k');
      expect(dir.entries().map((e) => e.name)).toEqual([]);
      dir.makeDir('made', 0o755);
      expect(dir.entries().map((e) => [e.name, e.isDirectory()])).toEqual([['made', true]]);
      dir.removeDir('made');
    } finally {
      dir.close();
    }
  });
});

describe('HeldReadFile.openFollowing', () => {
  it("follows a link the user named themselves, and doesn't wait on a FIFO", () => {
    const real = path.join(tmp.path, 'real');
    writeFileSync(real, 'abc');
    symlinkSync(real, path.join(tmp.path, 'named-link'));
    const held = HeldReadFile.openFollowing(path.join(tmp.path, 'named-link'));
    expect(held.stats.size).toBe(3);
    held.close();
    execFileSync('mkfifo', [path.join(tmp.path, 'named-pipe')]);
    const pipe = HeldReadFile.openFollowing(path.join(tmp.path, 'named-pipe'));
    expect(pipe.stats.isFile()).toBe(false);
    pipe.close();
  });
});
