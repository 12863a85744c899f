// Running a host program byre chose (a clipboard tool, ssh, osacompile, the
// user's editor through the pinned sh): argv only, never a shell of this
// module's making; the program by absolute path; the environment passed in
// whole, nothing inherited unless the caller hands it over; stdin closed
// unless given; what it prints kept only up to a bound. Which program is safe
// to run is the caller's decision (engine/host-tools.ts pins them); this is
// the one place one is started.

import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** An output stream: dropped, kept up to a bound, or handed over chunk by chunk. */
type OutputSink =
  | 'ignore'
  /** Kept up to `maxBytes`; past it `kill` ends the program (the run fails), `cut` keeps reading and drops the rest. */
  | { maxBytes: number; over: 'kill' | 'cut' }
  | { onChunk: (chunk: Buffer) => void };

interface RunOptions {
  /** The program's whole environment. */
  env: NodeJS.ProcessEnv;
  /** Its working directory: `/` unless named (a program run in the project may read the box's files). */
  cwd?: string;
  /** What it reads: nothing (closed), these bytes, or a stream piped in. */
  stdin?: string | Readable;
  stdout?: OutputSink;
  stderr?: OutputSink;
  /** Killed (SIGKILL) after this long. */
  timeoutMs?: number;
  /**
   * When the run is over: `close` once its output is drained (the default);
   * `exit` as soon as it exits, for a tool that forks a server which keeps
   * the pipes open (xclip, wl-copy).
   */
  settle?: 'exit' | 'close';
  /** Handed a kill switch once the program is started. */
  onStart?: (kill: () => void) => void;
}

interface RunResult {
  /** Its exit code; null when it was killed, never started, or failed below. */
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Why it did not run to its own end: it could not start, ran out of time, or printed past a `kill` bound. */
  failed: null | 'start' | 'timeout' | 'overflow';
  /** The start failure (ENOENT, EACCES, a relative path). */
  error: Error | null;
}

/** Collects one output stream as `sink` says; `overflow` is called once past a `kill` bound. */
function collector(sink: OutputSink, overflow: () => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk: Buffer): void {
      if (sink === 'ignore') return;
      if ('onChunk' in sink) return sink.onChunk(chunk);
      if (size >= sink.maxBytes) {
        if (sink.over === 'kill') overflow();
        return;
      }
      const room = sink.maxBytes - size;
      if (chunk.length > room && sink.over === 'kill') {
        size = sink.maxBytes;
        overflow();
        return;
      }
      const kept = chunk.subarray(0, room);
      chunks.push(kept);
      size += kept.length;
    },
    bytes: (): Buffer => Buffer.concat(chunks),
  };
}

function piped(sink: OutputSink): 'ignore' | 'pipe' {
  return sink === 'ignore' ? 'ignore' : 'pipe';
}

/** Runs the program at the absolute `file` with `args` as words; never rejects. */
export function runProgram(
  file: string,
  args: readonly string[],
  opts: RunOptions,
): Promise<RunResult> {
  const empty = Buffer.alloc(0);
  if (!path.isAbsolute(file)) {
    const error = new Error(`not an absolute path: ${file}`);
    return Promise.resolve({ code: null, stdout: empty, stderr: empty, failed: 'start', error });
  }
  const outSink = opts.stdout ?? 'ignore';
  const errSink = opts.stderr ?? 'ignore';
  return new Promise((resolve) => {
    const child = spawn(file, [...args], {
      cwd: opts.cwd ?? '/',
      env: opts.env,
      shell: false,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', piped(outSink), piped(errSink)],
    });
    let failed: RunResult['failed'] = null;
    let startError: Error | null = null;
    let settled = false;
    const kill = (): void => {
      child.kill('SIGKILL');
    };
    const fail = (why: 'timeout' | 'overflow'): void => {
      failed ??= why;
      kill();
    };
    const out = collector(outSink, () => fail('overflow'));
    const err = collector(errSink, () => fail('overflow'));
    const timer =
      opts.timeoutMs === undefined ? undefined : setTimeout(() => fail('timeout'), opts.timeoutMs);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    const done = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        code: failed === null ? code : null,
        stdout: out.bytes(),
        stderr: err.bytes(),
        failed,
        error: startError,
      });
    };
    child.on('error', (error) => {
      failed ??= 'start';
      startError = error;
      done(null);
    });
    child.on(opts.settle ?? 'close', (code: number | null) => done(code));
    const input = opts.stdin;
    if (input !== undefined && child.stdin !== null) {
      // The program may exit before reading everything; its exit code says why.
      child.stdin.on('error', () => undefined);
      if (typeof input === 'string') child.stdin.end(input);
      else {
        input.on('error', () => child.stdin?.destroy());
        input.pipe(child.stdin);
      }
    }
    opts.onStart?.(kill);
  });
}

interface InteractiveResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  error: Error | null;
}

/**
 * Runs the program at the absolute `file` on this terminal (stdin, stdout and
 * stderr inherited) and waits for it: the editor handoff. The environment and
 * working directory are the caller's to name.
 */
export function runInteractiveSync(
  file: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string },
): InteractiveResult {
  if (!path.isAbsolute(file)) {
    return { status: null, signal: null, error: new Error(`not an absolute path: ${file}`) };
  }
  const run = spawnSync(file, [...args], {
    cwd: opts.cwd,
    env: opts.env,
    shell: false,
    stdio: 'inherit',
  });
  return { status: run.status, signal: run.signal, error: run.error ?? null };
}
