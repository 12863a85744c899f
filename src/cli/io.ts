// The streams and process facts a command may touch, injected so commands
// stay testable without spawning the binary.

import type { Terminal } from '../credentials/input.js';

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
    stdinIsTty: process.stdin.isTTY === true,
    stdoutIsTty: process.stdout.isTTY === true,
    stdoutColumns: process.stdout.columns,
    uid: process.getuid?.() ?? 1000,
    gid: process.getgid?.() ?? 1000,
    pid: process.pid,
    stdinStream: process.stdin,
    stdoutStream: process.stdout,
    stderrIsTty: process.stderr.isTTY === true,
    terminal:
      process.stdin.isTTY === true ? { input: process.stdin, output: process.stderr } : null,
  };
}
