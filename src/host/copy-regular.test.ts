// Copying a walked file into a staging tree: a link or FIFO swapped in is
// refused unread and unwaited, the copy never lands through a planted link,
// and the source's permission bits survive any umask.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { copyRegularToNew } from './copy-regular.js';

const tmp = useTempDir('copy-regular');
const at = (n: string): string => path.join(tmp.path, n);
const rethrow = (error: unknown): never => {
  throw Object.assign(new Error('named'), { cause: error });
};

describe('copyRegularToNew', () => {
  it('copies the bytes and the exact mode, whatever the umask, in chunks past 1 MiB', async () => {
    writeFileSync(at('tool'), '#!/bin/sh\n');
    chmodSync(at('tool'), 0o755);
    const old = process.umask(0o077);
    try {
      expect(await copyRegularToNew(at('tool'), at('copy'), rethrow)).toBeNull();
    } finally {
      process.umask(old);
    }
    expect(readFileSync(at('copy'), 'utf8')).toBe('#!/bin/sh\n');
    expect(lstatSync(at('copy')).mode & 0o777).toBe(0o755);
    writeFileSync(at('big'), '');
    truncateSync(at('big'), 3 * 1024 * 1024 + 5);
    expect(await copyRegularToNew(at('big'), at('big-copy'), rethrow)).toBeNull();
    expect(lstatSync(at('big-copy')).size).toBe(3 * 1024 * 1024 + 5);
  });

  it('refuses a link and a FIFO as the source without following or waiting, creating nothing', async () => {
    writeFileSync(at('secret'), 'host secret');
    symlinkSync(at('secret'), at('link'));
    expect(await copyRegularToNew(at('link'), at('from-link'), rethrow)).toBe('symlink');
    execFileSync('mkfifo', [at('fifo')]);
    expect(await copyRegularToNew(at('fifo'), at('from-fifo'), rethrow)).toBe('not-regular');
    expect([existsSync(at('from-link')), existsSync(at('from-fifo'))]).toEqual([false, false]);
  });

  it('never writes through a link planted where the copy goes; that refusal goes through writeError', async () => {
    writeFileSync(at('src'), 'new');
    writeFileSync(at('victim'), 'kept');
    symlinkSync(at('victim'), at('dest'));
    await expect(copyRegularToNew(at('src'), at('dest'), rethrow)).rejects.toMatchObject({
      message: 'named',
      cause: expect.objectContaining({ code: 'EEXIST' }),
    });
    expect(readFileSync(at('victim'), 'utf8')).toBe('kept');
  });

  it('throws an error opening the source as the OS gave it', async () => {
    await expect(copyRegularToNew(at('never-was'), at('x'), rethrow)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
