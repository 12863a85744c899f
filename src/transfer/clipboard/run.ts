// The one spawner the clipboard uses, over host/spawn.ts: absolute tool paths
// only, no shell, bounded by a timeout and in what it keeps. Copy tools (xclip, wl-copy) fork a server that keeps
// serving the selection, so a copy waits for 'exit' with its output ignored.

import { runProgram } from '../../host/spawn.js';

interface RunResult {
  code: number | null;
  stdout: Buffer;
  /** Set when the timeout killed the tool. */
  timedOut: boolean;
}

interface ClipboardRunOptions {
  input?: string;
  timeoutMs: number;
  /** Capture stdout (reads); copies discard it so a forked server cannot hold the pipe open. */
  capture: boolean;
  /** Cap on captured bytes; beyond it the tool is killed and the result marked failed. */
  maxBytes?: number;
}

export type RunTool = (
  file: string,
  args: readonly string[],
  opts: ClipboardRunOptions,
) => Promise<RunResult>;

export const runTool: RunTool = async (file, args, opts) => {
  const r = await runProgram(file, args, {
    // The clipboard tools read the session's display variables from byre's own environment.
    env: process.env,
    ...(opts.input === undefined ? {} : { stdin: opts.input }),
    stdout: opts.capture ? { maxBytes: opts.maxBytes ?? Infinity, over: 'kill' } : 'ignore',
    timeoutMs: opts.timeoutMs,
    // Reads wait for 'close' (all output drained); copies only for 'exit'.
    settle: opts.capture ? 'close' : 'exit',
  });
  return { code: r.code, stdout: r.stdout, timedOut: r.failed === 'timeout' };
};
