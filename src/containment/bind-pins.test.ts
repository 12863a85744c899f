// Pinning bind sources on a real filesystem (adr/0045): what byre records is
// the object a path leads to when it is pinned, judged by the containment
// rules at its real place, and found again after a failed proof.

import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import {
  bindProofRefusal,
  pinSources,
  proofOfBox,
  provenBinds,
  type SourcedBind,
} from './bind-pins.js';
import { pinSource } from '../host/path-pin.js';
import { boxSources, containmentProblems } from './check.js';

type ContainmentInput = Parameters<typeof containmentProblems>[0];

const tmp = useTempDir('bind-pins');

function at(...parts: string[]): string {
  return path.join(tmp.path, ...parts);
}

function dir(...parts: string[]): string {
  const p = at(...parts);
  mkdirSync(p, { recursive: true });
  return p;
}

/** The box-side swap: `name` becomes a link to `to`, the real object kept aside. */
function swap(name: string, to: string): void {
  renameSync(name, `${name}.real`);
  symlinkSync(to, name);
}

function ids(p: string): { dev: bigint; ino: bigint } {
  const st = statSync(p, { bigint: true });
  return { dev: st.dev, ino: st.ino };
}

describe('pinSource', () => {
  it('pins a directory, a file and a socket-like path by device and inode at their real place', () => {
    const d = dir('p', 'data');
    const f = at('p', 'file');
    writeFileSync(f, 'x');
    expect(pinSource(d)).toEqual({ kind: 'pinned', pin: { ...ids(d), real: d } });
    expect(pinSource(f)).toEqual({ kind: 'pinned', pin: { ...ids(f), real: f } });
  });

  it('follows links as the engine will, and says where they led', () => {
    const target = dir('elsewhere');
    dir('p');
    symlinkSync(target, at('p', 'link'));
    symlinkSync('..', at('p', 'up'));
    expect(pinSource(at('p', 'link'))).toEqual({
      kind: 'pinned',
      pin: { ...ids(target), real: target },
    });
    expect(pinSource(at('p', 'up', 'elsewhere'))).toMatchObject({ pin: { real: target } });
  });

  it.each([
    ['missing', (): string => at('gone'), 'it does not exist'],
    ['under a file', (): string => (writeFileSync(at('f'), ''), at('f', 'x')), 'it does not exist'],
    [
      'a loop of links',
      (): string => (symlinkSync(at('b'), at('a')), symlinkSync(at('a'), at('b')), at('a')),
      'a loop of links',
    ],
  ])('is unbindable when %s', (_what, make, why) => {
    expect(pinSource(make())).toEqual({ kind: 'unbindable', why });
  });

  it('with noFollow, refuses a link as the last component and pins anything else', () => {
    const f = at('prefs.json');
    writeFileSync(f, '{}');
    symlinkSync(f, at('link.json'));
    expect(pinSource(at('link.json'), { noFollow: true })).toEqual({
      kind: 'unbindable',
      why: 'a symbolic link',
    });
    expect(pinSource(f, { noFollow: true })).toMatchObject({ kind: 'pinned', pin: ids(f) });
  });
});

describe('proofs', () => {
  const bind = (source: string, target = '/data'): SourcedBind => ({
    source,
    target,
    label: `the mount ${source} -> ${target}`,
  });

  it('lists each target with its pinned source, in order; duplicates pinned once', () => {
    const a = dir('a');
    const b = dir('b');
    const pins = pinSources([a, b, a]);
    expect(pins.size).toBe(2);
    expect(provenBinds([bind(a, '/x'), bind(b, '/y'), bind(a, '/z')], pins)).toEqual([
      { target: '/x', ...ids(a) },
      { target: '/y', ...ids(b) },
      { target: '/z', ...ids(a) },
    ]);
  });

  it('refuses a source that is gone, and treats one never pinned as a bug', () => {
    const pins = pinSources([at('gone')]);
    expect(() => provenBinds([bind(at('gone'))], pins)).toThrow(
      expect.objectContaining({ rule: 'bind.source-missing', exitCode: 3 }),
    );
    expect(() => provenBinds([bind(at('other'))], pins)).toThrow(TypeError);
  });

  it('proves every bind of a box: the workspace first, then config, skill and extra binds', () => {
    const ws = dir('p');
    const data = dir('data');
    const git = dir('repo', '.git');
    const params = {
      workspaceDir: ws,
      home: tmp.path,
      configMounts: [
        { host: '~/data', target: '/data', mode: 'ro' as const },
        { host: '~/off', target: '/off', mode: 'ro' as const, disabled: true },
      ],
      skillMounts: [],
      extraBinds: [{ host: git, target: git, mode: 'rw' as const }],
    };
    const proof = proofOfBox(params, pinSources([ws, data, git]));
    expect(proof.proven).toEqual([
      { target: '/workspace', ...ids(ws) },
      { target: '/data', ...ids(data) },
      { target: git, ...ids(git) },
    ]);
    expect(proof.binds.map((b) => b.label)).toEqual([
      `the project directory ${ws}`,
      'the mount ~/data -> /data',
      `the mount ${git} -> ${git}`,
    ]);
  });

  it('after a failed proof, names the binds that lead elsewhere now', () => {
    const repo = dir('repo');
    const git = dir('repo', '.git');
    const kept = dir('kept');
    const binds = [bind(git, git), bind(kept, '/kept')];
    const proven = provenBinds(binds, pinSources([git, kept]));
    const changed = (): readonly string[] => bindProofRefusal('x', binds, proven).details;
    expect(changed()).toEqual([expect.stringContaining('swapped back')]);
    swap(git, '..');
    expect(changed()).toEqual([
      `the mount ${git} -> ${git}: ${git} now leads to ${tmp.path}, another object`,
    ]);
    rmSync(git);
    expect(changed()).toEqual([`the mount ${git} -> ${git}: it does not exist now`]);
    const refusal = bindProofRefusal('byre stopped this box', binds, proven);
    expect(refusal).toMatchObject({ rule: 'bind.changed', exitCode: 3 });
    expect(refusal.details).toEqual([`the mount ${git} -> ${git}: it does not exist now`]);
    renameSync(`${git}.real`, git);
    expect(bindProofRefusal('x', binds, proven).details[0]).toContain('swapped back');
    expect(repo).toBe(path.dirname(git));
  });
});

describe('the containment rules judge the pinned object', () => {
  function input(workspaceDir: string, extra: string[], store: string): ContainmentInput {
    return {
      params: {
        workspaceDir,
        home: tmp.path,
        configMounts: [],
        skillMounts: [],
        extraBinds: extra.map((host) => ({ host, target: host, mode: 'rw' as const })),
      },
      volumes: [
        {
          name: 'v',
          target: '/v',
          role: 'state',
          scope: 'project',
          sharing: 'shared',
          seed: { host: '~/seed' },
        },
      ],
      store,
      executable: '/usr/bin/true',
      runtime: [],
    };
  }

  it('lists every source exactly as the engine gets it: workspace, binds, seeds', () => {
    const i = input(at('wt'), [at('repo', '.git')], at('home', 'store'));
    expect(boxSources(i).map((s) => [s.kind, s.source])).toEqual([
      ['workspace', at('wt')],
      ['mount', at('repo', '.git')],
      ['seed', at('seed')],
    ]);
  });

  it.each([
    ['a link to the directory holding the store', '..', 'containment.store'],
    ['a link into the store', 'home/store', 'containment.store'],
  ])('refuses a git dir swapped for %s before byre pinned it', async (_what, to, rule) => {
    dir('home', 'store');
    dir('wt');
    dir('seed');
    const git = dir('repo', '.git');
    swap(git, to.startsWith('home') ? at(to) : to);
    const i = input(at('wt'), [git], at('home', 'store'));
    const pins = pinSources(boxSources(i).map((s) => s.source));
    expect((await containmentProblems({ ...i, pins })).map((p) => p.rule)).toContain(rule);
  });

  it('judges the path the pin saw, not a later look at the path', async () => {
    dir('home', 'store');
    dir('wt');
    dir('seed');
    const git = dir('repo', '.git');
    const i = input(at('wt'), [git], at('home', 'store'));
    // Pinned while it was a link to the directory holding the store, then put back.
    swap(git, '..');
    const pins = pinSources(boxSources(i).map((s) => s.source));
    rmSync(git);
    renameSync(`${git}.real`, git);
    // An executable inside the git dir: every path that holds it is refused, with that path.
    const judged = async (input: ContainmentInput): Promise<(string | undefined)[]> =>
      (await containmentProblems({ ...input, executable: path.join(git, 'byre') })).map(
        (p) => p.path?.host,
      );
    expect(await judged(i)).toContain(git);
    expect(await judged({ ...i, pins })).toContain(tmp.path);
    expect((await containmentProblems({ ...i, pins })).map((p) => p.rule)).toContain(
      'containment.store',
    );
  });
});
