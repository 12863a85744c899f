// The controlling terminal's primitives: the polled key reader on a
// non-blocking descriptor (a FIFO stands in for the terminal), and the
// answer when there is no terminal to open.

import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import { isCharacterDevice, openTtyDescriptors, PolledTtyInput, ttyAvailable } from './tty.js';

function collect(input: PolledTtyInput): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    input.on('data', (c: Buffer) => chunks.push(c));
    input.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    input.on('error', reject);
  });
}

describe('host tty', () => {
  it('isCharacterDevice is true for /dev/null, false for a file, a FIFO and a descriptor not open', () => {
    const dir = testTempDir('tty');
    const file = path.join(dir, 'f');
    writeFileSync(file, '');
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const fds = [
      openSync('/dev/null', 'r'),
      openSync(file, 'r'),
      openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK),
    ];
    try {
      expect(fds.map(isCharacterDevice)).toEqual([true, false, false]);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    expect(isCharacterDevice(1_000_000)).toBe(false);
  });

  it('PolledTtyInput pushes what arrives on a non-blocking descriptor, ends at EOF, closes it', async () => {
    const fifo = path.join(testTempDir('tty'), 'keys');
    execFileSync('mkfifo', [fifo]);
    const keys = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const raw: boolean[] = [];
    const input = new PolledTtyInput(keys, { setRawMode: (on) => raw.push(on) });
    const text = collect(input);
    input.setRawMode(true);
    writeSync(writer, 'q');
    await new Promise((r) => setTimeout(r, 50));
    writeSync(writer, '\x1b[A');
    closeSync(writer);
    expect(await text).toBe('q\x1b[A');
    expect(raw).toEqual([true]);
    input.destroy();
  });

  it('without a controlling terminal: not available, and opening throws', () => {
    const has = ttyAvailable();
    if (has) return; // a developer's terminal: nothing to refuse here
    expect(() => openTtyDescriptors()).toThrow();
  });
});
