import { symlinkSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { walkHostPath } from './host-path-view.js';
import { walkPath, type PathView } from './path-walk.js';

/** A fake tree: each path is a directory, a file, or a link with its text. */
type Node = 'dir' | 'file' | { link: string };

function view(tree: Record<string, Node>): PathView {
  return {
    kind(abs) {
      if (abs === '/') return 'dir';
      const n = tree[abs];
      if (n === undefined) return 'missing';
      if (n === 'dir') return 'dir';
      return n === 'file' ? 'other' : 'link';
    },
    readlink(abs) {
      const n = tree[abs];
      return typeof n === 'object' ? n.link : null;
    },
  };
}

const HOME: Record<string, Node> = {
  '/home': 'dir',
  '/home/u': 'dir',
  '/home/u/p': 'dir',
  '/home/u/p/src': 'dir',
  '/home/u/.ssh': 'dir',
  '/home/u/.ssh/id': 'file',
  '/home/u/p/data': { link: '/home/u/.ssh' },
  '/home/u/p/rel': { link: '../.ssh' },
  '/home/u/p/chain': { link: 'rel' },
  '/home/u/p/dot': { link: './src/../src' },
  '/home/u/p/file': 'file',
  '/home/u/p/loop': { link: 'loop' },
  '/home/u/p/gone': { link: '/home/u/nowhere' },
  '/home/u/lnk': { link: '/home/u/p' },
  '/usr': { link: 'opt/usr' },
  '/opt': 'dir',
  '/opt/usr': 'dir',
  '/opt/usr/bin': 'dir',
  '/opt/usr/bin/git': 'file',
};

describe('walkPath', () => {
  it.each([
    {
      why: 'a plain directory: no links, resolved as given',
      given: '/home/u/p/src',
      resolved: '/home/u/p/src',
      links: [],
      stopped: null,
    },
    {
      why: 'an absolute link, located where it lives',
      given: '/home/u/p/data/id',
      resolved: '/home/u/.ssh/id',
      links: [{ at: '/home/u/p/data', target: '/home/u/.ssh' }],
      stopped: null,
    },
    {
      why: 'a relative link resolves against the directory holding it',
      given: '/home/u/p/rel',
      resolved: '/home/u/.ssh',
      links: [{ at: '/home/u/p/rel', target: '../.ssh' }],
      stopped: null,
    },
    {
      why: 'a link to a link: both recorded, in order',
      given: '/home/u/p/chain',
      resolved: '/home/u/.ssh',
      links: [
        { at: '/home/u/p/chain', target: 'rel' },
        { at: '/home/u/p/rel', target: '../.ssh' },
      ],
      stopped: null,
    },
    {
      why: 'a link above the tree: what lies below is located through it',
      given: '/home/u/lnk/data',
      resolved: '/home/u/.ssh',
      links: [
        { at: '/home/u/lnk', target: '/home/u/p' },
        { at: '/home/u/p/data', target: '/home/u/.ssh' },
      ],
      stopped: null,
    },
    {
      why: '.. after a link goes up from where the link led',
      given: '/home/u/p/data/../p/src',
      resolved: '/home/u/p/src',
      links: [{ at: '/home/u/p/data', target: '/home/u/.ssh' }],
      stopped: null,
    },
    {
      why: '. and .. inside a link target',
      given: '/home/u/p/dot',
      resolved: '/home/u/p/src',
      links: [{ at: '/home/u/p/dot', target: './src/../src' }],
      stopped: null,
    },
    {
      why: 'a link in a system directory',
      given: '/usr/bin/git',
      resolved: '/opt/usr/bin/git',
      links: [{ at: '/usr', target: 'opt/usr' }],
      stopped: null,
    },
    {
      why: 'a missing component stops the walk; the rest is appended as written',
      given: '/home/u/p/none/x',
      resolved: '/home/u/p/none/x',
      links: [],
      stopped: 'missing',
    },
    {
      why: 'a link to nowhere is still recorded',
      given: '/home/u/p/gone/x',
      resolved: '/home/u/nowhere/x',
      links: [{ at: '/home/u/p/gone', target: '/home/u/nowhere' }],
      stopped: 'missing',
    },
    {
      why: 'a file with more below it is not a directory',
      given: '/home/u/p/file/x',
      resolved: '/home/u/p/file/x',
      links: [],
      stopped: 'not-dir',
    },
    {
      why: 'a file at the end is fine',
      given: '/home/u/p/file',
      resolved: '/home/u/p/file',
      links: [],
      stopped: null,
    },
    {
      why: 'relative input is taken from the root; doubled and trailing slashes are no components',
      given: 'home//u/p/src/',
      resolved: '/home/u/p/src',
      links: [],
      stopped: null,
    },
  ])('$why', ({ given, resolved, links, stopped }) => {
    const w = walkPath(given, view(HOME));
    const abs = given.startsWith('/') ? given : `/${given}`;
    expect(w).toEqual({ given: abs, resolved, links, stopped });
  });

  it('stops a loop, with every link it followed (how many: walkHostPath below)', () => {
    const w = walkPath('/home/u/p/loop', view(HOME));
    expect(w.stopped).toBe('loop');
    expect(w.links.length).toBeGreaterThan(1);
    expect(new Set(w.links.map((l) => l.at))).toEqual(new Set(['/home/u/p/loop']));
  });

  it('treats a link that vanishes between lstat and readlink as missing', () => {
    const racing: PathView = { kind: () => 'link', readlink: () => null };
    expect(walkPath('/a/b', racing)).toEqual({
      given: '/a/b',
      resolved: '/a/b',
      links: [],
      stopped: 'missing',
    });
  });
});

describe('walkHostPath', () => {
  const tmp = useTempDir('path-walk');

  it('records the links a real resolution follows, as realpath resolves it', () => {
    const root = tmp.path;
    mkdirSync(path.join(root, 'secret'));
    writeFileSync(path.join(root, 'secret', 'key'), 'k');
    mkdirSync(path.join(root, 'p'));
    symlinkSync('../secret', path.join(root, 'p', 'data'));
    symlinkSync(path.join(root, 'p'), path.join(root, 'alias'));
    const w = walkHostPath(path.join(root, 'alias', 'data', 'key'));
    expect(w).toEqual({
      given: path.join(root, 'alias', 'data', 'key'),
      resolved: path.join(root, 'secret', 'key'),
      links: [
        { at: path.join(root, 'alias'), target: path.join(root, 'p') },
        { at: path.join(root, 'p', 'data'), target: '../secret' },
      ],
      stopped: null,
    });
  });

  // The limit is Linux's own (MAXSYMLINKS); another kernel's may differ.
  it.runIf(process.platform === 'linux')(
    'follows as many links in a row as Linux does, and stops a loop there',
    () => {
      const root = tmp.path;
      writeFileSync(path.join(root, 'target'), 'T');
      let kernelLimit = 0;
      const verdicts: [number, boolean, boolean][] = [];
      for (let n = 1; n <= 64; n++) {
        // chain<n>/l0 -> l1 -> … -> l<n-1> -> ../target: n links to follow.
        const chain = path.join(root, `chain${n}`);
        mkdirSync(chain);
        for (let i = 0; i < n; i++) {
          symlinkSync(i === n - 1 ? '../target' : `l${i + 1}`, path.join(chain, `l${i}`));
        }
        let kernel = true;
        try {
          statSync(path.join(chain, 'l0'));
          kernelLimit = n;
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ELOOP');
          kernel = false;
        }
        verdicts.push([n, kernel, walkHostPath(path.join(chain, 'l0')).stopped === null]);
      }
      expect(kernelLimit).toBeGreaterThan(0);
      expect(kernelLimit).toBeLessThan(64);
      expect(verdicts.filter(([, kernel, ours]) => kernel !== ours)).toEqual([]);
      symlinkSync('loop', path.join(root, 'loop'));
      const loop = walkHostPath(path.join(root, 'loop'));
      expect(loop.stopped).toBe('loop');
      expect(loop.links).toHaveLength(kernelLimit);
    },
  );
});
