import { describe, expect, it } from 'vitest';
import {
  containmentRefusals,
  isAncestorOrSelf,
  type BoxPath,
  type GuardedPaths,
} from './containment.js';

const guarded: GuardedPaths = {
  home: '/home/ada',
  store: '/home/ada/.byre',
  executables: ['/home/ada/.local/bin/byre', '/opt/byre/byre-1.0'],
  runtime: ['/run/user/1000/byre', '/tmp/byre-1000'],
};

function workspace(host: string): BoxPath {
  return { host, mode: 'rw', kind: 'workspace', label: `the project directory ${host}` };
}

function mount(host: string, mode: 'rw' | 'ro'): BoxPath {
  return { host, mode, kind: 'mount', label: `the mount ${host} -> /m (${mode})` };
}

function seed(host: string): BoxPath {
  return { host, mode: 'ro', kind: 'seed', label: `the seed ${host} of volume v` };
}

describe('isAncestorOrSelf', () => {
  it.each([
    ['/a', '/a', true],
    ['/a', '/a/b', true],
    ['/', '/a', true],
    ['/a/b', '/a', false],
    ['/a', '/ab', false],
    ['/a/b', '/a/c', false],
  ])('%s over %s is %s', (a, b, want) => {
    expect(isAncestorOrSelf(a, b)).toBe(want);
  });
});

describe('containmentRefusals', () => {
  const cases: [string, BoxPath, string[]][] = [
    ['an ordinary project', workspace('/home/ada/src/app'), []],
    [
      'the home directory',
      workspace('/home/ada'),
      ['containment.home', 'containment.store', 'containment.executable'],
    ],
    [
      'an ancestor of home',
      workspace('/home'),
      ['containment.home', 'containment.store', 'containment.executable'],
    ],
    ['a project holding the store only', workspace('/srv/p'), []],
    ['the store itself', workspace('/home/ada/.byre'), ['containment.store']],
    ['a project inside the store', workspace('/home/ada/.byre/projects/x'), ['containment.store']],
    ['a project holding the executable', workspace('/home/ada/.local'), ['containment.executable']],
    [
      'a project holding the executable’s real path',
      workspace('/opt/byre'),
      ['containment.executable'],
    ],
    ['a sibling of the store', workspace('/home/ada/.byrex'), []],
    ['an ordinary rw mount', mount('/data', 'rw'), []],
    ['a ro mount of home (holds the store)', mount('/home/ada', 'ro'), ['containment.store']],
    ['a rw mount of /tmp (holds the runtime dir)', mount('/tmp', 'rw'), ['containment.runtime']],
    ['a rw mount inside the runtime dir', mount('/tmp/byre-1000/x', 'rw'), ['containment.runtime']],
    ['a rw mount of /run/user/1000', mount('/run/user/1000', 'rw'), ['containment.runtime']],
    ['a ro mount of /tmp', mount('/tmp', 'ro'), []],
    ['a rw mount of another tmp dir', mount('/tmp/build', 'rw'), []],
    ['a project directory of /tmp', workspace('/tmp'), ['containment.runtime']],
    ['a ro mount inside the store', mount('/home/ada/.byre/projects', 'ro'), ['containment.store']],
    [
      'a rw mount of the executable’s directory',
      mount('/home/ada/.local/bin', 'rw'),
      ['containment.executable'],
    ],
    ['a ro mount of the executable’s directory', mount('/home/ada/.local/bin', 'ro'), []],
    [
      'a rw mount of the executable itself',
      mount('/opt/byre/byre-1.0', 'rw'),
      ['containment.executable'],
    ],
    ['a seed copied from the store', seed('/home/ada/.byre/default.config'), ['containment.store']],
    ['a seed from elsewhere in home', seed('/home/ada/.claude'), []],
  ];
  it.each(cases)('%s', (_what, p, rules) => {
    expect(containmentRefusals([p], guarded).map((r) => r.rule)).toEqual(rules);
  });

  it('names the path by its label and gives a remedy', () => {
    const [r] = containmentRefusals([mount('/home/ada/.byre', 'ro')], guarded);
    expect(r?.message).toBe(
      "the mount /home/ada/.byre -> /m (ro) contains byre's store /home/ada/.byre; the box could read the consent documents that decide its own grants",
    );
    expect(r?.remedy).toMatch(/^remove or narrow that mount, .*BYRE_HOME/);
  });
});

describe('a config file the store links to is guarded as the store is (adr/0058)', () => {
  const linked: GuardedPaths = {
    ...guarded,
    configLinks: ['/home/ada/dotfiles/byre/default.config'],
  };
  it.each([
    ['the dotfiles project itself', workspace('/home/ada/dotfiles'), ['containment.store']],
    ['a ro mount of the file', mount('/home/ada/dotfiles/byre', 'ro'), ['containment.store']],
    ['a rw mount of its directory', mount('/home/ada/dotfiles', 'rw'), ['containment.store']],
    ['another project', workspace('/home/ada/src/app'), []],
    ['a sibling of the file', mount('/home/ada/dotfiles/vim', 'rw'), []],
  ])('%s', (_what, p, rules) => {
    expect(containmentRefusals([p], linked).map((r) => r.rule)).toEqual(rules);
  });

  it('names the file the store links to', () => {
    const [r] = containmentRefusals([workspace('/home/ada/dotfiles')], linked);
    expect(r?.message).toBe(
      "the project directory /home/ada/dotfiles reaches /home/ada/dotfiles/byre/default.config, a config file byre's store links to; the box could rewrite the consent documents that decide its own grants",
    );
  });
});

describe('a remedy never names a place the same rule refuses', () => {
  /** Every place a remedy suggests, `(e.g. ~/x)`, with `~` expanded against the home directory. */
  const placesIn = (remedy: string): string[] =>
    [...remedy.matchAll(/\(e\.g\. ([~/][^)\s]*)\)/g)].map((m) =>
      (m[1] ?? '').replace(/^~/, guarded.home),
    );

  it.each([
    workspace('/home/ada'),
    workspace('/home/ada/.local'),
    workspace('/home/ada/.local/bin'),
    workspace('/home'),
    workspace('/'),
    workspace('/usr'),
    workspace('/opt/byre'),
    mount('/home/ada', 'rw'),
    mount('/home/ada/.local', 'rw'),
    mount('/', 'rw'),
  ])('$label', (p) => {
    const everywhere = {
      ...guarded,
      executables: [...guarded.executables, '/usr/local/bin/byre'],
    };
    const refusals = containmentRefusals([p], everywhere);
    expect(refusals).not.toEqual([]);
    for (const r of refusals) {
      for (const place of placesIn(r.remedy)) {
        expect(isAncestorOrSelf(p.host, place), `${r.rule}: ${r.remedy}`).toBe(false);
      }
    }
  });

  it.each([
    ['/home/ada/.local', /\(e\.g\. \/usr\/local\/bin\)/],
    ['/home/ada/src/tools', /\(e\.g\. ~\/\.local\/bin\)/],
    ['/', /^install byre outside this directory, or run byre/],
  ])('a project directory %s is told %s', (host, remedy) => {
    const exe = { ...guarded, executables: [`${host}/bin/byre`.replace('//', '/')] };
    const r = containmentRefusals([workspace(host)], exe).find(
      (x) => x.rule === 'containment.executable',
    );
    expect(r?.remedy).toMatch(remedy);
  });
});
