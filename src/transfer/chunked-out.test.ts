import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { testTempDir } from '../../test/support/temp.js';
import { HeldReadFile } from '../host/anchored.js';
import { ChunkedOut } from './chunked-out.js';

/** Every chunk the stream emits, as it emitted them. */
function drain(out: ChunkedOut): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    out.stream.on('data', (c: Buffer) => chunks.push(c));
    out.stream.on('end', () => resolve(chunks));
    out.stream.on('error', reject);
  });
}

describe('ChunkedOut', () => {
  it('hands out whole chunks, in order, whatever the pieces written', async () => {
    const out = new ChunkedOut(16);
    const reading = drain(out);
    const file = path.join(testTempDir('chunked'), 'f');
    writeFileSync(file, 'FFFFFFFFFFFFFFFFFFFF'); // 20 bytes
    const fd = HeldReadFile.openFollowing(file);
    try {
      out.write(Buffer.from('abc'));
      out.zeros(20);
      let got = 0;
      while (got < 20) got += out.readFrom(fd, 20 - got, got);
      expect(out.readFrom(fd, 5, 20)).toBe(0);
    } finally {
      fd.close();
    }
    out.write(Buffer.from('xyz'.repeat(7)));
    out.end();
    const chunks = await reading;
    expect(chunks.map((c) => c.length)).toEqual([16, 16, 16, 16]);
    expect(Buffer.concat(chunks).toString('latin1')).toBe(
      `abc${'\0'.repeat(20)}${'F'.repeat(20)}${'xyz'.repeat(7)}`,
    );
    expect(out.written).toBe(64);
  });

  it('makes the writer wait while nobody reads, and go on once the reader does', async () => {
    const out = new ChunkedOut(64 * 1024);
    // How far the archive may run ahead of the box.
    const ahead = out.stream.readableHighWaterMark;
    let waited = false;
    for (let i = 0; i < (2 * ahead) / (64 * 1024) && !waited; i++) {
      out.write(Buffer.alloc(64 * 1024, i));
      out.flush();
      const room = out.room();
      const state = await Promise.race([room.then(() => 'room'), tick().then(() => 'waiting')]);
      if (state === 'waiting') {
        waited = true;
        out.stream.resume();
        await room;
      }
    }
    expect(waited).toBe(true);
    out.end();
  });

  it('stops the writer when the reader goes away', async () => {
    const out = new ChunkedOut(64 * 1024);
    out.write(Buffer.alloc(out.stream.readableHighWaterMark + 128 * 1024));
    const room = out.room();
    out.stream.destroy();
    await expect(room).rejects.toThrow(/closed before it ended/);
    expect(() => out.write(Buffer.alloc(32))).toThrow(/closed before it ended/);
  });

  it('fails the stream with the writer’s error', async () => {
    const out = new ChunkedOut(16);
    const reading = drain(out);
    out.write(Buffer.from('partial'));
    out.fail(new Error('source vanished'));
    await expect(reading).rejects.toThrow('source vanished');
  });
});

function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}
