// A recording Io for unit tests: what a command wrote to stdout and stderr,
// and process facts set to a non-root user with no terminal unless a test
// says otherwise.

import { PassThrough } from 'node:stream';

import type { Io, Terminal } from '../../src/io.js';

export interface FakeIo extends Io {
  /** Everything written to stdout, joined. */
  readonly out: string;
  /** Everything written to stderr, joined. */
  readonly err: string;
}

export function fakeIo(overrides: Partial<Io> = {}): FakeIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    cwd: '/nonexistent',
    env: {},
    stdinIsTty: false,
    stdoutIsTty: false,
    uid: 1000,
    gid: 1000,
    pid: 1,
    ...overrides,
    get out() {
      return out.join('');
    },
    get err() {
      return err.join('');
    },
  };
}

/** A terminal on which `typed` was already typed (a passphrase asked with echo off reads it). */
export function typedOn(typed: string): Terminal {
  const input = new PassThrough() as unknown as NodeJS.ReadStream & { isRaw: boolean };
  Object.assign(input, {
    isTTY: true,
    isRaw: false,
    setRawMode: () => input,
    ref: () => input,
    unref: () => input,
  });
  (input as unknown as PassThrough).write(typed);
  return { input, output: new PassThrough() };
}
