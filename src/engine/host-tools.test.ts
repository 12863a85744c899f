import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { RefusedError } from '../errors.js';
import {
  AbsentToolError,
  ShadowedToolError,
  createHostTools,
  requireResolved,
  resolveHostTool,
} from './host-tools.js';

let root: string;

/** Creates `dir/name` with the given mode and returns its path. */
function plant(dir: string, name: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, mode);
  return p;
}

useTempDir('hosttools', (tmp) => {
  // realpath: macOS tmpdir is itself a symlink.
  root = tmp;
});

describe('resolveHostTool', () => {
  it('finds the first executable on PATH, as an absolute path', () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    plant(b, 'docker');
    const first = plant(a, 'docker');
    expect(resolveHostTool('docker', { declinedRoots: [], env: { PATH: `${a}:${b}` } })).toEqual({
      kind: 'found',
      path: first,
    });
  });

  it('skips non-executable files and directories', () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    const c = path.join(root, 'c');
    plant(a, 'git', 0o644);
    mkdirSync(path.join(b, 'git'), { recursive: true });
    const real = plant(c, 'git');
    expect(
      resolveHostTool('git', { declinedRoots: [], env: { PATH: [a, b, c].join(':') } }),
    ).toEqual({
      kind: 'found',
      path: real,
    });
  });

  it.each([
    ['no PATH', {}],
    ['empty PATH', { PATH: '' }],
    ['PATH without the tool', { PATH: '/nonexistent-dir-byre' }],
  ])('is absent with %s', (_label, env) => {
    expect(resolveHostTool('byre-no-such-tool', { declinedRoots: [], env, cwd: root })).toEqual({
      kind: 'absent',
    });
  });

  it('declines a binary under a declined root and names tool, path and root', () => {
    const work = path.join(root, 'work');
    const bin = path.join(work, 'node_modules', '.bin');
    const shadow = plant(bin, 'docker');
    plant(path.join(root, 'safe'), 'docker');
    const r = resolveHostTool('docker', {
      declinedRoots: [work],
      env: { PATH: `${bin}:${path.join(root, 'safe')}` },
    });
    expect(r).toEqual({ kind: 'declined', tool: 'docker', path: shadow, root: work });
  });

  it('declines a symlink in a safe dir that points into a declined root, naming where it lands', () => {
    const store = path.join(root, 'store');
    const target = plant(path.join(store, 'bin'), 'real-podman');
    const safe = path.join(root, 'safe');
    mkdirSync(safe);
    symlinkSync(target, path.join(safe, 'podman'));
    const r = resolveHostTool('podman', { declinedRoots: [store], env: { PATH: safe } });
    expect(r).toMatchObject({
      kind: 'declined',
      tool: 'podman',
      path: target,
      root: store,
    });
  });

  it('declines a safe PATH entry whose binary passes through a link inside a declined root (adr/0046)', () => {
    // /safe/docker -> <work>/l -> /usr-bin/docker: both ends are safe, but the
    // box can retarget <work>/l at any time.
    const real = plant(path.join(root, 'usr-bin'), 'docker');
    const work = path.join(root, 'work');
    mkdirSync(work);
    symlinkSync(real, path.join(work, 'l'));
    const safe = path.join(root, 'safe');
    mkdirSync(safe);
    symlinkSync(path.join(work, 'l'), path.join(safe, 'docker'));
    expect(resolveHostTool('docker', { declinedRoots: [work], env: { PATH: safe } })).toEqual({
      kind: 'declined',
      tool: 'docker',
      path: path.join(work, 'l'),
      root: work,
    });
  });

  it('declines a PATH directory reached through a link inside a declined root that leads out', () => {
    // PATH=/safe/bin, /safe/bin -> <work>/b, <work>/b -> /opt-bin: nothing on
    // the way resolves into <work>, yet the box owns the second link.
    const opt = path.join(root, 'opt-bin');
    plant(opt, 'git');
    const work = path.join(root, 'work');
    mkdirSync(work);
    symlinkSync(opt, path.join(work, 'b'));
    const safe = path.join(root, 'safe');
    mkdirSync(safe);
    symlinkSync(path.join(work, 'b'), path.join(safe, 'bin'));
    expect(
      resolveHostTool('git', { declinedRoots: [work], env: { PATH: path.join(safe, 'bin') } }),
    ).toMatchObject({ kind: 'declined', path: path.join(work, 'b'), root: work });
  });

  it("follows a user's link outside every declined root", () => {
    const opt = path.join(root, 'opt-bin');
    const real = plant(opt, 'git');
    const safe = path.join(root, 'safe');
    mkdirSync(safe);
    symlinkSync(path.join(opt, 'git'), path.join(safe, 'git'));
    mkdirSync(path.join(root, 'work'));
    expect(
      resolveHostTool('git', { declinedRoots: [path.join(root, 'work')], env: { PATH: safe } }),
    ).toEqual({ kind: 'found', path: path.join(safe, 'git') });
    expect(real).toBe(path.join(opt, 'git'));
  });

  it('declines through a chain of symlinks', () => {
    const gitdir = path.join(root, 'repo', '.git');
    const target = plant(path.join(gitdir, 'hooks'), 'ssh');
    const mid = path.join(root, 'mid');
    const safe = path.join(root, 'safe');
    mkdirSync(mid);
    mkdirSync(safe);
    symlinkSync(target, path.join(mid, 'ssh'));
    symlinkSync(path.join(mid, 'ssh'), path.join(safe, 'ssh'));
    expect(resolveHostTool('ssh', { declinedRoots: [gitdir], env: { PATH: safe } }).kind).toBe(
      'declined',
    );
  });

  it('declines a PATH dir that is a symlink into a declined root', () => {
    const work = path.join(root, 'work');
    plant(path.join(work, 'bin'), 'git');
    const link = path.join(root, 'linked-bin');
    symlinkSync(path.join(work, 'bin'), link);
    expect(resolveHostTool('git', { declinedRoots: [work], env: { PATH: link } })).toMatchObject({
      kind: 'declined',
      root: work,
    });
  });

  it('declines when the declined root is given through a symlink', () => {
    const work = path.join(root, 'work');
    plant(path.join(work, 'bin'), 'git');
    const alias = path.join(root, 'alias');
    symlinkSync(work, alias);
    expect(
      resolveHostTool('git', { declinedRoots: [alias], env: { PATH: path.join(work, 'bin') } }),
    ).toMatchObject({
      kind: 'declined',
      root: alias,
    });
  });

  it('declines a symlink living inside a declined root even when it points outside', () => {
    const real = plant(path.join(root, 'usr-bin'), 'docker');
    const work = path.join(root, 'work');
    mkdirSync(path.join(work, 'bin'), { recursive: true });
    symlinkSync(real, path.join(work, 'bin', 'docker'));
    expect(
      resolveHostTool('docker', { declinedRoots: [work], env: { PATH: path.join(work, 'bin') } })
        .kind,
    ).toBe('declined');
  });

  it('does not confuse a sibling with a common prefix for the root', () => {
    const work = path.join(root, 'work');
    mkdirSync(work);
    const sibling = plant(path.join(root, 'work-tools'), 'git');
    expect(
      resolveHostTool('git', {
        declinedRoots: [work],
        env: { PATH: path.join(root, 'work-tools') },
      }),
    ).toEqual({
      kind: 'found',
      path: sibling,
    });
  });

  it('resolves relative and empty PATH entries against cwd, and declines them there', () => {
    const work = path.join(root, 'work');
    const shadow = plant(work, 'git');
    plant(path.join(work, 'bin'), 'ssh');
    expect(
      resolveHostTool('git', { declinedRoots: [work], env: { PATH: ':/nonexistent' }, cwd: work }),
    ).toEqual({
      kind: 'declined',
      tool: 'git',
      path: shadow,
      root: work,
    });
    expect(
      resolveHostTool('ssh', { declinedRoots: [work], env: { PATH: 'bin' }, cwd: work }).kind,
    ).toBe('declined');
  });

  it('a declined root that does not exist yet still declines by its lexical path', () => {
    // e.g. the project store before first develop: nothing can be found there, so nothing declines.
    const missing = path.join(root, 'store-not-yet');
    const real = plant(path.join(root, 'bin'), 'git');
    expect(
      resolveHostTool('git', { declinedRoots: [missing], env: { PATH: path.join(root, 'bin') } }),
    ).toEqual({
      kind: 'found',
      path: real,
    });
  });

  it('the first hit decides: a shadowing binary is reported, not skipped', () => {
    const work = path.join(root, 'work');
    plant(work, 'docker');
    plant(path.join(root, 'safe'), 'docker');
    const r = resolveHostTool('docker', {
      declinedRoots: [work],
      env: { PATH: `${work}:${path.join(root, 'safe')}` },
    });
    expect(r.kind).toBe('declined');
  });

  it('refuses a tool name with a slash', () => {
    expect(() => resolveHostTool('bin/docker', { declinedRoots: [], env: {} })).toThrow(/bare/);
  });
});

describe('createHostTools', () => {
  it('resolves once per invocation: a later PATH change is not seen', () => {
    const a = path.join(root, 'a');
    const first = plant(a, 'git');
    const tools = createHostTools({ declinedRoots: [], env: { PATH: a } });
    expect(tools.require('git')).toBe(first);
    rmSync(first);
    expect(tools.resolve('git')).toEqual({ kind: 'found', path: first });
  });

  it('require throws ShadowedToolError (refused, rule hosttool.declined) for a declined tool', () => {
    const work = path.join(root, 'work');
    const shadow = plant(work, 'git');
    const tools = createHostTools({ declinedRoots: [work], env: { PATH: work } });
    let caught: unknown;
    try {
      tools.require('git');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ShadowedToolError);
    expect(caught).toBeInstanceOf(RefusedError);
    const err = caught as ShadowedToolError;
    expect(err.rule).toBe('hosttool.declined');
    expect(err.exitCode).toBe(3);
    expect([err.tool, err.path, err.root]).toEqual(['git', shadow, work]);
    expect(err.message).toContain(shadow);
    expect(err.message).toContain(work);
  });

  it('require throws AbsentToolError for an absent tool, never ShadowedToolError', () => {
    const tools = createHostTools({ declinedRoots: [], env: { PATH: '' }, cwd: root });
    expect(() => tools.require('byre-no-such-tool')).toThrow(AbsentToolError);
    expect(() => requireResolved('x', { kind: 'absent' })).toThrow(/not found on PATH/);
  });
});
