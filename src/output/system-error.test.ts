import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { systemErrorToByre } from './system-error.js';

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
});
