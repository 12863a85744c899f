// The build log's file: private, truncated each run, and no log at all where
// a link, a FIFO or a directory stands in its place.

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { openLogFile } from './log-file.js';

const tmp = useTempDir('log-file');

describe('openLogFile', () => {
  it("makes a 0600 file, truncates the last run's, and drops a write after close", () => {
    const fresh = path.join(tmp.path, 'fresh.log');
    openLogFile(fresh)?.close();
    expect(lstatSync(fresh).mode & 0o777).toBe(0o600);
    const file = path.join(tmp.path, 'build.log');
    writeFileSync(file, 'the last build, longer');
    const log = openLogFile(file);
    log?.write('one\n');
    log?.write('two\n');
    log?.close();
    log?.write('late\n');
    log?.close();
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('is null for a planted link (its target untouched), a FIFO and a directory', () => {
    const target = path.join(tmp.path, 'target');
    writeFileSync(target, 'theirs');
    symlinkSync(target, path.join(tmp.path, 'link'));
    expect(openLogFile(path.join(tmp.path, 'link'))).toBeNull();
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    execFileSync('mkfifo', [path.join(tmp.path, 'fifo')]);
    expect(openLogFile(path.join(tmp.path, 'fifo'))).toBeNull();
    mkdirSync(path.join(tmp.path, 'dir'));
    expect(openLogFile(path.join(tmp.path, 'dir'))).toBeNull();
    expect(openLogFile(path.join(tmp.path, 'missing', 'build.log'))).toBeNull();
  });
});
