import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { putFile, useTempDir } from '../../test/support/temp.js';

import type { MountSpec, VolumeSpec } from '../config/types.js';
import { projectIdFor } from '../project/identity.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';
import { renderTreesRecord } from '../launch/trees-record.js';
import {
  boxWritableTrees,
  launchedTreesOf,
  storeWritableTrees,
  treeRoots,
} from './writable-trees.js';

type TreeContext = Parameters<typeof boxWritableTrees>[0];
type LaunchGrants = Parameters<typeof launchedTreesOf>[0];

const tmp = useTempDir('writable-trees');

const mount = (host: string, mode: 'ro' | 'rw', disabled = false): MountSpec => ({
  host,
  target: `/m${host.length}`,
  mode,
  disabled,
});

const seeded = (name: string, host: string): VolumeSpec => ({
  name,
  role: 'state',
  target: `/v/${name}`,
  scope: 'project',
  sharing: 'shared',
  seed: { host },
});

/** A store at <tmp>/store recording `projects` (dir paths), and a repo at <tmp>/app. */
function world(projects: string[] = []): { ctx: TreeContext; root: string } {
  const root = tmp.path;
  const home = path.join(root, 'store');
  for (const p of projects) {
    const id = projectIdFor(p);
    putFile(projectStorePaths(home, id).dir, 'path', `${p}\n`);
  }
  const app = path.join(root, 'app');
  mkdirSync(path.join(app, '.git'), { recursive: true });
  return {
    root,
    ctx: {
      projectId: projectIdFor(app),
      worktreeDir: app,
      projectRoot: app,
      commonGitDir: path.join(app, '.git'),
      isLinkedWorktree: false,
      store: storePaths(home),
    },
  };
}

describe('boxWritableTrees', () => {
  it("lists the project's own trees, every linked worktree git lists, the store's project dirs and every other recorded project", () => {
    const { root, ctx } = world();
    const other = path.join(root, 'other');
    mkdirSync(other);
    putFile(projectStorePaths(ctx.store.home, projectIdFor(other)).dir, 'path', `${other}\n`);
    // This project's own record is not listed twice.
    putFile(projectStorePaths(ctx.store.home, ctx.projectId).dir, 'path', `${ctx.projectRoot}\n`);
    putFile(root, 'app/.git/worktrees/feat/gitdir', `${root}/app-feat/.git\n`);
    const trees = boxWritableTrees(ctx, null, root);
    expect(trees.map((t) => [t.given, t.what])).toEqual([
      [path.join(root, 'app'), `the project directory ${path.join(root, 'app')}`],
      [path.join(root, 'app/.git'), `git's directory ${path.join(root, 'app/.git')}`],
      [path.join(root, 'app-feat'), `the linked worktree ${path.join(root, 'app-feat')}`],
      [
        path.join(root, 'store/projects'),
        `byre's project stores ${path.join(root, 'store/projects')}`,
      ],
      [other, `the project directory ${other} (a project of this store)`],
    ]);
  });

  it('adds enabled read-write mounts and seed sources, `~` expanded; never ro or disabled mounts', () => {
    const { root, ctx } = world();
    const home = path.join(root, 'home');
    const trees = boxWritableTrees(
      ctx,
      {
        mounts: [
          mount('~/rw', 'rw'),
          mount('~/ro', 'ro'),
          mount('~/off', 'rw', true),
          mount('/abs/rw', 'rw'),
        ],
        volumes: [
          seeded('cfg', '~/seed'),
          { ...seeded('lit', 'x'), seed: { literal: 'a', path: 'b' } },
        ],
      },
      home,
    );
    const granted = trees.map((t) => t.given).filter((g) => !g.startsWith(path.join(root, 'app')));
    expect(granted).toEqual([
      path.join(home, 'rw'),
      '/abs/rw',
      path.join(home, 'seed'),
      path.join(root, 'store/projects'),
    ]);
    expect(trees.find((t) => t.given === path.join(home, 'rw'))?.what).toBe(
      'the read-write mount ~/rw -> /m4',
    );
    expect(trees.find((t) => t.given === path.join(home, 'seed'))?.what).toBe(
      'the seed ~/seed of volume cfg',
    );
  });

  it('resolves each tree (realpath) and keeps the declared form beside it', () => {
    const { root, ctx } = world();
    const real = path.join(root, 'real-tools');
    mkdirSync(real);
    symlinkSync(real, path.join(root, 'tools'));
    const trees = boxWritableTrees(
      ctx,
      { mounts: [mount(path.join(root, 'tools'), 'rw')], volumes: [] },
      root,
    );
    const t = trees.find((x) => x.given === path.join(root, 'tools'));
    expect(t?.path).toBe(real);
    expect(treeRoots(trees)).toEqual(
      expect.arrayContaining([path.join(root, 'tools'), real, path.join(root, 'app')]),
    );
  });

  it('a linked worktree lists its main checkout and common dir, and is named as a worktree', () => {
    const { root, ctx } = world();
    const wt = path.join(root, 'app-x');
    mkdirSync(wt);
    const trees = boxWritableTrees({ ...ctx, worktreeDir: wt, isLinkedWorktree: true }, null, root);
    expect(trees.slice(0, 3).map((t) => t.what)).toEqual([
      `this worktree ${wt}`,
      `the main checkout ${path.join(root, 'app')}`,
      `git's directory ${path.join(root, 'app/.git')}`,
    ]);
  });

  it('outside git: no common dir, no worktrees', () => {
    const { root, ctx } = world();
    const trees = boxWritableTrees({ ...ctx, commonGitDir: null }, null, root);
    expect(trees.map((t) => t.given)).toEqual([
      path.join(root, 'app'),
      path.join(root, 'store/projects'),
    ]);
  });
});

describe('storeWritableTrees', () => {
  it('is the store’s project dirs and every recorded project, with no project of its own', () => {
    const { root } = world([path.join(tmp.path, 'a'), path.join(tmp.path, 'b')]);
    expect(storeWritableTrees(path.join(root, 'store')).map((t) => t.given)).toEqual([
      path.join(root, 'store/projects'),
      ...[path.join(root, 'a'), path.join(root, 'b')].sort((x, y) =>
        projectIdFor(x).localeCompare(projectIdFor(y)),
      ),
    ]);
  });

  it('skips records that are not project ids, not files, or not absolute', () => {
    const { root } = world();
    const projects = path.join(root, 'store/projects');
    putFile(projects, 'not an id/path', '/x\n');
    putFile(path.join(projects, projectIdFor('/rel')), 'path', 'relative\n');
    mkdirSync(path.join(projects, projectIdFor('/dir'), 'path'), { recursive: true });
    expect(storeWritableTrees(path.join(root, 'store')).map((t) => t.given)).toEqual([projects]);
  });
});

describe('the store record of launched trees', () => {
  const ID = 'a-dev-abc123';
  function recorded(root: string, entries: [string, string][]): void {
    putFile(
      path.join(root, 'store'),
      'launched-trees.json',
      renderTreesRecord(entries.map(([p, what]) => ({ path: p, project: ID, what }))),
    );
  }

  it('every directory it records is a tree of every project, after the config’s own', () => {
    const { root, ctx } = world();
    recorded(root, [
      ['/elsewhere/shared', 'the read-write mount ~/shared -> /shared of a box of /a'],
      [path.join(root, 'app'), 'recorded again'],
    ]);
    const trees = boxWritableTrees(ctx, null, root);
    expect(trees.map((t) => [t.given, t.what]).slice(-1)).toEqual([
      ['/elsewhere/shared', 'the read-write mount ~/shared -> /shared of a box of /a'],
    ]);
    // The project's own description wins over the record's.
    expect(trees.find((t) => t.given === path.join(root, 'app'))?.what).toBe(
      `the project directory ${path.join(root, 'app')}`,
    );
  });

  it('deliver and grab’s store-level view includes them', () => {
    const { root } = world();
    recorded(root, [['/elsewhere/shared', 'w']]);
    expect(storeWritableTrees(path.join(root, 'store')).map((t) => t.given)).toEqual([
      path.join(root, 'store/projects'),
      '/elsewhere/shared',
    ]);
  });

  it('a record byre cannot read fails the trees closed', () => {
    const { root, ctx } = world();
    putFile(path.join(root, 'store'), 'launched-trees.json', 'junk');
    expect(() => boxWritableTrees(ctx, null, root)).toThrow('is not a record this byre wrote');
  });
});

describe('launchedTreesOf', () => {
  const base: LaunchGrants = {
    params: {
      projectId: 'p-dev-abc123',
      workspaceDir: '/w/p',
      home: '/home/u',
      configMounts: [],
      skillMounts: [],
      extraBinds: [],
    },
    volumes: [],
    projectRoot: '/w/p',
  };
  const same = (p: string): string => p;
  const launch = (
    over: Partial<LaunchGrants['params']>,
    volumes: VolumeSpec[] = [],
  ): LaunchGrants => ({
    ...base,
    params: { ...base.params, ...over },
    volumes,
  });
  const of = 'of a box of /w/p';

  it.each<[string, LaunchGrants, [string, string][]]>([
    ['the workspace alone', base, [['/w/p', `the directory /w/p bound at /workspace ${of}`]]],
    [
      'read-write config and skill mounts, `~` expanded; never ro or disabled ones',
      launch({
        configMounts: [mount('~/rw', 'rw'), mount('~/ro', 'ro'), mount('~/off', 'rw', true)],
        skillMounts: [mount('/s/rw', 'rw')],
      }),
      [
        ['/w/p', `the directory /w/p bound at /workspace ${of}`],
        ['/home/u/rw', `the read-write mount ~/rw -> /m4 ${of}`],
        ['/s/rw', `the read-write mount /s/rw -> /m5 ${of}`],
      ],
    ],
    [
      "git's common dir, the worktree and the self-edit store (read-write binds)",
      launch({
        workspaceDir: '/w/p-x',
        extraBinds: [
          { host: '/w/p/.git', target: '/w/p/.git', mode: 'rw' },
          { host: '/w/p-x', target: '/w/p-x', mode: 'rw' },
          { host: '/ro/bind', target: '/ro', mode: 'ro' },
        ],
      }),
      [
        ['/w/p-x', `the directory /w/p-x bound at /workspace ${of}`],
        ['/w/p/.git', `the read-write bind /w/p/.git -> /w/p/.git ${of}`],
      ],
    ],
    [
      'seed host sources, never literal seeds',
      launch({}, [
        seeded('cfg', '~/seed'),
        { ...seeded('lit', 'x'), seed: { literal: 'a', path: 'b' } },
      ]),
      [
        ['/w/p', `the directory /w/p bound at /workspace ${of}`],
        ['/home/u/seed', `the seed ~/seed of volume cfg ${of}`],
      ],
    ],
  ])('%s', (_, input, want) => {
    expect(launchedTreesOf(input, same).map((t) => [t.path, t.what])).toEqual(want);
    expect(launchedTreesOf(input, same).every((t) => t.project === 'p-dev-abc123')).toBe(true);
  });

  it('records where each resolves at launch beside it, when that differs', () => {
    const trees = launchedTreesOf(launch({ configMounts: [mount('~/l', 'rw')] }), (p) =>
      p === '/home/u/l' ? '/disk/l' : p,
    );
    expect(trees.map((t) => t.path)).toEqual(['/w/p', '/home/u/l', '/disk/l']);
    expect(trees[2]?.what).toBe(trees[1]?.what);
  });
});
