// Reading a secret (a passphrase, a credential value) from where the user
// pointed byre: a descriptor it inherited (`--passphrase-fd N`, stdin) or a
// file the user named, links followed, since the user chose it. A FIFO or a
// device named as a file is refused before any read; a read stops one byte
// past its cap; a non-blocking pipe with nothing yet is polled, never spun
// on; and the scratch buffer a secret passed through is zeroed.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
}

/** One read(2) into `buffer` at `offset`, waiting while a non-blocking pipe has nothing yet; 0 at the end. */
function readWaiting(fd: number, buffer: Buffer, offset: number, length: number): number {
  for (;;) {
    try {
      return readSync(fd, buffer, offset, length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') return 0;
      if (code !== 'EAGAIN') throw error;
      pause();
    }
  }
}

/**
 * One line of `fd`, read a byte at a time so nothing after the newline is
 * consumed (the descriptor may carry more for someone else); without its
 * `\n` (and a `\r` before it). `too-long` past `max` bytes; OS errors thrown.
 */
export function readSecretLine(
  fd: number,
  max: number,
): { kind: 'ok'; text: string } | { kind: 'too-long' } {
  const bytes: number[] = [];
  const one = Buffer.alloc(1);
  for (;;) {
    if (readWaiting(fd, one, 0, 1) === 0 || one[0] === 0x0a) break;
    bytes.push(one[0] as number);
    if (bytes.length > max) {
      bytes.fill(0);
      return { kind: 'too-long' };
    }
  }
  if (bytes[bytes.length - 1] === 0x0d) bytes.pop();
  const text = Buffer.from(bytes).toString('utf8');
  bytes.fill(0);
  one.fill(0);
  return { kind: 'ok', text };
}

/** `fd` read to its end, or `too-large` past `cap` bytes; OS errors thrown. */
export function readSecretAll(fd: number, cap: number): Uint8Array | 'too-large' {
  const buffer = Buffer.alloc(cap + 1);
  try {
    let length = 0;
    for (;;) {
      const n = readWaiting(fd, buffer, length, buffer.length - length);
      if (n === 0) break;
      length += n;
      if (length > cap) return 'too-large';
    }
    return new Uint8Array(buffer.subarray(0, length));
  } finally {
    buffer.fill(0);
  }
}

type SecretFile =
  | { kind: 'ok'; bytes: Uint8Array }
  | { kind: 'unopenable'; code: string }
  | { kind: 'not-regular' }
  | { kind: 'too-large' };

/** The file the user named at `path` (links followed), if a regular file of at most `cap` bytes. */
export function readSecretFile(path: string, cap: number): SecretFile {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not hang before the type check below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { kind: 'unopenable', code: (error as NodeJS.ErrnoException).code ?? 'open failed' };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not-regular' };
    if (stat.size > cap) return { kind: 'too-large' };
    const bytes = readSecretAll(fd, cap);
    return bytes === 'too-large' ? { kind: 'too-large' } : { kind: 'ok', bytes };
  } finally {
    closeSync(fd);
  }
}
