import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCapped, readRegularFile, readRegularHead } from './read-regular.js';

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
