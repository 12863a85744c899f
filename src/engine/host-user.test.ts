import { describe, expect, it } from 'vitest';

import { RefusedError } from '../errors.js';
import { checkHostUser, checkRootlessPodman, throwIfRefused, type Version } from './host-user.js';

describe('checkHostUser', () => {
  it.each([
    [501, 20, {}, 'ok'],
    [1000, 1000, { BYRE_ALLOW_ROOT: '1' }, 'ok'],
    [0, 0, {}, 'refuse'],
    [0, 1000, {}, 'refuse'],
    [1000, 0, {}, 'refuse'],
    [0, 0, { BYRE_ALLOW_ROOT: '1' }, 'warn'],
    [1000, 0, { BYRE_ALLOW_ROOT: '1' }, 'warn'],
    [0, 0, { BYRE_ALLOW_ROOT: '0' }, 'refuse'],
    [0, 0, { BYRE_ALLOW_ROOT: '' }, 'refuse'],
    [0, 0, { BYRE_ALLOW_ROOT: 'true' }, 'refuse'],
    [0, 0, { BYRE_ALLOW_ROOTLESS_PODMAN: '1' }, 'refuse'],
  ] as const)('uid %d gid %d env %o -> %s', (uid, gid, env, kind) => {
    const r = checkHostUser(uid, gid, env);
    expect(r.kind).toBe(kind);
    if (r.kind === 'refuse') expect(r.refusal.rule).toBe('host.root-user');
    if (r.kind === 'warn') expect(r.warning.rule).toBe('host.root-user');
  });

  it('the refusal names the override', () => {
    const r = checkHostUser(0, 0, {});
    expect(r.kind === 'refuse' && r.refusal.remedy).toContain('BYRE_ALLOW_ROOT=1');
  });
});

const v = (major: number, minor: number, patch = 0): Version => ({ major, minor, patch });

describe('checkRootlessPodman', () => {
  it.each([
    [v(4, 3, 1), {}, 'ok'],
    [v(4, 9), {}, 'ok'],
    [v(5, 0), {}, 'ok'],
    [v(4, 2, 9), {}, 'refuse'],
    [v(3, 4, 4), {}, 'refuse'],
    [null, {}, 'refuse'],
    [v(4, 2), { BYRE_ALLOW_ROOTLESS_PODMAN: '1' }, 'warn'],
    [null, { BYRE_ALLOW_ROOTLESS_PODMAN: '1' }, 'warn'],
    [v(4, 2), { BYRE_ALLOW_ROOT: '1' }, 'refuse'],
    [v(4, 2), { BYRE_ALLOW_ROOTLESS_PODMAN: 'yes' }, 'refuse'],
  ] as const)('%o env %o -> %s', (version, env, kind) => {
    const r = checkRootlessPodman(version, env);
    expect(r.kind).toBe(kind);
    if (r.kind !== 'ok')
      expect(r.kind === 'warn' ? r.warning.rule : r.refusal.rule).toBe(
        'engine.rootless-podman-old',
      );
  });

  it.each([
    [v(4, 3), true],
    [v(4, 2), false],
    [v(3, 9), false],
    [v(5, 0), true],
  ])('%o is at least keep-id’s 4.3: %s', (version, expected) => {
    expect(checkRootlessPodman(version, {}).kind === 'ok').toBe(expected);
  });
});

describe('throwIfRefused', () => {
  it('throws a RefusedError (exit 3) with the rule and remedy', () => {
    let caught: unknown;
    try {
      throwIfRefused(checkHostUser(0, 0, {}));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RefusedError);
    expect((caught as RefusedError).rule).toBe('host.root-user');
    expect((caught as RefusedError).exitCode).toBe(3);
    expect((caught as RefusedError).remedy).toContain('BYRE_ALLOW_ROOT');
  });

  it('returns the warning when overridden, null when fine', () => {
    expect(throwIfRefused(checkHostUser(0, 0, { BYRE_ALLOW_ROOT: '1' }))?.rule).toBe(
      'host.root-user',
    );
    expect(throwIfRefused(checkHostUser(501, 20, {}))).toBeNull();
  });
});
