import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  readCapped,
  readRegularFile,
  readRegularHead,
  sha256OfRegularFile,
  withNamedRegularFile,
} from './read-regular.js';

const dir = mkdtempSync(path.join(tmpdir(), 'byre-read-regular-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

const bytesOf = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe('readCapped', () => {
  // [file size, limit, expected size hint]: the hint may be wrong (a file
  // that grew or shrank after its stat); only the limit bounds the read.
  it.each([
    [0, 10, 1],
    [5, 10, 6],
    [5, 10, 1],
    [10, 10, 11],
    [11, 10, 1],
    [100, 1000, 1],
    [100, 1000, 3],
    [5000, 4097, 10],
    [5000, 100_000, 5001],
    [5000, 100_000, 100],
  ])(
    'a %i-byte file, limit %i, expecting %i: reads all of it up to the limit',
    (size, limit, expected) => {
      const data = bytesOf(size);
      const fd = openSync(fileOf(`f-${size}-${limit}-${expected}`, data), 'r');
      try {
        expect(readCapped(fd, limit, expected).equals(data.subarray(0, limit))).toBe(true);
      } finally {
        closeSync(fd);
      }
    },
  );
});

describe('readRegularFile', () => {
  it('reads a regular file within the cap', () => {
    const data = bytesOf(300);
    const read = readRegularFile(fileOf('ok', data), 300);
    expect(read.kind).toBe('ok');
    expect(read.kind === 'ok' && read.bytes.equals(data)).toBe(true);
  });

  it.each([['one byte over the cap', 301, { kind: 'too-large', size: 301 }]] as const)(
    'refuses %s',
    (_name, size, want) => {
      expect(readRegularFile(fileOf(`big-${size}`, bytesOf(size)), 300)).toEqual(want);
    },
  );

  it('refuses a symbolic link and calls a missing file missing', () => {
    const link = path.join(dir, 'link');
    symlinkSync(fileOf('target', bytesOf(3)), link);
    expect(readRegularFile(link, 10)).toEqual({ kind: 'not-regular', what: 'symlink' });
    expect(readRegularFile(path.join(dir, 'absent'), 10)).toEqual({ kind: 'missing' });
  });
});

describe('readRegularHead', () => {
  it('reads the first bytes of a file of any size, and refuses links and FIFOs as readRegularFile does', () => {
    const data = bytesOf(1000);
    const read = readRegularHead(fileOf('long', data), 255);
    expect(read.kind === 'ok' && read.bytes.equals(data.subarray(0, 255))).toBe(true);
    const short = readRegularHead(fileOf('short', bytesOf(3)), 255);
    expect(short.kind === 'ok' && short.bytes.length).toBe(3);
    const link = path.join(dir, 'head-link');
    symlinkSync(path.join(dir, 'long'), link);
    expect(readRegularHead(link, 10)).toEqual({ kind: 'not-regular', what: 'symlink' });
    const fifo = path.join(dir, 'head-fifo');
    execFileSync('mkfifo', [fifo]);
    expect(readRegularHead(fifo, 10)).toEqual({ kind: 'not-regular', what: 'fifo' });
  });
});

describe('sha256OfRegularFile', () => {
  it('hashes a file larger than its chunk, with its mode', () => {
    const file = path.join(dir, 'big.bin');
    const bytes = bytesOf(200_000);
    writeFileSync(file, bytes, { mode: 0o755 });
    chmodSync(file, 0o755);
    expect(sha256OfRegularFile(file)).toEqual({
      kind: 'ok',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      mode: 0o755,
    });
  });

  it('refuses a link and a FIFO without following or waiting, and says missing', () => {
    const target = path.join(dir, 'hash-target');
    writeFileSync(target, 'x');
    symlinkSync(target, path.join(dir, 'hash-link'));
    expect(sha256OfRegularFile(path.join(dir, 'hash-link'))).toEqual({
      kind: 'not-regular',
      what: 'symlink',
    });
    execFileSync('mkfifo', [path.join(dir, 'hash-fifo')]);
    expect(sha256OfRegularFile(path.join(dir, 'hash-fifo'))).toEqual({
      kind: 'not-regular',
      what: 'fifo',
    });
    expect(sha256OfRegularFile(path.join(dir, 'nothing'))).toEqual({ kind: 'missing' });
  });
});

describe('withNamedRegularFile', () => {
  it('hands fn the descriptor, size and a stream from the start, following a link the user named', async () => {
    const target = fileOf('named-target', Buffer.from('hello'));
    symlinkSync(target, path.join(dir, 'named-link'));
    for (const named of [target, path.join(dir, 'named-link')]) {
      const got = await withNamedRegularFile(named, async (open) => ({
        size: open.size,
        fd: typeof open.fd,
        body: await text(open.stream()),
        again: await text(open.stream()),
      }));
      expect(got).toEqual({
        kind: 'ok',
        value: { size: 5, fd: 'number', body: 'hello', again: 'hello' },
      });
    }
  });

  it('refuses a FIFO without waiting for a writer, and a directory; says missing; never calls fn', async () => {
    const fifo = path.join(dir, 'named-fifo');
    execFileSync('mkfifo', [fifo]);
    const fn = (): Promise<never> => Promise.reject(new Error('fn must not run'));
    expect(await withNamedRegularFile(fifo, fn)).toEqual({ kind: 'not-regular', what: 'fifo' });
    expect(await withNamedRegularFile(dir, fn)).toEqual({ kind: 'not-regular', what: 'directory' });
    expect(await withNamedRegularFile(path.join(dir, 'nothing'), fn)).toEqual({ kind: 'missing' });
  });
});
