// Where passphrases and credential values come from (adr/0012): the terminal
// with echo off, a file descriptor the caller opened (`--passphrase-fd N`),
// standard input when it is not a terminal, or a file. Never an environment
// variable or an argument: those are visible to every process of the user.
// Nothing read here is ever printed, and errors never quote it.

import { ByreError, UsageError } from '../errors.js';
import { readSecretAll, readSecretFile, readSecretLine } from '../host/secret-read.js';
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

/**
 * One line from an open descriptor, read a byte at a time so nothing after
 * the newline is consumed (fd 0 may carry the box's input next).
 */
export function readFdLine(fd: number): string {
  let line: ReturnType<typeof readSecretLine>;
  try {
    line = readSecretLine(fd, MAX_PASSPHRASE_BYTES);
  } catch (error) {
    throw new UsageError(
      `cannot read the passphrase from file descriptor ${fd}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
      {
        rule: 'credential.passphrase-fd',
        remedy: `open it for byre, e.g. byre … --passphrase-fd ${fd} ${fd}<passphrase-file`,
      },
    );
  }
  if (line.kind === 'too-long') {
    throw new UsageError(
      `the line on file descriptor ${fd} is longer than ${MAX_PASSPHRASE_BYTES} bytes; that is not a passphrase`,
      { rule: 'credential.passphrase-fd' },
    );
  }
  return line.text;
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
  const bytes = readSecretAll(fd, MAX_CREDENTIAL_BYTES);
  if (bytes === 'too-large') throw tooLarge(what);
  return bytes;
}

/** A regular file's bytes, capped; FIFOs and devices are refused before any read. */
export function readValueFile(path: string): Uint8Array {
  const read = readSecretFile(path, MAX_CREDENTIAL_BYTES);
  switch (read.kind) {
    case 'ok':
      return read.bytes;
    case 'unopenable':
      throw new ByreError(`cannot read ${path}: ${read.code}`, {
        rule: 'credential.file-unreadable',
        remedy: 'name a readable regular file',
      });
    case 'not-regular':
      throw new ByreError(`${path} is not a regular file`, {
        rule: 'credential.file-unreadable',
        remedy: 'name a regular file (pipes and devices are refused)',
      });
    case 'too-large':
      throw tooLarge(path);
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
