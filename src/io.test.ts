// The y/N question: what counts as yes, the line it reads from the terminal,
// and the refusal without one.

import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { terminalConfirm, type Io } from './io.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * What terminalConfirm answers when the terminal's stdin gives `typed` (then
 * ends when `end`), and the prompt it wrote to stderr.
 */
async function confirmWith(typed: string, end = false): Promise<[boolean, string]> {
  const input = new PassThrough();
  vi.spyOn(process, 'stdin', 'get').mockReturnValue(input as unknown as typeof process.stdin);
  let prompt = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    prompt += String(chunk);
    return true;
  });
  const answer = terminalConfirm({ stdinIsTty: true } as Io)('Sure?');
  if (end) input.end(typed);
  else input.write(typed);
  return [await answer, prompt];
}

describe('confirm', () => {
  it.each([
    ['y', true],
    ['YES', true],
    [' y ', true],
    ['', false],
    ['n', false],
    ['yess', false],
  ])('the answer %j is yes: %s', async (answer, want) => {
    expect(await confirmWith(`${answer}\n`)).toEqual([want, 'Sure? [y/N] ']);
  });

  it('reads one line, and declines at end of input', async () => {
    expect(await confirmWith('y\nmore\n')).toEqual([true, 'Sure? [y/N] ']);
    expect(await confirmWith('', true)).toEqual([false, 'Sure? [y/N] ']);
  });

  it('without a terminal it asks for -y instead of guessing', async () => {
    const io = { stdinIsTty: false } as Io;
    await expect(terminalConfirm(io)('Wipe?')).rejects.toMatchObject({
      rule: 'confirm.needs-yes',
      exitCode: 2,
    });
  });
});
