// byre's scratch directories: private, removed afterwards whatever happens,
// and a file goes in only where nothing is, never through a planted link.

import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import {
  lazyPrivateTempDir,
  makeStagingDir,
  streamToNewFile,
  withPrivateTempDirSync,
  writeNewFileExactModeSync,
  writeNewFileSync,
} from './private-temp.js';

const tmp = useTempDir('private-temp');

describe('private temp directories', () => {
  it('is 0700 while in use and gone afterwards, when fn throws too', () => {
    let seen = '';
    const got = withPrivateTempDirSync('byre-test-', (dir) => {
      seen = dir;
      expect(lstatSync(dir).mode & 0o777).toBe(0o700);
      writeFileSync(path.join(dir, 'f'), 'x');
      return 7;
    });
    expect(got).toBe(7);
    expect(existsSync(seen)).toBe(false);
    expect(() =>
      withPrivateTempDirSync('byre-test-', (dir) => {
        seen = dir;
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(existsSync(seen)).toBe(false);
  });

  it('removes a link inside it, never what it points at', () => {
    writeFileSync(path.join(tmp.path, 'keep-file'), 'kept');
    withPrivateTempDirSync('byre-test-', (dir) => {
      symlinkSync(tmp.path, path.join(dir, 'out'));
    });
    expect(readFileSync(path.join(tmp.path, 'keep-file'), 'utf8')).toBe('kept');
  });
});

describe('writeNewFileSync', () => {
  it('writes a new file with the mode asked', () => {
    const file = path.join(tmp.path, 'new');
    writeNewFileSync(file, 'text', 0o600);
    expect(readFileSync(file, 'utf8')).toBe('text');
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses an existing file, a planted link and a FIFO, leaving each as it was', () => {
    const file = path.join(tmp.path, 'there');
    writeFileSync(file, 'old');
    expect(() => writeNewFileSync(file, 'new')).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(readFileSync(file, 'utf8')).toBe('old');
    const target = path.join(tmp.path, 'target');
    const link = path.join(tmp.path, 'link');
    symlinkSync(target, link);
    expect(() => writeNewFileSync(link, 'new')).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(existsSync(target)).toBe(false);
    // A FIFO in the way is refused at once: O_EXCL never opens it, so never waits on a reader.
    const fifo = path.join(tmp.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => writeNewFileSync(fifo, 'new')).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});

describe('writeNewFileExactModeSync', () => {
  it('sets the mode exactly whatever the umask, and refuses a planted link and a FIFO', () => {
    const old = process.umask(0o077);
    try {
      writeNewFileExactModeSync(path.join(tmp.path, 'x'), '#!/bin/sh\n', 0o755);
      writeNewFileExactModeSync(path.join(tmp.path, 'ro'), 'r', 0o444);
    } finally {
      process.umask(old);
    }
    expect(lstatSync(path.join(tmp.path, 'x')).mode & 0o777).toBe(0o755);
    expect(lstatSync(path.join(tmp.path, 'ro')).mode & 0o777).toBe(0o444);
    const target = path.join(tmp.path, 'target');
    symlinkSync(target, path.join(tmp.path, 'link'));
    expect(() => writeNewFileExactModeSync(path.join(tmp.path, 'link'), 'new', 0o644)).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(existsSync(target)).toBe(false);
    execFileSync('mkfifo', [path.join(tmp.path, 'fifo')]);
    expect(() => writeNewFileExactModeSync(path.join(tmp.path, 'fifo'), 'new', 0o644)).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
  });
});

describe('makeStagingDir', () => {
  it('makes a fresh 0700 directory beside its tree, a new one each time', async () => {
    const a = await makeStagingDir(path.join(tmp.path, '.ctx.staging-'));
    const b = await makeStagingDir(path.join(tmp.path, '.ctx.staging-'));
    expect(a).not.toBe(b);
    expect(path.dirname(a)).toBe(tmp.path);
    expect(path.basename(a)).toMatch(/^\.ctx\.staging-/);
    expect(lstatSync(a).mode & 0o777).toBe(0o700);
  });
});

describe('lazyPrivateTempDir', () => {
  it('makes nothing until asked, one 0700 directory however often asked, removed by remove()', async () => {
    const spool = lazyPrivateTempDir('byre-test-');
    await spool.remove(); // never made: nothing to do
    const dir = await spool.dir();
    expect(await spool.dir()).toBe(dir);
    expect(path.basename(dir)).toMatch(/^byre-test-/);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    writeFileSync(path.join(dir, 'f'), 'x');
    await spool.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it('removes a link planted inside it, never what it points at', async () => {
    writeFileSync(path.join(tmp.path, 'keep-spool'), 'kept');
    const spool = lazyPrivateTempDir('byre-test-');
    symlinkSync(tmp.path, path.join(await spool.dir(), 'out'));
    await spool.remove();
    expect(readFileSync(path.join(tmp.path, 'keep-spool'), 'utf8')).toBe('kept');
  });
});

describe('streamToNewFile', () => {
  it('lands the whole stream in a new file with the mode asked', async () => {
    const file = path.join(tmp.path, 'streamed');
    await streamToNewFile(Readable.from([Buffer.from('a'), Buffer.from('bc')]), file, 0o600);
    expect(readFileSync(file, 'utf8')).toBe('abc');
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses an existing file and a planted link, leaving each as it was', async () => {
    const file = path.join(tmp.path, 'stream-there');
    writeFileSync(file, 'old');
    await expect(streamToNewFile(Readable.from(['new']), file)).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(readFileSync(file, 'utf8')).toBe('old');
    const target = path.join(tmp.path, 'stream-target');
    const link = path.join(tmp.path, 'stream-link');
    symlinkSync(target, link);
    await expect(streamToNewFile(Readable.from(['new']), link)).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(existsSync(target)).toBe(false);
  });
});
