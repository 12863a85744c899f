import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isYes, readAnswer, terminalConfirm, type Io } from './io.js';

describe('confirm', () => {
  it.each([
    ['y', true],
    ['YES', true],
    [' y ', true],
    ['', false],
    ['n', false],
    ['yess', false],
  ])('isYes(%j) = %s', (answer, want) => {
    expect(isYes(answer)).toBe(want);
  });

  it('reads one line, and null at end of input', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const answer = readAnswer(input, 'Sure? ', output);
    input.write('y\nmore\n');
    expect(await answer).toBe('y');
    const empty = new PassThrough();
    const none = readAnswer(empty, 'Sure? ', output);
    empty.end();
    expect(await none).toBeNull();
  });

  it('without a terminal it asks for -y instead of guessing', async () => {
    const io = { stdinIsTty: false } as Io;
    await expect(terminalConfirm(io)('Wipe?')).rejects.toMatchObject({
      rule: 'confirm.needs-yes',
      exitCode: 2,
    });
  });
});
