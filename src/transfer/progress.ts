// The sending/receiving meter on stderr for large transfers: only on a TTY,
// only once a transfer has run for a moment, redrawn at most 5 times a second
// and erased at the end. It counts bytes; it never changes them.

import { Transform, type TransformCallback } from 'node:stream';
import type { Writer } from '../io.js';

const KIB = 1024;
const MIB = KIB * KIB;
const GIB = MIB * KIB;

/** A byte count for a person: `512 B`, `3 KiB`, `1.5 MiB`, `8.0 GiB`. */
export function formatBytes(n: number): string {
  if (n >= GIB) return `${(n / GIB).toFixed(1)} GiB`;
  if (n >= MIB) return `${(n / MIB).toFixed(1)} MiB`;
  return n >= KIB ? `${(n / KIB).toFixed(0)} KiB` : `${n} B`;
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
