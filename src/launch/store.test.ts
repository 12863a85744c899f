import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { ByreError } from '../errors.js';
import { launchRecordHash, renderLaunchRecord } from '../gen/launch-record.js';
import {
  readDeliveryReceipt,
  reapLaunchRecords,
  writeDeliveryReceipt,
  writeLaunchRecord,
} from './store.js';
import { sampleRecord } from '../../test/support/launch-record.js';
import { useTempDir } from '../../test/support/temp.js';

let dir: string;
let launches: string;
useTempDir('launch-store', (tmp) => {
  dir = tmp;
  launches = path.join(dir, 'projects', 'app-a1b2c3', 'launches');
});

describe('writeLaunchRecord', () => {
  it('writes <sha256>.toml holding exactly the rendered bytes, 0600 in a 0700 dir', () => {
    const hash = writeLaunchRecord(launches, sampleRecord());
    const text = renderLaunchRecord(sampleRecord());
    expect(hash).toBe(launchRecordHash(text));
    const file = path.join(launches, `${hash}.toml`);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(launchRecordHash(readFileSync(file))).toBe(hash);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(launches).mode & 0o777).toBe(0o700);
    expect(readdirSync(launches)).toEqual([`${hash}.toml`]);
  });

  it('tightens an existing launches dir to 0700', () => {
    mkdirSync(launches, { recursive: true, mode: 0o755 });
    writeLaunchRecord(launches, sampleRecord());
    expect(statSync(launches).mode & 0o777).toBe(0o700);
  });

  it('is idempotent for the same record and leaves no temp files', () => {
    const a = writeLaunchRecord(launches, sampleRecord());
    const b = writeLaunchRecord(launches, sampleRecord());
    expect(a).toBe(b);
    expect(readdirSync(launches)).toEqual([`${a}.toml`]);
  });

  it('different records get different files', () => {
    const a = writeLaunchRecord(launches, sampleRecord());
    const b = writeLaunchRecord(launches, { ...sampleRecord(), workdir: '/other' });
    expect(a).not.toBe(b);
    expect(readdirSync(launches).sort()).toEqual([`${a}.toml`, `${b}.toml`].sort());
  });

  it('refuses a launches dir that is a symlink, with launch.write-failed', () => {
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.dirname(launches), { recursive: true });
    symlinkSync(elsewhere, launches);
    let caught: unknown;
    try {
      writeLaunchRecord(launches, sampleRecord());
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ByreError);
    expect((caught as ByreError).rule).toBe('launch.write-failed');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('fails with launch.write-failed when the path is a file', () => {
    mkdirSync(path.dirname(launches), { recursive: true });
    writeFileSync(launches, '');
    expect(() => writeLaunchRecord(launches, sampleRecord())).toThrow(
      expect.objectContaining({ rule: 'launch.write-failed' }),
    );
  });
});

describe('reapLaunchRecords', () => {
  function seed(): { kept: string; gone: string; other: string[] } {
    const kept = writeLaunchRecord(launches, sampleRecord());
    const gone = writeLaunchRecord(launches, { ...sampleRecord(), workdir: '/old' });
    const other = [
      'notes.txt',
      `${'A'.repeat(64)}.toml`,
      `${'a'.repeat(63)}.toml`,
      `.${'a'.repeat(64)}.1234.tmp`,
    ];
    for (const name of other) writeFileSync(path.join(launches, name), 'x');
    return { kept, gone, other };
  }

  it('deletes only unreferenced <64hex>.toml records', () => {
    const { kept, gone, other } = seed();
    const result = reapLaunchRecords(launches, new Set([kept]));
    expect(result).toEqual({ kind: 'reaped', deleted: [gone], kept: 1, failed: [] });
    expect(readdirSync(launches).sort()).toEqual([`${kept}.toml`, ...other].sort());
  });

  it('deletes every record when none is referenced', () => {
    const { kept, gone, other } = seed();
    const result = reapLaunchRecords(launches, new Set());
    expect(result.kind).toBe('reaped');
    if (result.kind === 'reaped') expect(result.deleted).toEqual([kept, gone].sort());
    expect(readdirSync(launches).sort()).toEqual([...other].sort());
  });

  it('deletes NOTHING when referenced is null, and says so', () => {
    const { kept, gone } = seed();
    const before = readdirSync(launches).sort();
    const result = reapLaunchRecords(launches, null);
    expect(result).toMatchObject({ kind: 'abandoned', reason: 'engines-unknown' });
    expect(readdirSync(launches).sort()).toEqual(before);
    expect(existsSync(path.join(launches, `${kept}.toml`))).toBe(true);
    expect(existsSync(path.join(launches, `${gone}.toml`))).toBe(true);
  });

  it('treats an absent launches dir as nothing to reap', () => {
    expect(reapLaunchRecords(launches, new Set())).toEqual({
      kind: 'reaped',
      deleted: [],
      kept: 0,
      failed: [],
    });
  });

  it('does not reap through a symlinked launches dir', () => {
    const elsewhere = path.join(dir, 'elsewhere');
    const hash = writeLaunchRecord(elsewhere, sampleRecord());
    mkdirSync(path.dirname(launches), { recursive: true });
    symlinkSync(elsewhere, launches);
    expect(reapLaunchRecords(launches, new Set())).toMatchObject({
      kind: 'abandoned',
      reason: 'directory-unusable',
    });
    expect(lstatSync(path.join(elsewhere, `${hash}.toml`)).isFile()).toBe(true);
  });

  it('reports a record it could not delete and carries on', () => {
    mkdirSync(launches, { recursive: true });
    const stuck = 'd'.repeat(64);
    mkdirSync(path.join(launches, `${stuck}.toml`));
    const gone = writeLaunchRecord(launches, sampleRecord());
    const result = reapLaunchRecords(launches, new Set());
    expect(result.kind).toBe('reaped');
    if (result.kind === 'reaped') {
      expect(result.deleted).toEqual([gone]);
      expect(result.failed.map((f) => f.hash)).toEqual([stuck]);
    }
  });
});

describe('delivery receipts', () => {
  const hash = 'a'.repeat(64);
  const other = 'b'.repeat(64);

  it('round-trip the keys (names only), 0600', () => {
    writeDeliveryReceipt(dir, hash, ['CERT', 'API_KEY']);
    expect(readDeliveryReceipt(dir, hash)).toEqual(['API_KEY', 'CERT']);
    expect(statSync(path.join(dir, `${hash}.delivered`)).mode & 0o777).toBe(0o600);
    expect(readDeliveryReceipt(dir, other)).toBeNull();
  });

  it('refuse a key that is not a name, and read a malformed or linked receipt as none', () => {
    expect(() => writeDeliveryReceipt(dir, hash, ['A=b'])).toThrow(RangeError);
    writeFileSync(path.join(dir, `${hash}.delivered`), 'API KEY=value\n');
    expect(readDeliveryReceipt(dir, hash)).toBeNull();
    writeFileSync(path.join(dir, 'elsewhere'), 'API_KEY\n');
    symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, `${other}.delivered`));
    expect(readDeliveryReceipt(dir, other)).toBeNull();
  });

  it('are reaped with their record', () => {
    writeDeliveryReceipt(dir, hash, ['API_KEY']);
    writeDeliveryReceipt(dir, other, ['API_KEY']);
    reapLaunchRecords(dir, new Set([other]));
    expect(readDeliveryReceipt(dir, hash)).toBeNull();
    expect(readDeliveryReceipt(dir, other)).toEqual(['API_KEY']);
  });
});
