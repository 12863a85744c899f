// The byte side of a staged archive: headers, file bodies and padding are
// copied (or read with one synchronous call) into 64 KiB chunks, and only
// whole chunks reach the stream. A tree of small files used to cost a stream
// write per header and per body, each a syscall in byre and a wake-up in every
// process that relays the bytes into the box (adr/0004).

import { Readable } from 'node:stream';

import type { HeldReadFile } from '../host/anchored.js';

const CHUNK = 64 * 1024;

/**
 * How far the archive may run ahead of the box. The exec takes ~65 ms to
 * start; a 1,000-file tree (4.6 MB) is read whole in that time instead of
 * competing with the box's `tar -x` for the two cores afterwards.
 */
const AHEAD = 8 * 1024 * 1024;

export class ChunkedOut {
  readonly stream: Readable;
  private buf = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  /** The stream is at its high-water mark: the writer waits for the reader. */
  private full = false;
  private wake: (() => void) | null = null;
  /** Why no more bytes can go out (the reader went away, or the writer failed). */
  private closed: Error | null = null;
  /** Bytes handed to the stream so far (for tests and the meter's sake). */
  written = 0;

  constructor(chunk = CHUNK) {
    this.buf = Buffer.allocUnsafe(chunk);
    this.stream = new Readable({
      highWaterMark: Math.max(AHEAD, chunk),
      read: () => {
        this.full = false;
        this.release();
      },
      destroy: (error, callback) => {
        this.closed ??= error ?? new Error('the archive stream was closed before it ended');
        this.release();
        callback(error);
      },
    });
  }

  private release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private check(): void {
    if (this.closed !== null) throw this.closed;
  }

  /** Hands the filled part of the chunk to the stream. */
  flush(): void {
    this.check();
    if (this.used === 0) return;
    const chunk = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.used = 0;
    this.written += chunk.length;
    if (!this.stream.push(chunk)) this.full = true;
  }

  /** Copies `bytes` in. */
  write(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.used === this.buf.length) this.flush();
      const n = Math.min(bytes.length - at, this.buf.length - this.used);
      this.buf.set(bytes.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
    }
  }

  zeros(count: number): void {
    let left = count;
    while (left > 0) {
      if (this.used === this.buf.length) this.flush();
      const n = Math.min(left, this.buf.length - this.used);
      this.buf.fill(0, this.used, this.used + n);
      this.used += n;
      left -= n;
    }
  }

  /**
   * Reads up to `max` bytes of `file` at `position` straight into the chunk
   * (one synchronous read, never more than the chunk has room for); returns
   * how many came, 0 at the end of the file.
   */
  readFrom(file: HeldReadFile, max: number, position: number): number {
    if (this.used === this.buf.length) this.flush();
    const n = file.readAt(
      this.buf,
      this.used,
      Math.min(max, this.buf.length - this.used),
      position,
    );
    this.used += n;
    return n;
  }

  /** Resolves once the stream wants more; rejects if it never will. */
  async room(): Promise<void> {
    this.check();
    if (!this.full) return;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.check();
  }

  /** Flushes what is left and ends the stream. */
  end(): void {
    this.flush();
    this.closed = new Error('the archive already ended');
    this.stream.push(null);
  }

  /** Fails the stream, so whoever reads it sees a broken archive. */
  fail(error: Error): void {
    this.closed ??= error;
    this.stream.destroy(error);
  }
}
