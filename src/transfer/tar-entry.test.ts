import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';

import { buildStage, stageTarInput } from './stage-writer.js';
import { checkTarEntry } from './tar-entry.js';

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
  ])('refuses %j (%s)', (name, type, rule) => {
    expect(checkTarEntry({ name, type })).toMatchObject({ ok: false, rule });
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
