import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';

import { buildStage, stageTarInput } from './stage-writer.js';
import { TAR_NAME_MAX, TAR_PATH_MAX, checkTarEntry, judgeGrabEntry } from './tar-entry.js';

describe('checkTarEntry', () => {
  it.each([
    ['a.txt', 'file', ['a.txt'], 'file'],
    ['dir/', 'directory', ['dir'], 'dir'],
    ['dir/sub/x', 'file', ['dir', 'sub', 'x'], 'file'],
    ['we ird\nname', 'file', ['we ird\nname'], 'file'],
  ])('accepts %j', (name, type, components, kind) => {
    expect(checkTarEntry({ name, type })).toEqual({ ok: true, components, kind });
  });

  it.each([
    ['../x', 'file', 'transfer.tar-dotdot'],
    ['a/../../x', 'file', 'transfer.tar-dotdot'],
    ['/etc/passwd', 'file', 'transfer.tar-absolute'],
    ['./a', 'file', 'transfer.tar-path'],
    ['a//b', 'file', 'transfer.tar-path'],
    ['', 'file', 'transfer.tar-path'],
    ['link', 'symlink', 'transfer.tar-link'],
    ['hard', 'link', 'transfer.tar-link'],
    ['fifo', 'fifo', 'transfer.tar-special'],
    ['dev', 'character-device', 'transfer.tar-special'],
    ['sparse', null, 'transfer.tar-special'],
    ['a\0b', 'file', 'transfer.tar-path'],
    ['n'.repeat(TAR_NAME_MAX + 1), 'file', 'transfer.tar-too-long'],
    [`d/${'n/'.repeat(TAR_PATH_MAX / 2)}x`, 'file', 'transfer.tar-too-long'],
  ])('refuses %j (%s)', (name, type, rule) => {
    expect(checkTarEntry({ name, type })).toMatchObject({ ok: false, rule });
  });

  it('accepts a name of exactly the caps, counted in bytes', () => {
    expect(checkTarEntry({ name: 'n'.repeat(TAR_NAME_MAX), type: 'file' }).ok).toBe(true);
    expect(checkTarEntry({ name: 'é'.repeat(127), type: 'file' }).ok).toBe(true);
    expect(checkTarEntry({ name: 'é'.repeat(128), type: 'file' }).ok).toBe(false);
    const path = Array.from({ length: 16 }, () => 'n'.repeat(255)).join('/');
    expect(Buffer.byteLength(path)).toBe(TAR_PATH_MAX - 1);
    expect(checkTarEntry({ name: path, type: 'file' }).ok).toBe(true);
  });
});

describe('judgeGrabEntry: what of the box’s archive may land', () => {
  it.each([
    ['./a/b', 'file', 'file', ['a', 'b']],
    ['a/', 'directory', 'dir', ['a']],
    ['././a', 'file', 'file', ['a']],
    ['./', 'directory', 'dir', []],
    ['.', 'directory', 'dir', []],
    ['', 'directory', 'dir', []],
    ['./x', 'contiguous-file', 'file', ['x']],
    ['./we ird\nname', 'file', 'file', ['we ird\nname']],
  ])('lands %j (%s)', (name, type, kind, components) => {
    expect(judgeGrabEntry({ name, type })).toEqual({ ok: true, kind, components });
  });

  it.each([
    ['../x', 'file', 'outside the grabbed directory'],
    ['./a/../../x', 'file', 'outside the grabbed directory'],
    ['./a/..', 'directory', 'outside the grabbed directory'],
    ['/etc/passwd', 'file', 'an absolute path'],
    ['/', 'directory', 'an absolute path'],
    ['a//b', 'file', 'an empty or `.` path component'],
    ['a/./b', 'file', 'an empty or `.` path component'],
    ['a\0b', 'file', 'a NUL in the path'],
    ['./', 'file', 'a file entry naming the grabbed directory itself'],
    ['./l', 'symlink', 'a symlink'],
    ['./h', 'link', 'a hard link'],
    ['./p', 'fifo', 'a fifo'],
    ['./c', 'character-device', 'a character device'],
    ['./b', 'block-device', 'a block device'],
    ['./s', null, 'an entry of unknown type'],
    [`./${'n'.repeat(TAR_NAME_MAX + 1)}`, 'file', `a name longer than ${TAR_NAME_MAX} bytes`],
    [`./${'n/'.repeat(TAR_PATH_MAX / 2)}x`, 'file', `a path longer than ${TAR_PATH_MAX} bytes`],
  ])('skips %j (%s): %s', (name, type, why) => {
    expect(judgeGrabEntry({ name, type })).toEqual({ ok: false, why });
  });
});

describe('an incoming archive must end with its end-of-archive marker', () => {
  async function packed(entries: { name: string; body?: string }[]): Promise<Buffer> {
    const pack = tar.pack();
    const reading = (async () => {
      const chunks: Buffer[] = [];
      for await (const c of pack) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    })();
    for (const e of entries)
      pack.entry({ name: e.name, size: (e.body ?? '').length }, e.body ?? '');
    pack.finalize();
    return reading;
  }

  /** Stages `archive` (in `chunk`-byte pieces) and returns the staged item names, or the error. */
  async function stage(archive: Buffer, chunk = 1000): Promise<string[]> {
    const pieces: Buffer[] = [];
    for (let i = 0; i < archive.length; i += chunk) pieces.push(archive.subarray(i, i + chunk));
    const { writer, done } = buildStage((w) => stageTarInput(w, Readable.from(pieces)));
    const draining = (async () => {
      for await (const c of writer.stream) void c;
    })();
    await Promise.all([done, draining.catch(() => undefined)]);
    return writer.items;
  }

  it('accepts a finished archive, whatever the chunking', async () => {
    const archive = await packed([
      { name: 'a.txt', body: 'a' },
      { name: 'd/b.txt', body: 'b' },
    ]);
    for (const chunk of [1, 511, 512, 4096]) {
      expect(await stage(archive, chunk)).toHaveLength(2);
    }
  });

  it('accepts an archive with only the marker, and one from GNU tar (padded records, long names)', async () => {
    expect(await stage(Buffer.alloc(1024))).toEqual([]);
    const dir = testTempDir('tar');
    const long = 'n'.repeat(150);
    writeFileSync(path.join(dir, long), 'long');
    writeFileSync(path.join(dir, 'zeros.bin'), Buffer.alloc(2048));
    const r = spawnSync('tar', ['-c', '-f', '-', '-C', dir, long, 'zeros.bin']);
    expect(r.status).toBe(0);
    expect(await stage(r.stdout)).toHaveLength(2);
  });

  it('refuses an archive cut at an entry boundary, even after a file of zeros', async () => {
    const archive = await packed([
      { name: 'a.txt', body: 'a' },
      { name: 'zeros.bin', body: '\0'.repeat(1024) },
      { name: 'c.txt', body: 'c' },
    ]);
    // Cut right after zeros.bin's data: what is left looks like padding.
    const cut = archive.subarray(0, 512 + 512 + 512 + 1024);
    await expect(stage(cut)).rejects.toMatchObject({ rule: 'transfer.truncated-archive' });
    // Cut after the first entry.
    await expect(stage(archive.subarray(0, 1024))).rejects.toMatchObject({
      rule: 'transfer.truncated-archive',
    });
    // Nothing at all is not an archive either.
    await expect(stage(Buffer.alloc(0))).rejects.toMatchObject({
      rule: 'transfer.truncated-archive',
    });
  });
});
