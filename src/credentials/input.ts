// Where passphrases and credential values come from (adr/0012): the terminal
// with echo off, a file descriptor the caller opened (`--passphrase-fd N`),
// standard input when it is not a terminal, or a file. Never an environment
// variable or an argument: those are visible to every process of the user.
// Nothing read here is ever printed, and errors never quote it.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

import { ByreError, UsageError } from '../errors.js';
import type { Terminal } from '../io.js';
import { MAX_CREDENTIAL_BYTES } from '../config/credential-rows.js';

/** A passphrase longer than this is a mistake (a file piped to the wrong fd). */
const MAX_PASSPHRASE_BYTES = 4096;

function cancelled(): ByreError {
  return new ByreError('cancelled; nothing was changed', { rule: 'credential.cancelled' });
}

/**
 * One line typed with echo off. Backspace and Ctrl-U edit; Enter ends it;
 * Ctrl-C, or Ctrl-D on an empty line, cancels. Raw mode is always restored.
 */
export async function readHiddenLine(terminal: Terminal, prompt: string): Promise<string> {
  const { input, output } = terminal;
  output.write(prompt);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  // An ink screen shown before (the first-run picker) leaves stdin unref'd:
  // the prompt is then all that is left, and without a ref the process ends
  // with status 0 instead of waiting for the answer.
  input.ref();
  input.resume();
  let chars: string[] = [];
  try {
    return await new Promise<string>((resolve, reject) => {
      const done = (finish: () => void): void => {
        input.off('data', onData);
        input.off('end', onEnd);
        finish();
      };
      const onEnd = (): void => done(() => reject(cancelled()));
      const onData = (chunk: Buffer | string): void => {
        for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done(() => resolve(chars.join('')));
          if (ch === '\u0003' || (ch === '\u0004' && chars.length === 0)) return onEnd();
          if (ch === '\u007f' || ch === '\b') chars.pop();
          else if (ch === '\u0015') chars = [];
          else if (ch >= ' ') chars.push(ch);
        }
      };
      input.on('data', onData);
      input.once('end', onEnd);
    });
  } finally {
    input.setRawMode(wasRaw);
    input.pause();
    output.write('\n');
    chars = [];
  }
}

function readByte(fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buffer, 0, 1, null);
    } catch (error) {
      // A non-blocking pipe with nothing yet: wait a moment for the writer.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * One line from an open descriptor, read a byte at a time so nothing after
 * the newline is consumed (fd 0 may carry the box's input next).
 */
export function readFdLine(fd: number): string {
  const bytes: number[] = [];
  const one = Buffer.alloc(1);
  for (;;) {
    let n: number;
    try {
      n = readByte(fd, one);
    } catch (error) {
      throw new UsageError(
        `cannot read the passphrase from file descriptor ${fd}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
        {
          rule: 'credential.passphrase-fd',
          remedy: `open it for byre, e.g. byre … --passphrase-fd ${fd} ${fd}<passphrase-file`,
        },
      );
    }
    if (n === 0 || one[0] === 0x0a) break;
    bytes.push(one[0] as number);
    if (bytes.length > MAX_PASSPHRASE_BYTES) {
      throw new UsageError(
        `the line on file descriptor ${fd} is longer than ${MAX_PASSPHRASE_BYTES} bytes; that is not a passphrase`,
        { rule: 'credential.passphrase-fd' },
      );
    }
  }
  if (bytes[bytes.length - 1] === 0x0d) bytes.pop();
  return Buffer.from(bytes).toString('utf8');
}

export interface PassphraseSource {
  /** `--passphrase-fd N`; null reads the terminal. */
  fd: number | null;
  /** Null when stdin is not a terminal. */
  terminal: Terminal | null;
}

function nonEmpty(passphrase: string): string {
  if (passphrase === '') {
    throw new UsageError('the passphrase is empty', {
      rule: 'credential.passphrase-empty',
      remedy: 'use a passphrase of several random words',
    });
  }
  return passphrase;
}

function needsTerminal(what: string): UsageError {
  return new UsageError(`${what}, but stdin is not a terminal to ask on`, {
    rule: 'credential.passphrase-needed',
    remedy:
      'pass --passphrase-fd N with the passphrase on a line of file descriptor N (e.g. --passphrase-fd 3 3<passfile)',
  });
}

/** The passphrase of existing credentials, asked once. */
export async function askPassphrase(source: PassphraseSource, prompt: string): Promise<string> {
  if (source.fd !== null) return nonEmpty(readFdLine(source.fd));
  if (source.terminal === null) throw needsTerminal('credentials need their passphrase');
  return nonEmpty(await readHiddenLine(source.terminal, prompt));
}

/**
 * A new passphrase: typed twice on a terminal; from a descriptor, one line
 * (the next one, after any current passphrase read before it).
 */
export async function askNewPassphrase(source: PassphraseSource, prompt: string): Promise<string> {
  if (source.fd !== null) return nonEmpty(readFdLine(source.fd));
  if (source.terminal === null) throw needsTerminal('a new identity needs a passphrase');
  const first = nonEmpty(await readHiddenLine(source.terminal, prompt));
  const again = await readHiddenLine(source.terminal, 'byre: the same passphrase again: ');
  if (again !== first) {
    throw new ByreError('the two passphrases differ; nothing was changed', {
      rule: 'credential.passphrase-mismatch',
      remedy: 'run the command again',
    });
  }
  return first;
}

function tooLarge(what: string): ByreError {
  return new ByreError(`${what} is larger than ${MAX_CREDENTIAL_BYTES} bytes`, {
    rule: 'credential.value-too-large',
    remedy: 'a credential is a token or a small file; keep large files out of the config',
  });
}

/** Read a descriptor to its end, refusing more than the credential cap. */
export function readFdAll(fd: number, what: string): Uint8Array {
  const buffer = Buffer.alloc(MAX_CREDENTIAL_BYTES + 1);
  let length = 0;
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, length, buffer.length - length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
      if ((error as NodeJS.ErrnoException).code === 'EOF') break;
      throw error;
    }
    if (n === 0) break;
    length += n;
    if (length > MAX_CREDENTIAL_BYTES) throw tooLarge(what);
  }
  const out = new Uint8Array(buffer.subarray(0, length));
  buffer.fill(0);
  return out;
}

/** A regular file's bytes, capped; FIFOs and devices are refused before any read. */
export function readValueFile(path: string): Uint8Array {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not hang before the type check below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new ByreError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'open failed'}`,
      { rule: 'credential.file-unreadable', remedy: 'name a readable regular file' },
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ByreError(`${path} is not a regular file`, {
        rule: 'credential.file-unreadable',
        remedy: 'name a regular file (pipes and devices are refused)',
      });
    }
    if (stat.size > MAX_CREDENTIAL_BYTES) throw tooLarge(path);
    return readFdAll(fd, path);
  } finally {
    closeSync(fd);
  }
}

/** `--passphrase-fd N`: a non-negative descriptor number. */
export function parseFdFlag(text: string): number {
  if (!/^(0|[1-9][0-9]{0,5})$/.test(text)) {
    throw new UsageError(
      `--passphrase-fd takes a file descriptor number, not ${JSON.stringify(text)}`,
      {
        rule: 'credential.passphrase-fd',
        remedy: 'e.g. --passphrase-fd 3 3<passphrase-file',
      },
    );
  }
  return Number(text);
}
