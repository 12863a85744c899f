// Secrets read where the user pointed: a line that leaves the rest of the
// descriptor unread, reads stopped past their cap, and a named file that is
// followed through a link (the user chose it) but refused as a FIFO or a
// directory without waiting.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { readSecretAll, readSecretFile, readSecretLine } from './secret-read.js';

const tmp = useTempDir('secret-read');

function withFd<T>(text: string, fn: (fd: number) => T): T {
  const file = path.join(tmp.path, 'fd-source');
  writeFileSync(file, text);
  const fd = openSync(file, 'r');
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

describe('readSecretLine', () => {
  it('reads one line at a time, dropping \\r\\n, and leaves the rest unread', () => {
    withFd('first\r\nsecond\nrest', (fd) => {
      expect(readSecretLine(fd, 100)).toEqual({ kind: 'ok', text: 'first' });
      expect(readSecretLine(fd, 100)).toEqual({ kind: 'ok', text: 'second' });
      expect(readSecretAll(fd, 100)).toEqual(new Uint8Array(Buffer.from('rest')));
    });
  });

  it('stops past its bound', () => {
    withFd('x'.repeat(50), (fd) => expect(readSecretLine(fd, 10)).toEqual({ kind: 'too-long' }));
  });

  it('throws for a descriptor that is not open', () => {
    expect(() => readSecretLine(987, 10)).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });
});

describe('readSecretAll', () => {
  it('reads to the end up to the cap, and no further', () => {
    withFd('12345', (fd) =>
      expect(readSecretAll(fd, 5)).toEqual(new Uint8Array(Buffer.from('12345'))),
    );
    withFd('123456', (fd) => expect(readSecretAll(fd, 5)).toBe('too-large'));
  });
});

describe('readSecretFile', () => {
  it('reads a regular file, through a link the user named', () => {
    const file = path.join(tmp.path, 'token');
    writeFileSync(file, 'secret');
    symlinkSync(file, path.join(tmp.path, 'link'));
    const want = { kind: 'ok', bytes: new Uint8Array(Buffer.from('secret')) };
    expect(readSecretFile(file, 100)).toEqual(want);
    expect(readSecretFile(path.join(tmp.path, 'link'), 100)).toEqual(want);
  });

  it('refuses a FIFO without waiting, a directory, a file over the cap, and names a missing one', () => {
    const fifo = path.join(tmp.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(readSecretFile(fifo, 100)).toEqual({ kind: 'not-regular' });
    mkdirSync(path.join(tmp.path, 'dir'));
    expect(readSecretFile(path.join(tmp.path, 'dir'), 100)).toEqual({ kind: 'not-regular' });
    writeFileSync(path.join(tmp.path, 'big'), Buffer.alloc(101));
    expect(readSecretFile(path.join(tmp.path, 'big'), 100)).toEqual({ kind: 'too-large' });
    expect(readSecretFile(path.join(tmp.path, 'missing'), 100)).toEqual({
      kind: 'unopenable',
      code: 'ENOENT',
    });
  });
});
