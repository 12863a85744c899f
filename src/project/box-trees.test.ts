import { describe, expect, it } from 'vitest';

import { plantableLink, toolInBoxTree, type BoxTree } from './box-trees.js';
import type { LinkStep, PathWalk } from './path-walk.js';

const tree = (p: string, what = p, given = p): BoxTree => ({ path: p, given, what });

const PROJECT = tree('/home/u/p', 'the project directory /home/u/p');
const MOUNT = tree('/home/u/tools', 'the read-write mount ~/tools -> /tools');
/** A tree declared through a user's link: given ~/alias, resolved /data/q. */
const ALIASED = tree('/data/q', 'the project directory /home/u/alias', '/home/u/alias');
const TREES = [PROJECT, MOUNT, ALIASED];

function walk(resolved: string, ...links: [string, string][]): PathWalk {
  const steps: LinkStep[] = links.map(([at, target]) => ({ at, target }));
  return { given: resolved, resolved, links: steps, stopped: null };
}

/** A link at `p` lives strictly below the tree at `root`: plantableLink's test. */
const isBelow = (root: string, p: string): boolean =>
  plantableLink(walk('/x', [p, '/x']), [tree(root)]) !== null;
/** A tool run from PATH directory `p` runs from the tree at `root` or below it: toolInBoxTree's test. */
const isAtOrBelow = (root: string, p: string): boolean =>
  toolInBoxTree(p, walk(p), [tree(root)]) !== null;

describe('below a tree (plantableLink), at or below one (toolInBoxTree)', () => {
  it.each([
    ['/a', '/a/b', true, true],
    ['/a', '/a', false, true],
    ['/a', '/ab', false, false],
    ['/a', '/', false, false],
    ['/a/b', '/a', false, false],
    ['/', '/a', true, true],
    ['/a', '/a/..b', true, true],
    ['/a', '/a/../b', false, false],
  ])('%s holds %s: below %s, at-or-below %s', (root, p, below, atOrBelow) => {
    expect(isBelow(root, p)).toBe(below);
    expect(isAtOrBelow(root, p)).toBe(atOrBelow);
  });
});

describe('plantableLink', () => {
  it.each([
    {
      why: 'a link the box could plant in its project (the attack)',
      walk: walk('/home/u/.ssh', ['/home/u/p/data', '/home/u/.ssh']),
      hit: { at: '/home/u/p/data', tree: PROJECT },
    },
    {
      why: 'a link deep inside a read-write mount',
      walk: walk('/etc', ['/home/u/tools/a/b', '/etc']),
      hit: { at: '/home/u/tools/a/b', tree: MOUNT },
    },
    {
      why: 'a link inside a tree pointing within it is still refused (byre cannot tell who made it)',
      walk: walk('/home/u/p/src', ['/home/u/p/alias', 'src']),
      hit: { at: '/home/u/p/alias', tree: PROJECT },
    },
    {
      why: 'a tree reached through a link is compared in its resolved form',
      walk: walk('/etc', ['/data/q/x', '/etc']),
      hit: { at: '/data/q/x', tree: ALIASED },
    },
    {
      why: 'the first planted link of a chain is named',
      walk: walk('/x', ['/home/u/ok', '/home/u/p/l1'], ['/home/u/p/l1', '/home/u/tools/l2']),
      hit: { at: '/home/u/p/l1', tree: PROJECT },
    },
    {
      why: "a user's link outside every tree is followed",
      walk: walk('/mnt/big/data', ['/home/u/data', '/mnt/big/data']),
      hit: null,
    },
    {
      why: "a user's link into a tree is followed (the box cannot move it)",
      walk: walk('/home/u/p/sub', ['/home/u/sub', '/home/u/p/sub']),
      hit: null,
    },
    {
      why: 'a link at a tree root itself is not the box to plant (its mount point)',
      walk: walk('/mnt/tools', ['/home/u/tools', '/mnt/tools']),
      hit: null,
    },
    {
      why: 'a sibling whose name shares a prefix is outside',
      walk: walk('/etc', ['/home/u/p2/x', '/etc']),
      hit: null,
    },
    {
      why: 'the given form of an aliased tree is not where links live',
      walk: walk('/etc', ['/home/u/alias', '/data/q']),
      hit: null,
    },
    { why: 'no links at all', walk: walk('/home/u/p/src'), hit: null },
  ])('$why', ({ walk: w, hit }) => {
    const found = plantableLink(w, TREES);
    expect(found === null ? null : { at: found.link.at, tree: found.tree }).toEqual(hit);
  });
});

describe('toolInBoxTree', () => {
  it.each([
    {
      why: 'a PATH directory inside a tree (a rw mount first on PATH)',
      dir: '/home/u/tools',
      walk: walk('/home/u/tools/docker'),
      hit: { via: '/home/u/tools', tree: MOUNT },
    },
    {
      why: 'a PATH directory written through an aliased tree',
      dir: '/home/u/alias/bin',
      walk: walk('/data/q/bin/git', ['/home/u/alias', '/data/q']),
      hit: { via: '/home/u/alias/bin', tree: ALIASED },
    },
    {
      why: 'a safe PATH entry whose binary is a link planted in a tree, pointing back out',
      dir: '/usr/local/bin',
      walk: walk(
        '/usr/bin/docker',
        ['/usr/local/bin/docker', '/home/u/p/l'],
        ['/home/u/p/l', '/usr/bin/docker'],
      ),
      hit: { via: '/home/u/p/l', tree: PROJECT },
    },
    {
      why: 'a safe PATH entry whose binary resolves into a tree',
      dir: '/usr/local/bin',
      walk: walk('/home/u/tools/docker', ['/usr/local/bin/docker', '/home/u/tools/docker']),
      hit: { via: '/home/u/tools/docker', tree: MOUNT },
    },
    {
      why: 'a system link (/bin -> usr/bin) is followed',
      dir: '/bin',
      walk: walk('/usr/bin/git', ['/bin', 'usr/bin']),
      hit: null,
    },
    { why: 'an ordinary binary', dir: '/usr/bin', walk: walk('/usr/bin/git'), hit: null },
  ])('$why', ({ dir, walk: w, hit }) => {
    const found = toolInBoxTree(dir, w, TREES);
    expect(found === null ? null : { via: found.via, tree: found.tree }).toEqual(hit);
  });
});
