// Running one engine client process: to completion with captured output
// (queries), or with streamed stdio (deliver, grab); and the one place a
// failed call becomes an EngineError. Never decides policy.

import { spawn, type ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { EngineError } from '../errors.js';
import { describeSignal } from './signals.js';
import { DENIED_REMEDY, UNREACHABLE_REMEDY, classifyEngineFailure, tail } from './classify.js';
import type { StreamIo, StreamResult } from './engine.js';
import type { EngineName } from './types.js';

export interface Captured {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError: string | undefined;
  /** Set when the engine client itself was killed by a signal (SIGSEGV, SIGPIPE …). */
  signal?: string | undefined;
}

/**
 * Runs one engine command to completion, capturing output; never throws.
 * node's own spawn, not execa: this is every short query's path, and loading
 * execa costs ~8 ms of a ~15 ms start in the compiled binary (ADR 0007).
 * execa is imported on demand for the long-running calls below.
 */
export async function runEngineCommand(
  enginePath: string,
  args: readonly string[],
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    input?: string;
    timeoutMs?: number;
    /** Kills the command when aborted (a query whose answer is no longer needed). */
    signal?: AbortSignal;
  } = {},
): Promise<Captured> {
  return new Promise<Captured>((resolve) => {
    const command = `${enginePath} ${args.join(' ')}`;
    let child: ChildProcess;
    try {
      child = spawn(enginePath, [...args], {
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        ...(options.env === undefined ? {} : { env: options.env as NodeJS.ProcessEnv }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      resolve({
        exitCode: undefined,
        stdout: '',
        stderr: '',
        timedOut: false,
        spawnError: `${command}: ${(error as Error).message}`,
      });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let timedOut = false;
    let failure: string | undefined;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
            // A client that ignores SIGTERM still goes.
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }, options.timeoutMs);
    child.on('error', (error) => {
      failure = error.message;
    });
    child.on('close', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      // A spawn that failed (ENOENT …) still closes, with the errno as its "code".
      // A command byre stopped has no status of its own: podman 4.3 traps the
      // SIGTERM and exits 0 with nothing on stdout, which read as an answer.
      const ran = failure === undefined && code !== null && !timedOut;
      const killed = failure === undefined && !timedOut && signal !== null;
      resolve({
        exitCode: ran ? code : undefined,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        spawnError:
          ran || timedOut || killed ? undefined : `${command}: ${failure ?? 'did not run'}`,
        ...(killed ? { signal } : {}),
      });
    });
    if (options.input !== undefined && child.stdin !== null) {
      // A client that exits without reading its input is answered by its status.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** The one place a failed engine call becomes an EngineError. */
export function engineFailure(
  engine: EngineName,
  args: readonly string[],
  c: Omit<Captured, 'stdout'>,
): EngineError {
  const verb = args
    .slice(0, args[0] === 'image' || args[0] === 'volume' || args[0] === 'container' ? 2 : 1)
    .join(' ');
  const stderr = tail(c.stderr);
  if (c.timedOut) {
    return new EngineError(`${engine} ${verb} did not answer in time`, {
      engine,
      argv: args,
      stderr,
      rule: 'engine.timeout',
      remedy: UNREACHABLE_REMEDY[engine],
    });
  }
  if (c.signal !== undefined) {
    return new EngineError(`the ${engine} client was killed by ${describeSignal(c.signal)}`, {
      engine,
      argv: args,
      stderr,
      rule: 'engine.client-killed',
    });
  }
  if (c.spawnError !== undefined) {
    return new EngineError(`could not run ${engine}: ${c.spawnError}`, {
      engine,
      argv: args,
      stderr,
      rule: 'engine.spawn',
    });
  }
  const kind = classifyEngineFailure(stderr);
  if (kind === 'denied') {
    return new EngineError(`${engine} refused this user (permission denied on its socket)`, {
      engine,
      argv: args,
      ...(c.exitCode === undefined ? {} : { exitCode: c.exitCode }),
      stderr,
      rule: 'engine.denied',
      remedy: DENIED_REMEDY[engine],
    });
  }
  const unreachable = kind === 'unreachable';
  return new EngineError(
    unreachable
      ? `${engine} is not answering`
      : `${engine} ${verb} failed (exit ${c.exitCode ?? '?'})`,
    {
      engine,
      argv: args,
      ...(c.exitCode === undefined ? {} : { exitCode: c.exitCode }),
      stderr,
      ...(unreachable ? { rule: 'engine.unreachable', remedy: UNREACHABLE_REMEDY[engine] } : {}),
    },
  );
}

const STDERR_HEAD = 4096;

/**
 * Runs one engine exec (or attached `run -i`) with streamed stdio. Shared by CliEngine; exported for
 * the runner's own tests. An early box exit (EPIPE on stdin) is not an error:
 * the exit status says what happened.
 */
export async function streamEngineExec(
  enginePath: string,
  args: readonly string[],
  io: StreamIo,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<StreamResult & { spawnError?: string; signal?: string }> {
  const stdinMode =
    io.stdin === undefined ? 'ignore' : typeof io.stdin === 'number' ? io.stdin : 'pipe';
  const child = spawn(enginePath, [...args], {
    stdio: [stdinMode, typeof io.stdout === 'number' ? io.stdout : 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env: env as NodeJS.ProcessEnv }),
  });
  // stderr is a pipe (stdio above), and stdout one unless a descriptor was handed over.
  const childErr = child.stderr as Readable;
  let stderr = '';
  let stderrHead = '';
  childErr.setEncoding('utf8');
  childErr.on('data', (chunk: string) => {
    if (stderrHead.length < STDERR_HEAD) stderrHead = (stderrHead + chunk).slice(0, STDERR_HEAD);
    stderr = tail(stderr + chunk);
    io.onStderr?.(chunk);
  });
  let spawnError: string | undefined;
  let killedBy: string | undefined;
  const closed = new Promise<number>((resolve) => {
    child.on('error', (err) => {
      spawnError = err.message;
    });
    child.on('close', (code, signal) => {
      if (code === null && signal !== null) killedBy = signal;
      resolve(code ?? 1);
    });
  });
  const failures: unknown[] = [];
  const kill = (error: unknown): void => {
    failures.push(error);
    child.kill('SIGKILL');
  };
  const stop = (): void => kill(io.signal?.reason);
  if (io.signal?.aborted === true) stop();
  else io.signal?.addEventListener('abort', stop, { once: true });
  const feeding =
    io.stdin instanceof Readable && child.stdin !== null
      ? pipeline(io.stdin, child.stdin).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          // The box stopped reading (it exited); its status tells why.
          if (code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
            if (!(io.stdin as Readable).destroyed) (io.stdin as Readable).destroy();
            return;
          }
          kill(error);
        })
      : Promise.resolve();
  const draining =
    typeof io.stdout === 'number'
      ? Promise.resolve()
      : pipeline(child.stdout as Readable, io.stdout).catch(kill);
  const exitCode = await closed;
  io.signal?.removeEventListener('abort', stop);
  await Promise.all([feeding, draining]);
  if (failures.length > 0) throw failures[0];
  return {
    exitCode,
    stderr,
    stderrHead,
    ...(spawnError === undefined ? {} : { spawnError }),
    ...(killedBy === undefined ? {} : { signal: killedBy }),
  };
}
