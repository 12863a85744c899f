import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';

import { testTempDir } from '../../test/support/temp.js';
import { HeldReadFile } from '../host/anchored.js';
import { STAGE_COMPLETE } from './box-scripts.js';
import { buildStage, stageLocalSources, type StageWriter } from './stage-writer.js';

/** Every entry of the staged archive: name, type and body. */
async function entriesOf(
  fill: (w: StageWriter) => Promise<void>,
): Promise<{ name: string; type: string; body: Buffer }[]> {
  const { writer, done } = buildStage(fill);
  const extract = tar.extract();
  const seen: { name: string; type: string; body: Buffer }[] = [];
  const reading = (async () => {
    for await (const e of extract) {
      const parts: Buffer[] = [];
      for await (const c of e) parts.push(c as Buffer);
      seen.push({ name: e.header.name, type: e.header.type ?? '', body: Buffer.concat(parts) });
    }
  })();
  writer.stream.pipe(extract);
  await Promise.all([done, reading]);
  return seen;
}

describe('the staged archive', () => {
  it('carries a tree of small and chunk-spanning files byte for byte, then the marker', async () => {
    const root = testTempDir('stage');
    const src = path.join(root, 'src');
    mkdirSync(path.join(src, 'sub'), { recursive: true });
    const big = Buffer.alloc(200 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
    writeFileSync(path.join(src, 'big.bin'), big);
    writeFileSync(path.join(src, 'sub', 'small.txt'), 'small');
    writeFileSync(path.join(src, 'sub', 'empty'), '');
    const notes: string[] = [];
    const seen = await entriesOf((w) => stageLocalSources(w, [src], notes));
    expect(seen.map((e) => [e.name, e.type])).toEqual([
      ['000001/src', 'directory'],
      ['000001/src/big.bin', 'file'],
      ['000001/src/sub', 'directory'],
      ['000001/src/sub/empty', 'file'],
      ['000001/src/sub/small.txt', 'file'],
      [STAGE_COMPLETE, 'file'],
    ]);
    expect(seen[1]?.body.equals(big)).toBe(true);
    expect(seen[4]?.body.toString()).toBe('small');
    expect(notes).toEqual([]);
  });

  it('fails (and breaks the stream) when a file is shorter than byre first saw it', async () => {
    const file = path.join(testTempDir('stage'), 'f');
    writeFileSync(file, 'four');
    const held = HeldReadFile.openFollowing(file);
    try {
      Object.assign(held.stats, { size: 100 });
      const { writer, done } = buildStage((w) => w.fileFrom('000001/f', held, 'f'));
      const reading = (async () => {
        for await (const c of writer.stream) void c;
      })();
      await expect(done).rejects.toMatchObject({ rule: 'transfer.source-changed' });
      await expect(reading).rejects.toMatchObject({ rule: 'transfer.source-changed' });
    } finally {
      held.close();
    }
  });

  it('fails when an entry brings fewer bytes than its size says', async () => {
    const { writer, done } = buildStage((w) =>
      w.file('000001/f', 10, 0o644, new Date(), Readable.from([Buffer.from('short')])),
    );
    const broken = new Promise((resolve) => writer.stream.on('error', resolve));
    writer.stream.resume();
    await expect(broken).resolves.toMatchObject({ rule: 'transfer.size-mismatch' });
    await expect(done).rejects.toMatchObject({ rule: 'transfer.size-mismatch' });
  });
});
