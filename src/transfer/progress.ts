// The sending/receiving meter on stderr for large transfers: only on a TTY,
// only once a transfer has run for a moment, redrawn at most 5 times a second
// and erased at the end. It counts bytes; it never changes them.

import { Transform, type TransformCallback } from 'node:stream';
import type { Writer } from '../io.js';

const MIB = 1024 * 1024;

function formatBytes(n: number): string {
  return n >= MIB ? `${(n / MIB).toFixed(1)} MiB` : `${(n / 1024).toFixed(0)} KiB`;
}

export class Meter extends Transform {
  private bytes = 0;
  private last = 0;
  private shown = false;
  private readonly started = Date.now();

  constructor(
    private readonly err: Writer,
    private readonly verb: string,
    private readonly total: number | null,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    const now = Date.now();
    if (now - this.started > 500 && now - this.last > 200) {
      this.last = now;
      this.shown = true;
      const of = this.total === null ? '' : ` of ${formatBytes(this.total)}`;
      const pct =
        this.total === null || this.total === 0
          ? ''
          : ` (${Math.floor((this.bytes / this.total) * 100)}%)`;
      this.err.write(`\r\x1b[Kbyre: ${this.verb} ${formatBytes(this.bytes)}${of}${pct}`);
    }
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    this.clear();
    cb();
  }

  clear(): void {
    if (this.shown) this.err.write('\r\x1b[K');
    this.shown = false;
  }
}
