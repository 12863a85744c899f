// The one place byre starts a host program: argv as words with no shell, an
// absolute path only, the environment and working directory as given, stdin
// closed unless handed over, output bounded, and a result for every failure.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInteractiveSync, runProgram } from './spawn.js';

const SH = '/bin/sh';
const ENV = { PATH: '/usr/bin:/bin' };
const keep = { maxBytes: 1024, over: 'kill' } as const;

describe('runProgram', () => {
  it('passes its arguments as words, never through a shell', async () => {
    const r = await runProgram('/bin/echo', ['$HOME', 'a b', ';', 'true'], {
      env: ENV,
      stdout: keep,
    });
    expect(r).toMatchObject({ code: 0, failed: null, error: null });
    expect(r.stdout.toString()).toBe('$HOME a b ; true\n');
  });

  it('refuses a relative program, and reports one that cannot start', async () => {
    const relative = await runProgram('sh', ['-c', 'echo ran'], { env: ENV, stdout: keep });
    expect(relative).toMatchObject({ code: null, failed: 'start' });
    expect(relative.stdout.length).toBe(0);
    const missing = await runProgram('/nonexistent/tool', [], { env: ENV });
    expect(missing.failed).toBe('start');
    expect(missing.error).toBeInstanceOf(Error);
  });

  it('gives the program only the environment passed, from / unless a directory is named', async () => {
    process.env.BYRE_SPAWN_TEST_LEAK = 'leaked';
    try {
      const r = await runProgram(SH, ['-c', 'echo "${BYRE_SPAWN_TEST_LEAK-unset} $ONLY"; pwd'], {
        env: { ONLY: 'given' },
        stdout: keep,
      });
      expect(r.stdout.toString()).toBe('unset given\n/\n');
      const there = await runProgram(SH, ['-c', 'pwd'], { env: ENV, cwd: '/usr', stdout: keep });
      expect(there.stdout.toString()).toBe('/usr\n');
    } finally {
      delete process.env.BYRE_SPAWN_TEST_LEAK;
    }
  });

  it('closes stdin unless given bytes or a stream', async () => {
    const closed = await runProgram(SH, ['-c', 'cat; echo end'], { env: ENV, stdout: keep });
    expect(closed.stdout.toString()).toBe('end\n');
    const bytes = await runProgram(SH, ['-c', 'cat'], { env: ENV, stdin: 'in\n', stdout: keep });
    expect(bytes.stdout.toString()).toBe('in\n');
    const stream = new PassThrough();
    const piped = runProgram(SH, ['-c', 'cat'], { env: ENV, stdin: stream, stdout: keep });
    stream.end('streamed');
    expect((await piped).stdout.toString()).toBe('streamed');
  });

  it('kills a program that prints past a kill bound, and keeps only the bound when cut', async () => {
    const flood = ['-c', 'head -c 100000 /dev/zero; echo done >&2'];
    const killed = await runProgram(SH, flood, {
      env: ENV,
      stdout: { maxBytes: 10, over: 'kill' },
    });
    expect(killed).toMatchObject({ code: null, failed: 'overflow' });
    expect(killed.stdout.length).toBeLessThanOrEqual(10);
    const cut = await runProgram(SH, flood, {
      env: ENV,
      stdout: { maxBytes: 10, over: 'cut' },
      stderr: keep,
    });
    expect(cut).toMatchObject({ code: 0, failed: null });
    expect(cut.stdout.length).toBe(10);
    expect(cut.stderr.toString()).toBe('done\n');
    const exact = await runProgram(SH, ['-c', 'printf 0123456789'], {
      env: ENV,
      stdout: { maxBytes: 10, over: 'kill' },
    });
    expect(exact).toMatchObject({ code: 0, failed: null });
  });

  it('hands stderr over chunk by chunk, and reports a non-zero exit as the code', async () => {
    const chunks: string[] = [];
    const r = await runProgram(SH, ['-c', 'echo said >&2; exit 3'], {
      env: ENV,
      stderr: { onChunk: (c) => chunks.push(c.toString()) },
    });
    expect(r).toMatchObject({ code: 3, failed: null });
    expect(chunks.join('')).toBe('said\n');
  });

  it('kills a program past its time, and hands out a kill switch', async () => {
    const slow = await runProgram(SH, ['-c', 'sleep 30'], { env: ENV, timeoutMs: 100 });
    expect(slow).toMatchObject({ code: null, failed: 'timeout' });
    const stopped = await runProgram(SH, ['-c', 'sleep 30'], {
      env: ENV,
      onStart: (kill) => kill(),
    });
    expect(stopped.code).toBeNull();
  });

  it('settles on exit when asked, though a forked child still holds the pipes', async () => {
    const r = await runProgram(SH, ['-c', '(sleep 3 >&2 &) ; exit 0'], {
      env: ENV,
      stderr: keep,
      settle: 'exit',
      timeoutMs: 20_000,
    });
    expect(r).toMatchObject({ code: 0, failed: null });
  });
});

describe('runInteractiveSync', () => {
  it('runs an absolute program in the directory and environment named', () => {
    expect(
      runInteractiveSync(SH, ['-c', 'test "$(pwd)" = /usr && test "$X" = y'], {
        env: { X: 'y' },
        cwd: '/usr',
      }),
    ).toEqual({ status: 0, signal: null, error: null });
    expect(runInteractiveSync(SH, ['-c', 'exit 4'], { env: ENV, cwd: '/' }).status).toBe(4);
  });

  it('refuses a relative program', () => {
    const r = runInteractiveSync('sh', ['-c', 'true'], { env: ENV, cwd: '/' });
    expect(r.status).toBeNull();
    expect(r.error).toBeInstanceOf(Error);
  });
});
