import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { ByreError, RefusedError, UsageError } from '../../errors.js';
import {
  parseSshTarget,
  remoteDeliverArgv,
  remoteExitError,
  remoteListArgv,
  sshArgv,
} from './protocol.js';

function rule(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof UsageError) return error.rule;
    throw error;
  }
  return 'accepted';
}

describe('parseSshTarget', () => {
  it.each([
    ['ssh://host', { host: 'host', dest: 'host' }],
    ['ssh://host/', { host: 'host', dest: 'host' }],
    [
      'ssh://me@build.example:2222',
      { host: 'build.example', dest: 'me@build.example', user: 'me', port: 2222 },
    ],
    ['ssh://127.0.0.1:22', { host: '127.0.0.1', dest: '127.0.0.1', port: 22 }],
    ['ssh://root@[::1]:2200', { host: '::1', dest: 'root@::1', user: 'root', port: 2200 }],
  ])('%s', (raw, want) => {
    expect(parseSshTarget(raw)).toEqual({ raw, ...want });
  });

  it.each([
    ['ssh://me:secret@host', 'transfer.ssh-password'],
    ['ssh://host/home/me', 'transfer.ssh-path'],
    ['ssh://host//', 'transfer.ssh-path'],
    ['ssh://host?x=1', 'transfer.ssh-path'],
    ['ssh://host#frag', 'transfer.ssh-path'],
    ['ssh://', 'transfer.ssh-target'],
    ['ssh://-oProxyCommand=x', 'transfer.ssh-target'],
    ['ssh://-me@host', 'transfer.ssh-target'],
    ['ssh://host:0', 'transfer.ssh-target'],
    ['ssh://host:70000', 'transfer.ssh-target'],
    ['ssh://host:', 'transfer.ssh-target'],
    ['ssh://ho st', 'transfer.ssh-target'],
    ['ssh://host\n', 'transfer.ssh-target'],
  ])('%j is refused (%s)', (raw, want) => {
    expect(rule(() => parseSshTarget(raw))).toBe(want);
  });
});

describe('the remote argv', () => {
  it('lists with --boxes --proto 1, and --skip-uid-check only when asked', () => {
    expect(remoteListArgv({ skipUidCheck: false })).toEqual([
      'byre',
      'deliver',
      '--boxes',
      '--proto',
      '1',
    ]);
    expect(remoteListArgv({ skipUidCheck: true, remoteByre: '/opt/byre' })).toEqual([
      '/opt/byre',
      'deliver',
      '--boxes',
      '--proto',
      '1',
      '--skip-uid-check',
    ]);
  });

  it('delivers with --proto 1 --box <id> --no-clip [--skip-uid-check] --tar -', () => {
    expect(remoteDeliverArgv({ skipUidCheck: true, box: 'abc' })).toEqual([
      'byre',
      'deliver',
      '--proto',
      '1',
      '--box',
      'abc',
      '--no-clip',
      '--skip-uid-check',
      '--tar',
      '-',
    ]);
  });

  it('is ssh [-p port] -- <dest> <one quoted string>', () => {
    const t = parseSshTarget('ssh://me@h:2222');
    expect(sshArgv(t, ['byre', 'deliver'])).toEqual([
      '-p',
      '2222',
      '--',
      'me@h',
      "'byre' 'deliver'",
    ]);
    expect(sshArgv(parseSshTarget('ssh://h'), ['x'])).toEqual(['--', 'h', "'x'"]);
  });

  it.each([
    ["it's", `'it'\\''s'`],
    ['$(touch /tmp/pwned) `x` ; | & > *', `'$(touch /tmp/pwned) \`x\` ; | & > *'`],
    ['', `''`],
    ['line\nbreak', `'line\nbreak'`],
  ])('quotes %j so a POSIX shell reads it back unchanged', (word, quoted) => {
    /** The remote command line ssh is handed: its last word. */
    const quoteRemoteArgv = (argv: string[]) => sshArgv(parseSshTarget('ssh://h'), argv).at(-1);
    expect(quoteRemoteArgv([word])).toBe(quoted);
    const back = execFileSync('/bin/sh', [
      '-c',
      `printf '%s\\0' ${quoteRemoteArgv([word, 'next'])}`,
    ]);
    expect(back.toString('utf8')).toBe(`${word}\0next\0`);
  });
});

describe('remote exit mapping', () => {
  const target = parseSshTarget('ssh://me@h');
  it.each([
    [127, 'transfer.remote-no-byre', /no byre on the ssh PATH of me@h — use --remote-byre/],
    [126, 'transfer.remote-not-executable', /not executable/],
    [2, 'transfer.remote-too-old', /too old.*--proto 1: unknown option/],
    [255, 'transfer.ssh-failed', /ssh to me@h failed: unknown option/],
    [null, 'transfer.ssh-failed', /ssh to me@h failed/],
    [1, 'transfer.remote-failed', /failed \(exit 1\): unknown option/],
  ])('%s -> %s', (code, want, message) => {
    const e = remoteExitError(code, { target, said: "byre: unknown option '--proto'\n" });
    expect(e).toBeInstanceOf(ByreError);
    expect(e.exitCode).toBe(1);
    expect(e.rule).toBe(want);
    expect(e.message.replace(/'--proto'/, 'x')).toMatch(message);
  });

  it('a remote refusal stays a refusal (exit 3)', () => {
    const e = remoteExitError(3, { target, said: '' });
    expect(e).toBeInstanceOf(RefusedError);
    expect(e.exitCode).toBe(3);
  });

  it('names the --remote-byre path when that is what is missing', () => {
    const e = remoteExitError(127, { target, said: '', remoteByre: '/opt/b' });
    expect(e.message).toBe('/opt/b was not found on me@h');
  });

  it('escapes what the remote said', () => {
    const e = remoteExitError(1, { target, said: 'evil \x1b[2J\n' });
    expect(e.message).not.toContain('\x1b');
    expect(e.message).toContain('\\x1b[2J');
  });
});
