// A recording Io for unit tests: what a command wrote to stdout and stderr,
// and process facts set to a non-root user with no terminal unless a test
// says otherwise.

import type { Io } from '../../src/io.js';

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
