// The installed index is read as a store file: only a regular file, never
// through a link and never waiting on a FIFO (the store is a box's to write
// under --self-edit), and what is not one is a problem, not an empty index.

import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../../test/support/temp.js';
import { packagesDir, readIndex, writeIndex } from './index-file.js';

const ENTRY = {
  id: 'demo',
  digest: `sha256:${'a'.repeat(64)}`,
  version: '1.0.0',
  kind: 'skill' as const,
  uri: 'https://example.invalid/demo.tar.gz',
  installedAt: '2026-12-02T00:00:00Z',
};

describe('installed index', () => {
  it('reads what writeIndex wrote, and nothing when there is no index', async () => {
    const home = testTempDir('index-file');
    expect(readIndex(home)).toEqual({ entries: [], problems: [] });
    await writeIndex(home, [ENTRY]);
    expect(readIndex(home)).toEqual({ entries: [ENTRY], problems: [] });
  });

  it('refuses an index that is a link, even to a good index', async () => {
    const home = testTempDir('index-file');
    const elsewhere = testTempDir('index-file');
    await writeIndex(elsewhere, [ENTRY]);
    mkdirSync(packagesDir(home), { recursive: true });
    symlinkSync(
      path.join(packagesDir(elsewhere), 'index.toml'),
      path.join(packagesDir(home), 'index.toml'),
    );
    const read = readIndex(home);
    expect(read.entries).toEqual([]);
    expect(read.problems).toEqual([expect.stringContaining('is a symbolic link')]);
  });

  it('refuses a FIFO without waiting for a writer', () => {
    const home = testTempDir('index-file');
    mkdirSync(packagesDir(home), { recursive: true });
    execFileSync('mkfifo', [path.join(packagesDir(home), 'index.toml')]);
    expect(readIndex(home).problems).toEqual([expect.stringContaining('is a FIFO')]);
  });

  it('says a malformed index is one', () => {
    const home = testTempDir('index-file');
    mkdirSync(packagesDir(home), { recursive: true });
    writeFileSync(path.join(packagesDir(home), 'index.toml'), '[packages\n');
    expect(readIndex(home).problems).toHaveLength(1);
  });
});
