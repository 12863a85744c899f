// The one spawner the clipboard uses: absolute tool paths only, no shell,
// bounded by a timeout. Copy tools (xclip, wl-copy) fork a server that keeps
// serving the selection, so a copy waits for 'exit' with its output ignored.

import { spawn } from 'node:child_process';

export interface RunResult {
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

export const runTool: RunTool = (file, args, opts) =>
  new Promise((resolve) => {
    const child = spawn(file, [...args], {
      stdio: [
        opts.input === undefined ? 'ignore' : 'pipe',
        opts.capture ? 'pipe' : 'ignore',
        'ignore',
      ],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let overflow = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(c);
    });
    const done = (code: number | null): void => {
      clearTimeout(timer);
      resolve({ code: overflow ? null : code, stdout: Buffer.concat(chunks), timedOut });
    };
    child.on('error', () => done(null));
    // Reads wait for 'close' (all output drained); copies only for 'exit'.
    child.on(opts.capture ? 'close' : 'exit', (code) => done(code));
    if (opts.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    }
  });
