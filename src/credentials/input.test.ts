import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  askNewPassphrase,
  askPassphrase,
  readFdLine,
  readHiddenLine,
  readValueFile,
} from './input.js';
import type { Terminal } from '../io.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'byre-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A fake TTY: keystrokes go in, whatever byre echoes is collected. */
function terminal(): {
  term: Terminal;
  type: (s: string) => void;
  shown: () => string;
  raw: () => boolean;
} {
  const input = new PassThrough() as unknown as NodeJS.ReadStream & { isRaw: boolean };
  let raw = false;
  Object.assign(input, {
    isTTY: true,
    get isRaw() {
      return raw;
    },
    setRawMode(on: boolean) {
      raw = on;
      return input;
    },
    // A terminal's stdin is a socket: it can hold the process open, or not.
    ref: () => input,
    unref: () => input,
  });
  let shown = '';
  const output = new PassThrough();
  output.on('data', (c: Buffer) => (shown += c.toString()));
  return {
    term: { input, output },
    type: (s) => (input as unknown as PassThrough).write(s),
    shown: () => shown,
    raw: () => raw,
  };
}

function fdOf(content: string): number {
  const file = path.join(dir, `fd-${Math.random()}`);
  writeFileSync(file, content);
  return openSync(file, 'r');
}

describe('readHiddenLine', () => {
  it('reads a line without echoing it, with backspace and Ctrl-U editing', async () => {
    const t = terminal();
    const line = readHiddenLine(t.term, 'pass: ');
    t.type('wrong\u0015hunx\u007fter2');
    t.type('\r');
    expect(await line).toBe('hunter2');
    expect(t.shown()).toBe('pass: \n');
    expect(t.raw()).toBe(false);
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Ctrl-D on an empty line', '\u0004'],
  ])('cancels on %s and restores the terminal', async (_name, key) => {
    const t = terminal();
    const line = readHiddenLine(t.term, 'pass: ');
    t.type(key);
    await expect(line).rejects.toMatchObject({ rule: 'credential.cancelled' });
    expect(t.raw()).toBe(false);
  });
});

describe('passphrases', () => {
  it('reads successive lines from one descriptor, byte by byte', () => {
    const fd = fdOf('old phrase\r\nnew phrase\nrest');
    try {
      expect(readFdLine(fd)).toBe('old phrase');
      expect(readFdLine(fd)).toBe('new phrase');
      expect(readFdLine(fd)).toBe('rest');
      expect(readFdLine(fd)).toBe('');
    } finally {
      closeSync(fd);
    }
  });

  it('refuses an empty passphrase, a bad descriptor and an overlong line', async () => {
    const empty = fdOf('\n');
    await expect(askPassphrase({ fd: empty, terminal: null }, '')).rejects.toMatchObject({
      rule: 'credential.passphrase-empty',
    });
    closeSync(empty);
    expect(() => readFdLine(987)).toThrow(
      expect.objectContaining({ rule: 'credential.passphrase-fd' }),
    );
    const long = fdOf('x'.repeat(5000));
    expect(() => readFdLine(long)).toThrow(
      expect.objectContaining({ rule: 'credential.passphrase-fd' }),
    );
    closeSync(long);
  });

  it('refuses to guess without a terminal or a descriptor', async () => {
    await expect(askPassphrase({ fd: null, terminal: null }, '')).rejects.toMatchObject({
      rule: 'credential.passphrase-needed',
      exitCode: 2,
    });
  });

  it('asks a new passphrase twice on a terminal and refuses a mismatch', async () => {
    // The second answer is typed once the second prompt shows, not after a guessed wait.
    const asked2 = async (term: { shown: () => string }): Promise<void> => {
      for (let i = 0; i < 2000 && !term.shown().includes('the same passphrase again'); i++) {
        await new Promise((r) => setImmediate(r));
      }
      expect(term.shown()).toContain('the same passphrase again');
    };
    const t = terminal();
    const asked = askNewPassphrase({ fd: null, terminal: t.term }, 'new: ');
    t.type('one\r');
    await asked2(t);
    t.type('two\r');
    await expect(asked).rejects.toMatchObject({ rule: 'credential.passphrase-mismatch' });

    const u = terminal();
    const ok = askNewPassphrase({ fd: null, terminal: u.term }, 'new: ');
    u.type('same\r');
    await asked2(u);
    u.type('same\r');
    expect(await ok).toBe('same');
  });
});

describe('readValueFile', () => {
  it('reads a regular file exactly', () => {
    const file = path.join(dir, 'sa.json');
    writeFileSync(file, Uint8Array.from([0, 1, 10]));
    expect([...readValueFile(file)]).toEqual([0, 1, 10]);
  });

  it('refuses a FIFO without blocking, a directory, and a file over the cap', () => {
    const fifo = path.join(dir, 'fifo');
    spawnSync('mkfifo', [fifo]);
    expect(() => readValueFile(fifo)).toThrow(/not a regular file/);
    expect(() => readValueFile(dir)).toThrow(/not a regular file/);
    const big = path.join(dir, 'big');
    writeFileSync(big, Buffer.alloc(64 * 1024 + 1));
    expect(() => readValueFile(big)).toThrow(
      expect.objectContaining({ rule: 'credential.value-too-large' }),
    );
    expect(() => readValueFile(path.join(dir, 'missing'))).toThrow(
      expect.objectContaining({ rule: 'credential.file-unreadable' }),
    );
  });
});
