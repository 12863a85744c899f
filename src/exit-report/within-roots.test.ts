import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { putFile, useTempDir } from '../../test/support/temp.js';
import { WithinRoots } from './within-roots.js';

type Resolution = ReturnType<WithinRoots['resolve']>;

let dir: string;
useTempDir('within-roots', (tmp) => {
  dir = tmp;
});

/** A project tree p/ (the root) with links in and out of it, and a tree outside it. */
function tree(): WithinRoots {
  putFile(dir, 'p/a/file', 'A');
  putFile(dir, 'p/b/file', 'B');
  putFile(dir, 'outside/secret', 'S');
  symlinkSync('../b', path.join(dir, 'p/a/up')); // p/a/up -> p/b
  symlinkSync(path.join(dir, 'p/b'), path.join(dir, 'p/abs')); // absolute, inside
  symlinkSync('../../outside', path.join(dir, 'p/a/out')); // leaves the tree
  symlinkSync('loop2', path.join(dir, 'p/loop1'));
  symlinkSync('loop1', path.join(dir, 'p/loop2'));
  symlinkSync('a/up', path.join(dir, 'p/chain')); // a link to a link
  return new WithinRoots([path.join(dir, 'p')]);
}

describe('WithinRoots.resolve: as the kernel resolves, never past the trees', () => {
  it.each<[string, string, (d: string) => Resolution]>([
    ['a plain file', 'p/a/file', (d) => ({ kind: 'inside', path: `${d}/p/a/file` })],
    ['a relative link inside', 'p/a/up/file', (d) => ({ kind: 'inside', path: `${d}/p/b/file` })],
    ['an absolute link inside', 'p/abs/file', (d) => ({ kind: 'inside', path: `${d}/p/b/file` })],
    ['a link to a link', 'p/chain/file', (d) => ({ kind: 'inside', path: `${d}/p/b/file` })],
    // `..` after a link applies to its target (p/b), not to p/a.
    ['.. after a link', 'p/a/up/../a/file', (d) => ({ kind: 'inside', path: `${d}/p/a/file` })],
    ['a missing last component', 'p/a/new', (d) => ({ kind: 'inside', path: `${d}/p/a/new` })],
    [
      'out through .. and back in',
      'p/a/../../p/b/file',
      (d) => ({ kind: 'inside', path: `${d}/p/b/file` }),
    ],
    [
      'a link leading out',
      'p/a/out/secret',
      (d) => ({ kind: 'outside', path: `${d}/outside/secret` }),
    ],
    [
      'a path outside',
      'outside/secret',
      (d) => ({ kind: 'outside', path: `${d}/outside` + '/secret' }),
    ],
    ['.. above the tree', 'p/..', (d) => ({ kind: 'outside', path: d })],
    [
      'a missing directory on the way',
      'p/nope/file',
      (d) => ({ kind: 'broken', why: `${d}/p/nope does not exist` }),
    ],
    [
      'a file used as a directory',
      'p/a/file/x',
      (d) => ({ kind: 'broken', why: `${d}/p/a/file is not a directory` }),
    ],
    [
      'a link loop',
      'p/loop1',
      () => ({ kind: 'broken', why: expect.stringMatching(/^more than \d+ links$/) as string }),
    ],
  ])('%s', (_name, rel, want) => {
    const reader = tree();
    expect(reader.resolve(`${dir}/${rel}`)).toEqual(want(dir));
  });

  // The limit is Linux's own; another kernel's may differ.
  it.runIf(process.platform === 'linux')(
    'follows as many links in a row as Linux does, and no more',
    () => {
      putFile(dir, 'p/target', 'T');
      const verdicts: [number, boolean, boolean][] = [];
      for (let n = 1; n <= 64; n++) {
        // p/chain<n>/l0 -> l1 -> … -> l<n-1> -> ../target: n links to follow.
        const chain = path.join(dir, `p/chain${n}`);
        mkdirSync(chain);
        for (let i = 0; i < n; i++) {
          symlinkSync(i === n - 1 ? '../target' : `l${i + 1}`, path.join(chain, `l${i}`));
        }
        const head = path.join(chain, 'l0');
        let kernel = true;
        try {
          statSync(head);
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ELOOP');
          kernel = false;
        }
        const ours = new WithinRoots([path.join(dir, 'p')]).resolve(head);
        verdicts.push([n, kernel, ours.kind === 'inside']);
      }
      // Both sides of the kernel's limit are in the range.
      expect(verdicts.some(([, kernel]) => kernel)).toBe(true);
      expect(verdicts.some(([, kernel]) => !kernel)).toBe(true);
      expect(verdicts.filter(([, kernel, ours]) => kernel !== ours)).toEqual([]);
    },
  );

  it('never lstats a path outside the trees on the way down to them', () => {
    // The trees' ancestors are taken as they are: a root is canonical.
    const reader = new WithinRoots([path.join(dir, 'p')]);
    putFile(dir, 'p/x', '');
    expect(reader.resolve(`${dir}/p/x`)).toEqual({ kind: 'inside', path: `${dir}/p/x` });
  });
});

describe('WithinRoots reads: anchored, no link followed, no FIFO opened', () => {
  it('reads a file inside, and refuses one reached through a link (the link swapped in after resolving)', () => {
    const reader = tree();
    const errors: string[] = [];
    const noting = new WithinRoots([path.join(dir, 'p')], (p, code) => errors.push(`${p}:${code}`));
    expect(reader.read(`${dir}/p/a/file`, 10)).toMatchObject({ kind: 'ok' });
    // p/a/up is a link: opening it as a directory on the way fails instead of following it.
    expect(noting.read(`${dir}/p/a/up/file`, 10)).toBeNull();
    expect(errors).toEqual([`${dir}/p/a/up:a symbolic link on the way`]);
  });

  it('lists, lstats and states without following', () => {
    const reader = tree();
    expect(reader.list(`${dir}/p/a`)).toEqual(['file', 'out', 'up']);
    expect(reader.lstat(`${dir}/p/a/up`)?.isSymbolicLink()).toBe(true);
    expect(reader.state(`${dir}/p/a/out`)).toEqual({ kind: 'symlink', target: '../../outside' });
    expect(reader.readlink(`${dir}/p/a/up`)).toBe('../b');
  });

  it('a FIFO is named by kind, never opened', () => {
    const reader = tree();
    mkdirSync(path.join(dir, 'p/f'));
    execFileSync('mkfifo', [path.join(dir, 'p/f/pipe')]);
    expect(reader.state(`${dir}/p/f/pipe`)).toEqual({ kind: 'other', what: 'a FIFO' });
    expect(reader.read(`${dir}/p/f/pipe`, 10)).toEqual({ kind: 'not-regular', what: 'fifo' });
  });

  it('reads nothing outside the trees', () => {
    const errors: string[] = [];
    const reader = new WithinRoots([path.join(dir, 'p')], (p, code) => errors.push(code));
    tree();
    expect(reader.read(`${dir}/outside/secret`, 10)).toBeNull();
    expect(errors).toEqual(['outside the project']);
  });
});
