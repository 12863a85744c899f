// The controlling terminal (/dev/tty), for a picker when stdin carries a
// payload: whether there is one, its three descriptions (keys, raw mode,
// screen), and its keys read by polling a non-blocking descriptor. A tty
// ReadStream on /dev/tty cannot carry the keys: under bun (the shipped
// binary) its pending blocking read outlives destroy() and keeps byre alive
// until the next keypress; a poll stops the moment the picker closes. Beside
// it, whether a descriptor (stdin) is a character device, as /dev/null is.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';

const TTY = '/dev/tty';

/** Whether this process has a controlling terminal it may open for reading and writing. */
export function ttyAvailable(): boolean {
  try {
    closeSync(openSync(TTY, 'r+'));
    return true;
  } catch {
    return false;
  }
}

/** Whether `fd` is open on a character device (a terminal, /dev/null); false when it is not open. */
export function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/** The terminal's descriptors: keys (non-blocking, polled), mode (only carries raw mode, never read), screen. */
export interface TtyDescriptors {
  keys: number;
  mode: number;
  screen: number;
}

/** Opens the three descriptions of /dev/tty; throws (none left open) when it cannot. */
export function openTtyDescriptors(): TtyDescriptors {
  const fds: number[] = [];
  try {
    fds.push(openSync(TTY, constants.O_RDONLY | constants.O_NONBLOCK));
    fds.push(openSync(TTY, 'r'));
    fds.push(openSync(TTY, 'w'));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  const [keys, mode, screen] = fds as [number, number, number];
  return { keys, mode, screen };
}

/** Keys from a non-blocking descriptor, polled every 10 ms; it owns and closes `fd`. */
export class PolledTtyInput extends Readable {
  readonly isTTY = true;
  readonly #fd: number;
  readonly #mode: { setRawMode(on: boolean): unknown };
  readonly #timer: NodeJS.Timeout;
  readonly #buf = Buffer.alloc(4096);

  constructor(fd: number, mode: { setRawMode(on: boolean): unknown }) {
    super({ read() {} });
    this.#fd = fd;
    this.#mode = mode;
    this.#timer = setInterval(() => this.#poll(), 10);
  }

  #poll(): void {
    for (;;) {
      let n: number;
      try {
        n = readSync(this.#fd, this.#buf, 0, this.#buf.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return;
        this.destroy(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (n === 0) {
        clearInterval(this.#timer);
        this.push(null);
        return;
      }
      this.push(Buffer.from(this.#buf.subarray(0, n)));
    }
  }

  setRawMode(on: boolean): this {
    this.#mode.setRawMode(on);
    return this;
  }

  ref(): this {
    this.#timer.ref();
    return this;
  }

  unref(): this {
    this.#timer.unref();
    return this;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearInterval(this.#timer);
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    callback(error);
  }
}
