// pickBox: the interactive leg of the target cascade. Renders BoxPicker on the
// caller's terminal -- stdin/stderr, or /dev/tty when stdin carries a piped
// payload -- and never writes to stdout, which is the machine contract.
// Callers import this module dynamically so ink loads only when a picker shows.

import { closeSync, constants, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import tty from 'node:tty';

import { ByreError } from '../errors.js';
import { BoxPicker } from './BoxPicker.js';
import { chosenCandidate, type PickerCandidate, type PickerOutcome } from './model/picker.js';
import { showScreen } from './screen.js';

export type { PickerCandidate } from './model/picker.js';

export interface PickBoxOptions {
  /** 'stdin': keys from stdin, screen on stderr. '/dev/tty': both on the controlling terminal. */
  tty: 'stdin' | '/dev/tty';
}

interface Terminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  close(): void;
}

/** Resolves to the chosen candidate, or null when the user cancels (Esc, q, Ctrl-C). */
export async function pickBox<T extends PickerCandidate>(
  candidates: readonly T[],
  opts: PickBoxOptions,
): Promise<T | null> {
  if (candidates.length === 0) return null;
  const term = openTerminal(opts.tty);
  const settled: { outcome: PickerOutcome } = { outcome: { kind: 'cancelled' } };
  try {
    await showScreen(
      <BoxPicker
        candidates={candidates}
        onSettled={(o) => {
          settled.outcome = o;
        }}
      />,
      term.input,
      term.output,
    );
  } finally {
    term.close();
  }
  return chosenCandidate(candidates, settled.outcome);
}

function openTerminal(which: PickBoxOptions['tty']): Terminal {
  if (which === 'stdin') {
    if (!process.stdin.isTTY) {
      throw new ByreError('cannot show the box picker: stdin is not a terminal', {
        rule: 'picker.no-tty',
        remedy: 'pick a box with --box <id>',
      });
    }
    return {
      input: process.stdin,
      output: process.stderr,
      close() {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
        process.stdin.pause();
      },
    };
  }
  const fds: number[] = [];
  try {
    // Three descriptions of the terminal: one polled non-blocking for keys,
    // one that only carries raw mode (never read), one for the screen.
    fds.push(openSync('/dev/tty', constants.O_RDONLY | constants.O_NONBLOCK));
    fds.push(openSync('/dev/tty', 'r'));
    fds.push(openSync('/dev/tty', 'w'));
  } catch (cause) {
    for (const fd of fds) closeSync(fd);
    throw new ByreError('cannot show the box picker: no usable controlling terminal (/dev/tty)', {
      rule: 'picker.no-tty',
      remedy: 'pick a box with --box <id>',
      cause,
    });
  }
  const [keysFd, modeFd, screenFd] = fds as [number, number, number];
  const mode = new tty.ReadStream(modeFd);
  const output = new tty.WriteStream(screenFd);
  const input = new PolledTtyInput(keysFd, mode);
  return {
    // ink wants a ReadStream; PolledTtyInput carries what it uses (isTTY, setRawMode, ref/unref).
    input: input as unknown as NodeJS.ReadStream,
    output,
    close() {
      mode.setRawMode(false);
      input.destroy();
      mode.destroy();
      output.destroy();
    },
  };
}

/**
 * Keys from /dev/tty, read by polling a non-blocking descriptor. A tty
 * ReadStream on /dev/tty cannot be used directly: under bun (the shipped
 * binary) its pending blocking read outlives destroy() and keeps byre alive
 * until the next keypress. A poll stops the moment the picker closes.
 */
class PolledTtyInput extends Readable {
  readonly isTTY = true;
  readonly #fd: number;
  readonly #mode: tty.ReadStream;
  readonly #timer: NodeJS.Timeout;
  readonly #buf = Buffer.alloc(4096);

  constructor(fd: number, mode: tty.ReadStream) {
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
