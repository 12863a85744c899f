import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ByreError } from '../errors.js';
import { systemErrorToByre, writeFailure } from './system-error.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('systemErrorToByre', () => {
  it('turns a real ENOENT into a located byre failure', () => {
    const err = systemErrorToByre(thrown(() => readFileSync('/nonexistent/byre-test')));
    expect(err).toMatchObject({
      exitCode: 1,
      rule: 'fs.enoent',
      message: 'cannot open /nonexistent/byre-test: no such file or directory',
    });
  });

  it.each([
    ['EACCES', 'fs.eacces', /permission denied/],
    ['ENOSPC', 'fs.enospc', /no space left/],
    ['EWEIRD', 'fs.eweird', /EWEIRD/],
  ])('%s', (code, rule, message) => {
    const e = Object.assign(new Error('x'), { code, path: '/p', syscall: 'open' });
    expect(systemErrorToByre(e)).toMatchObject({ rule, message: expect.stringMatching(message) });
  });

  it.each([
    ['a plain bug', new TypeError('x is undefined')],
    ['an errno without a path', Object.assign(new Error('x'), { code: 'ECONNRESET' })],
    ['a non-error', 'boom'],
  ])('leaves %s alone', (_name, error) => {
    expect(systemErrorToByre(error)).toBeNull();
  });

  // A write(2) or fsync(2) on a full disk carries no path: still the user's answer.
  it.each([
    ['ENOSPC', /^a write failed: no space left on device$/, /df -h/],
    ['EDQUOT', /^a write failed: disk quota exceeded$/, /quota .*df -h/],
    ['EROFS', /^a write failed: read-only file system$/, /remount it read-write/],
  ])('%s without a path is a byre failure, not a crash', (code, message, remedy) => {
    const e = Object.assign(new Error('x'), { code, syscall: 'write' });
    const err = systemErrorToByre(e);
    expect(err).toMatchObject({ exitCode: 1, rule: `fs.${code.toLowerCase()}` });
    expect(err?.message).toMatch(message);
    expect(err?.remedy).toMatch(remedy);
  });
});

describe('writeFailure', () => {
  const errno = (code: string, extra: object = {}): Error =>
    Object.assign(new Error(`${code}: x`), { code, syscall: 'write', ...extra });

  it.each([
    [
      'ENOSPC',
      'no space left on device',
      'the filesystem holding /s/p is full: free space on it (df -h /s/p shows it), then run the command again',
    ],
    [
      'EDQUOT',
      'disk quota exceeded',
      'your disk quota on the filesystem holding /s/p is used up: free some of your files there (df -h /s/p shows the filesystem), then run the command again',
    ],
    [
      'EROFS',
      'read-only file system',
      '/s/p is on a read-only filesystem (df -h /s/p names the mount): remount it read-write, then run the command again',
    ],
    ['EACCES', 'permission denied', 'check the permissions of /s/p (ls -ld /s/p)'],
    ['EIO', 'input/output error', undefined],
  ])('%s names the file it was writing, not a temp beside it', (code, what, remedy) => {
    const err = writeFailure(errno(code, { path: '/s/p/.c.tmp-1' }), '/s/p/c');
    expect(err).toBeInstanceOf(ByreError);
    expect(err).toMatchObject({
      message: `cannot write /s/p/c: ${what}`,
      rule: `fs.${code.toLowerCase()}`,
      remedy,
    });
  });

  it('takes the role and rule a caller gives', () => {
    const err = writeFailure(errno('ENOSPC'), '/s/l/r.toml', {
      rule: 'launch.write-failed',
      what: 'the launch record',
    });
    expect(err).toMatchObject({
      message: 'cannot write the launch record /s/l/r.toml: no space left on device',
      rule: 'launch.write-failed',
    });
  });

  it.each([
    ['a byre error', new ByreError('already explained', { rule: 'x.y' })],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'boom'],
  ])('leaves %s as it is', (_name, error) => {
    expect(writeFailure(error, '/s/p/c')).toBe(error);
  });
});
