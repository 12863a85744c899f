import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { launchRecordHash, renderLaunchRecord } from '../gen/launch-record.js';
import { writeLaunchRecord } from './store.js';
import { sampleRecord } from '../../test/support/launch-record.js';
import { useTempDir } from '../../test/support/temp.js';
import { LAUNCH_RECORD_MAX_BYTES, readLaunchRecordFile, verifyLaunchRecord } from './verify.js';
import type { LaunchRecordRead } from './verify.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

const goodText = renderLaunchRecord(sampleRecord());
const goodHash = launchRecordHash(goodText);

function withHash(text: string): { hash: string; read: LaunchRecordRead } {
  return { hash: launchRecordHash(text), read: { kind: 'ok', bytes: utf8(text) } };
}

describe('verifyLaunchRecord', () => {
  const newer = withHash('record = 2\n');
  const older = withHash('record = 0\n');
  const broken = withHash('record = = 1\n');
  const badShape = withHash('record = 1\nbyre = 3\n');
  const notUtf8: LaunchRecordRead = { kind: 'ok', bytes: new Uint8Array([0x72, 0xff, 0xfe]) };
  const notUtf8Hash = launchRecordHash(new Uint8Array([0x72, 0xff, 0xfe]));

  it.each<[string, string | undefined, LaunchRecordRead, string, string?]>([
    ['no label', undefined, { kind: 'missing' }, 'pre_record'],
    ['empty label', '', { kind: 'missing' }, 'unreadable', 'label'],
    ['short label', 'abc123', { kind: 'missing' }, 'unreadable', 'label'],
    ['uppercase label', goodHash.toUpperCase(), { kind: 'missing' }, 'unreadable', 'label'],
    ['path-traversal label', `../${goodHash.slice(3)}`, { kind: 'missing' }, 'unreadable', 'label'],
    ['read error', goodHash, { kind: 'error', message: 'EACCES' }, 'unreadable', 'read'],
    ['ENOENT', goodHash, { kind: 'missing' }, 'missing'],
    [
      'bytes do not hash to the label',
      goodHash,
      { kind: 'ok', bytes: utf8(`${goodText} `) },
      'tampered',
    ],
    ['not UTF-8', notUtf8Hash, notUtf8, 'unreadable', 'launch.not-utf8'],
    ['TOML syntax error', broken.hash, broken.read, 'unreadable', 'launch.toml-syntax'],
    ['record < 1', older.hash, older.read, 'unreadable', 'launch.record-version'],
    ['wrong shape', badShape.hash, badShape.read, 'unreadable', 'launch.schema'],
    ['record > 1', newer.hash, newer.read, 'newer_schema'],
    ['intact record', goodHash, { kind: 'ok', bytes: utf8(goodText) }, 'verified'],
  ])('%s -> %s', (_name, label, read, kind, reason) => {
    const state = verifyLaunchRecord(label, () => read);
    expect(state.kind).toBe(kind);
    if (state.kind === 'unreadable') expect(state.reason).toBe(reason);
  });

  it('asks the reader for the label hash only once it is well formed', () => {
    const asked: string[] = [];
    const reader = (hash: string): LaunchRecordRead => {
      asked.push(hash);
      return { kind: 'missing' };
    };
    verifyLaunchRecord('nope', reader);
    verifyLaunchRecord(goodHash, reader);
    expect(asked).toEqual([goodHash]);
  });

  it('hands back the parsed record, the hash and the actual hash on tamper', () => {
    expect(verifyLaunchRecord(goodHash, () => ({ kind: 'ok', bytes: utf8(goodText) }))).toEqual({
      kind: 'verified',
      hash: goodHash,
      record: sampleRecord(),
    });
    const state = verifyLaunchRecord(goodHash, () => ({ kind: 'ok', bytes: utf8('x') }));
    expect(state).toEqual({ kind: 'tampered', hash: goodHash, actual: launchRecordHash('x') });
  });

  it('reports newer_schema with the version', () => {
    expect(verifyLaunchRecord(newer.hash, () => newer.read)).toEqual({
      kind: 'newer_schema',
      hash: newer.hash,
      version: 2,
    });
  });
});

describe('readLaunchRecordFile (real files)', () => {
  let dir: string;
  useTempDir('launch-verify', (tmp) => {
    dir = tmp;
  });

  const verifyIn = (launches: string, label: string | undefined) =>
    verifyLaunchRecord(label, (hash) => readLaunchRecordFile(launches, hash));

  it('verifies a record written by writeLaunchRecord', () => {
    const launches = path.join(dir, 'launches');
    const hash = writeLaunchRecord(launches, sampleRecord());
    expect(verifyIn(launches, hash)).toEqual({ kind: 'verified', hash, record: sampleRecord() });
  });

  it('editing any single byte of a written record yields tampered', () => {
    const launches = path.join(dir, 'launches');
    const hash = writeLaunchRecord(launches, sampleRecord());
    const file = path.join(launches, `${hash}.toml`);
    const original = readFileSync(file);
    for (const offset of [0, 10, Math.floor(original.length / 2), original.length - 1]) {
      const edited = Buffer.from(original);
      edited[offset] = edited[offset]! ^ 0x01;
      writeFileSync(file, edited);
      expect(verifyIn(launches, hash).kind).toBe('tampered');
    }
    writeFileSync(file, original);
    expect(verifyIn(launches, hash).kind).toBe('verified');
  });

  it('a missing file is missing', () => {
    expect(verifyIn(dir, goodHash)).toEqual({ kind: 'missing', hash: goodHash });
    expect(readLaunchRecordFile(path.join(dir, 'absent'), goodHash)).toEqual({ kind: 'missing' });
  });

  it('refuses a symlinked record file, even one pointing at the right bytes', () => {
    const real = path.join(dir, 'elsewhere.toml');
    writeFileSync(real, goodText);
    const launches = path.join(dir, 'launches');
    mkdirSync(launches);
    symlinkSync(real, path.join(launches, `${goodHash}.toml`));
    expect(readLaunchRecordFile(launches, goodHash).kind).toBe('error');
    const state = verifyIn(launches, goodHash);
    expect(state.kind).toBe('unreadable');
    if (state.kind === 'unreadable') expect(state.reason).toBe('read');
  });

  it('refuses a file over 1 MiB, and reads one at exactly 1 MiB', () => {
    const over = path.join(dir, `${'a'.repeat(64)}.toml`);
    writeFileSync(over, Buffer.alloc(LAUNCH_RECORD_MAX_BYTES + 1, 0x20));
    expect(readLaunchRecordFile(dir, 'a'.repeat(64))).toEqual({
      kind: 'error',
      message: 'record is larger than 1 MiB',
    });
    expect(verifyIn(dir, 'a'.repeat(64)).kind).toBe('unreadable');

    // A record padded to exactly the cap with a trailing comment still verifies.
    const base = goodText;
    const pad = LAUNCH_RECORD_MAX_BYTES - Buffer.byteLength(base) - 2;
    const exact = `${base}#${' '.repeat(pad)}\n`;
    expect(Buffer.byteLength(exact)).toBe(LAUNCH_RECORD_MAX_BYTES);
    const exactHash = launchRecordHash(exact);
    writeFileSync(path.join(dir, `${exactHash}.toml`), exact);
    expect(verifyIn(dir, exactHash).kind).toBe('verified');
  });

  it('refuses a directory or a FIFO where the record should be, without blocking', () => {
    mkdirSync(path.join(dir, `${'b'.repeat(64)}.toml`));
    expect(readLaunchRecordFile(dir, 'b'.repeat(64)).kind).toBe('error');
    execFileSync('mkfifo', [path.join(dir, `${'c'.repeat(64)}.toml`)]);
    expect(readLaunchRecordFile(dir, 'c'.repeat(64))).toEqual({
      kind: 'error',
      message: 'record is not a regular file',
    });
  });

  it('refuses a hash that is not 64 hex without touching the filesystem', () => {
    writeFileSync(path.join(dir, 'x.toml'), goodText);
    expect(readLaunchRecordFile(dir, 'x').kind).toBe('error');
  });
});
