import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';

import { END_OF_ARCHIVE, paddingOf, tarHeader } from './tar-header.js';

type TarFields = Parameters<typeof tarHeader>[0];

const MTIME = new Date('2026-12-01T07:30:45.678Z');

/** What tar-stream's pack writes for `entries` (the encoder byre used before). */
async function tarStream(entries: readonly TarFields[]): Promise<Buffer> {
  const pack = tar.pack();
  const reading = (async () => {
    const chunks: Buffer[] = [];
    for await (const c of pack) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  })();
  for (const e of entries) {
    const header = { name: e.name, type: e.type, size: e.size, mode: e.mode, mtime: e.mtime };
    if (e.type === 'file') pack.entry(header, Buffer.alloc(e.size, 0x61));
    else pack.entry(header);
  }
  pack.finalize();
  return reading;
}

function ours(entries: readonly TarFields[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e));
    if (e.type === 'file') parts.push(Buffer.alloc(e.size, 0x61), Buffer.alloc(paddingOf(e.size)));
  }
  parts.push(END_OF_ARCHIVE);
  return Buffer.concat(parts);
}

const file = (name: string, size = 3, mode = 0o644): TarFields => ({
  name,
  type: 'file',
  size,
  mode,
  mtime: MTIME,
});
const dir = (name: string, mode = 0o755): TarFields => ({
  name,
  type: 'directory',
  size: 0,
  mode,
  mtime: MTIME,
});

describe('tarHeader', () => {
  it.each([
    ['a short file', [file('000001/a.txt')]],
    ['a directory and its file', [dir('000001/d', 0o700), file('000001/d/x', 0, 0o600)]],
    ['sizes around a block', [file('a', 511), file('b', 512), file('c', 513), file('d', 0)]],
    ['a 100-byte name', [file('n'.repeat(100))]],
    ['a long path split into prefix and name', [file(`${'p'.repeat(120)}/${'n'.repeat(90)}`)]],
    ['a long name with no slash (pax)', [file('n'.repeat(101))]],
    ['a prefix over 155 bytes (pax)', [file(`${'p'.repeat(80)}/${'q'.repeat(80)}/n`)]],
    ['a non-ASCII name (pax)', [file('000001/résumé ✓.pdf'), dir('000001/日本')]],
    ['a name of control characters and spaces', [file('000001/a b\tc')]],
    ['odd modes', [file('x', 1, 0o4755), dir('y', 0o1777)]],
  ])('writes what tar-stream wrote: %s', async (_what, entries) => {
    expect(ours(entries).equals(await tarStream(entries))).toBe(true);
  });

  it('reads back through a tar parser with every name and size intact', async () => {
    const entries = [file('000001/résumé.pdf', 700), file(`${'d'.repeat(130)}/${'f'.repeat(99)}`)];
    const extract = tar.extract();
    const seen: { name: string; size: number }[] = [];
    const reading = (async () => {
      for await (const e of extract) {
        let size = 0;
        for await (const c of e) size += (c as Buffer).length;
        seen.push({ name: e.header.name, size });
      }
    })();
    extract.end(ours(entries));
    await reading;
    expect(seen).toEqual(entries.map((e) => ({ name: e.name, size: e.size })));
  });

  it('puts sizes past 8 GiB in base-256 and keeps 8 GiB - 1 octal', () => {
    const max = 8 ** 11 - 1;
    expect(tarHeader(file('a', max)).toString('latin1', 124, 136)).toBe('77777777777 ');
    const big = tarHeader(file('a', max + 1));
    expect(big[124]).toBe(0x80);
    expect(big.readUIntBE(130, 6)).toBe(max + 1);
  });

  it('clamps an mtime before 1970 to 0 and always writes a valid checksum', () => {
    const h = tarHeader({ ...file('a'), mtime: new Date(-5000) });
    expect(h.toString('latin1', 136, 148)).toBe('00000000000 ');
    let sum = 8 * 0x20;
    for (let i = 0; i < h.length; i++) if (i < 148 || i >= 156) sum += h[i] ?? 0;
    expect(parseInt(h.toString('latin1', 148, 154), 8)).toBe(sum);
  });

  it.each([
    [0, 0],
    [1, 511],
    [511, 1],
    [512, 0],
    [513, 511],
  ])('pads %i bytes with %i zeros', (size, pad) => {
    expect(paddingOf(size)).toBe(pad);
  });
});
