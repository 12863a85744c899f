import { describe, expect, it } from 'vitest';

import { UsageError } from '../errors.js';
import { planDelivery, type DeliverOptions } from './deliver-args.js';

const tty = { stdinIsTty: true };
const piped = { stdinIsTty: false };

function refused(args: string[], o: DeliverOptions, host = tty): string {
  try {
    planDelivery(args, o, host);
  } catch (error) {
    if (error instanceof UsageError) return error.rule;
    throw error;
  }
  return 'accepted';
}

describe('deliver flag exclusivity', () => {
  it.each<[string, string[], DeliverOptions, string]>([
    ['--install-app with a path', ['a'], { installApp: true }, 'transfer.install-app-usage'],
    [
      '--install-app with --boxes',
      [],
      { installApp: true, boxes: true },
      'transfer.install-app-usage',
    ],
    [
      '--install-app with --tar',
      ['-'],
      { installApp: true, tar: true },
      'transfer.install-app-usage',
    ],
    [
      '--install-app with --no-clip',
      [],
      { installApp: true, clip: false },
      'transfer.install-app-usage',
    ],
    [
      '--install-app with --skip-uid-check',
      [],
      { installApp: true, skipUidCheck: true },
      'transfer.install-app-usage',
    ],
    [
      '--install-app with --proto',
      [],
      { installApp: true, proto: '1' },
      'transfer.install-app-usage',
    ],
    [
      '--install-app ssh:// plus a path',
      ['ssh://h', 'a'],
      { installApp: true },
      'transfer.install-app-usage',
    ],
    [
      '--install-app --remote-byre without ssh',
      [],
      { installApp: true, remoteByre: '/b' },
      'transfer.remote-byre-usage',
    ],
    ['--boxes with a path', ['a'], { boxes: true }, 'transfer.boxes-usage'],
    ['--boxes with ssh://', ['ssh://h'], { boxes: true }, 'transfer.boxes-usage'],
    ['--boxes with --box', [], { boxes: true, box: 'x' }, 'transfer.boxes-usage'],
    ['--boxes with --name', [], { boxes: true, name: 'x' }, 'transfer.boxes-usage'],
    ['--boxes with --tar', [], { boxes: true, tar: true }, 'transfer.boxes-usage'],
    ['--boxes with --no-clip', [], { boxes: true, clip: false }, 'transfer.boxes-usage'],
    ['--boxes with --remote-byre', [], { boxes: true, remoteByre: '/b' }, 'transfer.boxes-usage'],
    ['--tar without -', [], { tar: true }, 'transfer.tar-usage'],
    ['--tar with a path', ['a'], { tar: true }, 'transfer.tar-usage'],
    ['--tar with - and a path', ['-', 'a'], { tar: true }, 'transfer.tar-usage'],
    ['--tar with --name', ['-'], { tar: true, name: 'n' }, 'transfer.tar-usage'],
    ['--tar through ssh://', ['ssh://h', '-'], { tar: true }, 'transfer.tar-usage'],
    [
      '--tar with --remote-byre',
      ['-'],
      { tar: true, remoteByre: '/b' },
      'transfer.remote-byre-usage',
    ],
    ['- mixed with paths', ['-', 'a'], {}, 'transfer.stdin-mixed'],
    ['- mixed with paths, remote', ['ssh://h', 'a', '-'], {}, 'transfer.stdin-mixed'],
    ['--name with paths', ['a'], { name: 'n' }, 'transfer.name-usage'],
    ['--remote-byre without ssh://', ['a'], { remoteByre: '/b' }, 'transfer.remote-byre-usage'],
    ['an empty --remote-byre', ['ssh://h', 'a'], { remoteByre: '' }, 'transfer.remote-byre-usage'],
    ['another --proto', [], { boxes: true, proto: '2' }, 'transfer.proto'],
    ['an ssh:// password', ['ssh://u:p@h', 'a'], {}, 'transfer.ssh-password'],
    ['an ssh:// path', ['ssh://h/x', 'a'], {}, 'transfer.ssh-path'],
  ])('%s is a usage error', (_what, args, o, rule) => {
    expect(refused(args, o)).toBe(rule);
  });

  it.each<[string, string[], DeliverOptions]>([
    ['--install-app alone', [], { installApp: true }],
    [
      '--install-app --box --name ssh:// --remote-byre',
      ['ssh://h'],
      { installApp: true, box: 'b', name: 'n', remoteByre: '/b' },
    ],
    ['--boxes --proto 1 --skip-uid-check', [], { boxes: true, proto: '1', skipUidCheck: true }],
    [
      'the remote call',
      ['-'],
      { tar: true, proto: '1', box: 'id', clip: false, skipUidCheck: true },
    ],
    ['--name with -', ['-'], { name: 'n' }],
  ])('%s is accepted', (_what, args, o) => {
    expect(refused(args, o)).toBe('accepted');
  });
});

describe('what a delivery reads', () => {
  it.each<[string, string[], { stdinIsTty: boolean; stdinIsDevice?: boolean }, unknown]>([
    [
      'paths',
      ['a', 'b'],
      tty,
      { kind: 'deliver', remote: null, input: { kind: 'paths', paths: ['a', 'b'] } },
    ],
    ['`-`', ['-'], tty, { kind: 'deliver', remote: null, input: { kind: 'stdin' } }],
    [
      'no args on a terminal: the paste beat',
      [],
      tty,
      { kind: 'deliver', remote: null, input: { kind: 'paste' } },
    ],
    [
      'no args, stdin piped',
      [],
      piped,
      { kind: 'deliver', remote: null, input: { kind: 'stdin' } },
    ],
    [
      'no args, stdin /dev/null (a GUI launch)',
      [],
      { stdinIsTty: false, stdinIsDevice: true },
      { kind: 'deliver', remote: null, input: { kind: 'clipboard' } },
    ],
  ])('%s', (_what, args, host, want) => {
    expect(planDelivery(args, {}, host)).toEqual(want);
  });

  it('an ssh:// first argument is the target, the rest are sources', () => {
    const plan = planDelivery(['ssh://me@h:22', 'a'], {}, tty);
    expect(plan).toMatchObject({
      kind: 'deliver',
      remote: { dest: 'me@h', port: 22 },
      input: { kind: 'paths', paths: ['a'] },
    });
    expect(planDelivery(['ssh://h'], {}, tty)).toMatchObject({ input: { kind: 'paste' } });
    expect(planDelivery(['ssh://h'], {}, piped)).toMatchObject({ input: { kind: 'stdin' } });
  });

  it('only the first argument can be a target', () => {
    expect(planDelivery(['a', 'ssh://h'], {}, tty)).toMatchObject({
      remote: null,
      input: { kind: 'paths', paths: ['a', 'ssh://h'] },
    });
  });
});
