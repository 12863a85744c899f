import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { readEngineRecord, readOtherEngineRecords, writeEngineRecord } from './engine-record.js';

let dir = '';
useTempDir('engine-record', (tmp) => {
  dir = path.join(tmp, 'projects', 'p-0a1b2c');
  mkdirSync(dir, { recursive: true });
});

describe('engine records on disk', () => {
  it('writes one line and reads it back; nothing written reads as no record', async () => {
    expect(readEngineRecord(dir, 'p-0a1b2c')).toBeNull();
    await writeEngineRecord(dir, 'p-0a1b2c', { last: 'podman', unresolved: ['docker'] });
    expect(readFileSync(path.join(dir, 'engine.p-0a1b2c'), 'utf8')).toBe(
      'podman unresolved=docker\n',
    );
    expect(readEngineRecord(dir, 'p-0a1b2c')).toEqual({ last: 'podman', unresolved: ['docker'] });
  });

  it('a symlink, a FIFO or an oversized file is no record (every engine is asked)', () => {
    writeFileSync(path.join(dir, 'target'), 'docker\n');
    symlinkSync(path.join(dir, 'target'), path.join(dir, 'engine.a-0a1b2c'));
    execFileSync('mkfifo', [path.join(dir, 'engine.b-0a1b2c')]);
    writeFileSync(path.join(dir, 'engine.c-0a1b2c'), `docker${' unresolved=podman'.repeat(40)}\n`);
    for (const id of ['a-0a1b2c', 'b-0a1b2c', 'c-0a1b2c']) {
      expect(readEngineRecord(dir, id)).toBeNull();
    }
  });

  it('lists the other worktrees’ records, an unreadable one as null', async () => {
    await writeEngineRecord(dir, 'p-0a1b2c', { last: 'docker', unresolved: [] });
    await writeEngineRecord(dir, 'w-1a1b2c', { last: 'podman', unresolved: [] });
    writeFileSync(path.join(dir, 'engine.w-2a1b2c'), 'garbage\n');
    writeFileSync(path.join(dir, 'byre.config'), '');
    expect(readOtherEngineRecords(dir, 'p-0a1b2c')).toEqual([
      { last: 'podman', unresolved: [] },
      null,
    ]);
  });

  it('a project directory that does not exist has no other records', () => {
    expect(readOtherEngineRecords(path.join(dir, 'nope'), 'p-0a1b2c')).toEqual([]);
  });
});
