// The streams and process facts a command may touch, and the one y/N
// question byre asks before destroying state. Injected so commands stay
// testable without spawning the binary; every layer may import this, and it
// imports nothing of byre's but the errors.

import { isatty } from 'node:tty';

import { UsageError } from './errors.js';

/** Where byre may ask for a secret with echo off: stdin when it is a terminal. */
export interface Terminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WritableStream;
}

export interface Writer {
  write(text: string): unknown;
}

export interface Io {
  stdout: Writer;
  stderr: Writer;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdinIsTty: boolean;
  stdoutIsTty: boolean;
  /** The terminal's width when stdout is one; undefined when unknown. */
  stdoutColumns?: number | undefined;
  uid: number;
  gid: number;
  pid: number;
  /** Raw byte streams, for verbs that move payloads (deliver, grab). */
  stdinStream?: NodeJS.ReadableStream;
  stdoutStream?: NodeJS.WritableStream;
  stderrIsTty?: boolean;
  /** Where byre may ask for a secret with echo off; null without a terminal on stdin. */
  terminal?: Terminal | null;
}

export function defaultIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    stdinIsTty: isatty(0),
    stdoutIsTty: process.stdout.isTTY === true,
    stdoutColumns: process.stdout.columns,
    uid: process.getuid?.() ?? 1000,
    gid: process.getgid?.() ?? 1000,
    pid: process.pid,
    // Getters: touching process.stdin builds a stream, which only deliver and grab need.
    get stdinStream() {
      return process.stdin;
    },
    get stdoutStream() {
      return process.stdout;
    },
    stderrIsTty: process.stderr.isTTY === true,
    get terminal() {
      return isatty(0) ? { input: process.stdin, output: process.stderr } : null;
    },
  };
}

/** Asks `question` and resolves true only for an explicit yes. */
export type Confirm = (question: string) => Promise<boolean>;

/** True for `y` / `yes` in any case; everything else (including empty) is no. */
function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}

/** Reads one line from `input`; null when it ends first. */
async function readAnswer(
  input: NodeJS.ReadableStream,
  prompt: string,
  output: NodeJS.WritableStream,
): Promise<string | null> {
  // Imported here: only a question needs readline, and loading it costs every start.
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input, output, terminal: false });
  // An ink screen shown before leaves stdin unref'd; the question must keep
  // the process alive while it waits (see readHiddenLine).
  if ('ref' in input && typeof input.ref === 'function') input.ref();
  output.write(prompt);
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once('line', (line) => resolve(line));
      rl.once('close', () => resolve(null));
    });
  } finally {
    rl.close();
    if ('pause' in input && typeof input.pause === 'function') input.pause();
  }
}

/** The terminal confirmation: refuses (usage) without a TTY, since `-y` is the scripted path. */
export function terminalConfirm(io: Io, flag = '-y'): Confirm {
  return async (question) => {
    if (!io.stdinIsTty) {
      throw new UsageError(`${question} — stdin is not a terminal, so byre cannot ask`, {
        rule: 'confirm.needs-yes',
        remedy: `pass ${flag} to confirm without a prompt`,
      });
    }
    const answer = await readAnswer(process.stdin, `${question} [y/N] `, process.stderr);
    return answer !== null && isYes(answer);
  };
}

/** The y/N question on the terminal, or null when stdin is not one (the caller refuses instead). */
export function terminalQuestion(io: Io): Confirm | null {
  return io.stdinIsTty ? terminalConfirm(io) : null;
}

/** An Io that writes nowhere, for code that only builds the command tree (docs, tests). */
export function silentIo(): Io {
  const sink = { write: () => true };
  return {
    stdout: sink,
    stderr: sink,
    cwd: process.cwd(),
    env: {},
    stdinIsTty: false,
    stdoutIsTty: false,
    uid: 1000,
    gid: 1000,
    pid: 0,
  };
}
