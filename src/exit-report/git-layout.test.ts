import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { putFile, useTempDir } from '../../test/support/temp.js';
import { gitOracle, hasGit } from '../../test/support/tools.js';
import { gitLayout, type GitLayout } from './git-layout.js';
import { WithinRoots } from './within-roots.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

let dir: string;
useTempDir('git-layout', (tmp) => {
  dir = tmp;
});

/** What git makes of a pointer file: the path it names, a refusal and why, or bytes that are not UTF-8. */
type PointerValue =
  { kind: 'path'; value: string } | { kind: 'refused'; why: string } | { kind: 'not-utf8' };

/**
 * The layout of checkout `app/` read with the whole temp dir as the
 * project, so a pointer's path shows in full as the label of where it
 * leads (relative to `app/`).
 */
function layoutInDir(): GitLayout {
  const app = path.join(dir, 'app');
  return gitLayout({
    reader: new WithinRoots([dir]),
    worktreeDir: app,
    commonGitDir: null,
    label: (p) => path.relative(app, p) || '.',
    unchecked: new Set<string>(),
    outOfTime: () => false,
  });
}

/** The meaning the layout records for a pointer git parses as `want`, leading to `label`. */
function meaningOf(want: PointerValue, label: (value: string) => string): string {
  switch (want.kind) {
    case 'path':
      return label(want.value);
    case 'refused':
      return `git stops with an error here: ${want.why}`;
    case 'not-utf8':
      return 'a path that is not UTF-8; byre does not follow it';
  }
}

describe('git’s pointer files, parsed by git’s rules', () => {
  it.each<[string, Buffer, PointerValue]>([
    ['a plain gitdir line', b('gitdir: ../x\n'), { kind: 'path', value: '../x' }],
    ['CRLF and extra newlines dropped', b('gitdir: ../x\r\n\n'), { kind: 'path', value: '../x' }],
    [
      'a trailing space is part of the path',
      b('gitdir: ../x \n'),
      { kind: 'path', value: '../x ' },
    ],
    ['an inner newline is part of the path', b('gitdir: a\nb\n'), { kind: 'path', value: 'a\nb' }],
    ['the path ends at a NUL', b('gitdir: a\0b\n'), { kind: 'path', value: 'a' }],
    [
      'no space after the colon',
      b('gitdir:../x\n'),
      { kind: 'refused', why: 'it does not start with "gitdir: "' },
    ],
    [
      'a leading space',
      b(' gitdir: ../x\n'),
      { kind: 'refused', why: 'it does not start with "gitdir: "' },
    ],
    ['no path', b('gitdir: \n'), { kind: 'refused', why: 'it names no path' }],
    ['empty', b(''), { kind: 'refused', why: 'it does not start with "gitdir: "' }],
    ['not UTF-8', Buffer.from([...b('gitdir: '), 0xff, 0x0a]), { kind: 'not-utf8' }],
  ])('.git file: %s', (_name, bytes, want) => {
    mkdirSync(path.join(dir, 'app'));
    writeFileSync(path.join(dir, 'app/.git'), bytes);
    expect(layoutInDir().pointers['.git']).toEqual({
      kind: 'pointer',
      text: bytes.toString('utf8'),
      meaning: meaningOf(want, (value) => `git’s dir: ${value}`),
    });
  });

  it.each<[string, Buffer, PointerValue]>([
    ['relative', b('logs/c\n'), { kind: 'path', value: 'logs/c' }],
    ['CRLF', b('../..\r\n'), { kind: 'path', value: '../..' }],
    ['only a newline: the git dir itself', b('\n'), { kind: 'path', value: '' }],
    ['empty: git stops', b(''), { kind: 'refused', why: 'it is empty' }],
    ['a NUL ends it', b('a\0b'), { kind: 'path', value: 'a' }],
  ])('commondir: %s', (_name, bytes, want) => {
    gitDir('app/.git');
    if (want.kind === 'path')
      mkdirSync(path.join(dir, 'app/.git', want.value), { recursive: true });
    writeFileSync(path.join(dir, 'app/.git/commondir'), bytes);
    expect(layoutInDir().pointers['.git/commondir']).toMatchObject({
      kind: 'pointer',
      text: bytes.toString('utf8'),
      meaning: meaningOf(
        want,
        (value) => `git’s common dir: ${path.relative('app', path.join('app/.git', value))}`,
      ),
    });
  });

  it.each<[string, boolean]>([
    ['ref: refs/heads/main\n', true],
    ['ref:refs/heads/main', true],
    ['ref: \t refs/x', true],
    ['ref: heads/main', false],
    [`${'a'.repeat(40)}\n`, true],
    [`${'a'.repeat(39)}\n`, false],
    ['', false],
  ])('HEAD %j is valid: %s', (text, want) => {
    gitDir('app/.git');
    writeFileSync(path.join(dir, 'app/.git/HEAD'), b(text));
    expect(layoutInDir().own?.gitDir ?? null).toBe(want ? path.join(dir, 'app/.git') : null);
  });

  it('a relative pointer is joined to its base, an absolute one stands', () => {
    const commonDir = (): string | null | undefined =>
      layoutInDir().sites.find((site) => site.gitDir === path.join(dir, 'app/.git'))?.commonDir;
    gitDir('app/.git');
    mkdirSync(path.join(dir, 'app/.git/logs/c'), { recursive: true });
    writeFileSync(path.join(dir, 'app/.git/commondir'), 'logs/c');
    expect(commonDir()).toBe(path.join(dir, 'app/.git/logs/c'));
    mkdirSync(path.join(dir, 'x'));
    writeFileSync(path.join(dir, 'app/.git/commondir'), path.join(dir, 'x'));
    expect(commonDir()).toBe(path.join(dir, 'x'));
  });
});

/** A git dir git takes: HEAD, objects and refs. */
function gitDir(rel: string): void {
  putFile(dir, `${rel}/HEAD`, 'ref: refs/heads/main\n');
  mkdirSync(path.join(dir, rel, 'objects'), { recursive: true });
  mkdirSync(path.join(dir, rel, 'refs'), { recursive: true });
}

/** What git itself says in `cwd`: its git dir and common dir, or null when it stops. */
function gitSays(cwd: string): { gitDir: string; commonDir: string } | null {
  const out = gitOracle(cwd, dir, [
    'rev-parse',
    '--path-format=absolute',
    '--git-dir',
    '--git-common-dir',
  ]);
  if (out === null) return null;
  const [g, c] = out.split('\n');
  return { gitDir: g ?? '', commonDir: c ?? '' };
}

function layoutOf(wt: string, commonGitDir: string | null = null): GitLayout {
  const unchecked = new Set<string>();
  return gitLayout({
    reader: new WithinRoots([wt]),
    worktreeDir: wt,
    commonGitDir,
    label: (p) => path.relative(wt, p) || '.',
    unchecked,
    outOfTime: () => false,
  });
}

/** The layouts a box can build in its checkout `app/`; git is asked what it makes of each. */
const LAYOUTS: [string, () => void][] = [
  ['a .git directory', () => gitDir('app/.git')],
  [
    'commondir redirected under .git/logs, objects and refs linked back',
    () => {
      gitDir('app/.git');
      putFile(dir, 'app/.git/commondir', 'logs/c\n');
      mkdirSync(path.join(dir, 'app/.git/logs/c'), { recursive: true });
      symlinkSync('../../objects', path.join(dir, 'app/.git/logs/c/objects'));
      symlinkSync('../../refs', path.join(dir, 'app/.git/logs/c/refs'));
    },
  ],
  [
    'commondir absolute, with CRLF',
    () => {
      gitDir('app/.git');
      gitDir('app/other');
      putFile(dir, 'app/.git/commondir', `${dir}/app/other\r\n`);
    },
  ],
  [
    'commondir naming a directory without objects: git does not take .git',
    () => {
      gitDir('app/.git');
      mkdirSync(path.join(dir, 'app/.git/c'));
      putFile(dir, 'app/.git/commondir', 'c\n');
    },
  ],
  [
    'commondir naming nothing',
    () => {
      gitDir('app/.git');
      putFile(dir, 'app/.git/commondir', 'nowhere/at/all\n');
    },
  ],
  ['an empty commondir', () => (gitDir('app/.git'), putFile(dir, 'app/.git/commondir', ''))],
  [
    'a .git file naming a git dir',
    () => (gitDir('app/g'), putFile(dir, 'app/.git', 'gitdir: g\n')),
  ],
  [
    'a .git file through a linked directory inside the checkout',
    () => {
      gitDir('app/real/g');
      symlinkSync('real', path.join(dir, 'app/via'));
      putFile(dir, 'app/.git', 'gitdir: via/g\r\n');
    },
  ],
  [
    'a .git file naming a git dir with its own commondir',
    () => {
      gitDir('app/common');
      putFile(dir, 'app/wt/HEAD', 'ref: refs/heads/x\n');
      putFile(dir, 'app/wt/commondir', '../common\n');
      putFile(dir, 'app/.git', 'gitdir: wt\n');
    },
  ],
  [
    'a .git file with a trailing space',
    () => (gitDir('app/g'), putFile(dir, 'app/.git', 'gitdir: g \n')),
  ],
  [
    'a .git file without the space',
    () => (gitDir('app/g'), putFile(dir, 'app/.git', 'gitdir:g\n')),
  ],
  [
    'a .git file naming no repository',
    () => (
      mkdirSync(path.join(dir, 'app/g'), { recursive: true }),
      putFile(dir, 'app/.git', 'gitdir: g\n')
    ),
  ],
  [
    'a .git directory with a bad HEAD, and the checkout itself a repository',
    () => {
      gitDir('app/.git');
      putFile(dir, 'app/.git/HEAD', 'garbage\n');
      gitDir('app');
    },
  ],
  ['no .git, the checkout itself a repository', () => gitDir('app')],
  [
    'a detached HEAD',
    () => {
      gitDir('app/.git');
      writeFileSync(path.join(dir, 'app/.git/HEAD'), `${'0'.repeat(40)}\n`);
      putFile(dir, 'app/sub/.keep', '');
    },
  ],
  [
    'HEAD a symbolic link into refs/',
    () => {
      gitDir('app/.git');
      execFileSync('rm', [path.join(dir, 'app/.git/HEAD')]);
      symlinkSync('refs/heads/main', path.join(dir, 'app/.git/HEAD'));
    },
  ],
  ['nothing at all', () => mkdirSync(path.join(dir, 'app'), { recursive: true })],
];

describe.skipIf(!hasGit)(
  'gitLayout finds the git dir and common dir git itself uses (git is the oracle)',
  () => {
    it.each(LAYOUTS)('%s', (_name, build) => {
      build();
      const wt = path.join(dir, 'app');
      const git = gitSays(wt);
      const own = layoutOf(wt).own;
      expect(own === null ? null : { gitDir: own.gitDir, commonDir: own.commonDir }).toEqual(git);
    });

    it('a linked worktree git made: each checkout’s git dir and common dir', () => {
      const main = path.join(dir, 'main');
      mkdirSync(main);
      const git = (...args: string[]): void => {
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd: main,
          stdio: 'ignore',
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            HOME: dir,
            GIT_CONFIG_NOSYSTEM: '1',
          },
        });
      };
      git('init', '-q', '-b', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'x');
      git('worktree', 'add', '-q', path.join(dir, 'feat'));
      const feat = path.join(dir, 'feat');
      const common = path.join(main, '.git');
      const layout = gitLayout({
        reader: new WithinRoots([feat, main, common]),
        worktreeDir: feat,
        commonGitDir: common,
        label: (p) => p,
        unchecked: new Set(),
        outOfTime: () => false,
      });
      expect({ gitDir: layout.own?.gitDir, commonDir: layout.own?.commonDir }).toEqual(
        gitSays(feat),
      );
      expect(layout.sites.map((s) => [s.gitDir, s.commonDir, s.checkout])).toEqual([
        [path.join(common, 'worktrees/feat'), common, feat],
        [common, common, main],
      ]);
      expect(layout.pointers).toMatchObject({
        [path.join(feat, '.git')]: {
          kind: 'pointer',
          meaning: `git’s dir: ${common}/worktrees/feat`,
        },
        [path.join(common, 'worktrees/feat/commondir')]: {
          kind: 'pointer',
          text: '../..\n',
          meaning: `git’s common dir: ${common}`,
        },
        [path.join(common, 'worktrees/feat/gitdir')]: {
          kind: 'pointer',
          meaning: `this worktree’s checkout: ${feat}`,
        },
        [common]: { kind: 'other', what: 'a directory' },
      });
      expect(layout.complete).toBe(true);
    });
  },
);

describe('gitLayout never reads through a pointer that leaves the project', () => {
  it('a .git link: recorded as the link, not followed, and the layout is incomplete', () => {
    gitDir('other/.git');
    mkdirSync(path.join(dir, 'app'));
    symlinkSync(path.join(dir, 'other/.git'), path.join(dir, 'app/.git'));
    const layout = layoutOf(path.join(dir, 'app'));
    expect(layout.own).toBeNull();
    expect(layout.sites).toEqual([]);
    expect(layout.pointers).toEqual({
      '.git': { kind: 'symlink', target: path.join(dir, 'other/.git') },
    });
    expect(layout.complete).toBe(false);
  });

  it('a commondir leading outside: recorded with where it leads, nothing read there', () => {
    gitDir('app/.git');
    gitDir('other');
    putFile(dir, 'app/.git/commondir', '../../other\n');
    const layout = layoutOf(path.join(dir, 'app'));
    expect(layout.pointers['.git/commondir']).toEqual({
      kind: 'pointer',
      text: '../../other\n',
      meaning: `git’s common dir: ${dir}/other, outside the project`,
    });
    expect(layout.sites).toEqual([
      { gitDir: path.join(dir, 'app/.git'), commonDir: null, checkout: path.join(dir, 'app') },
    ]);
    expect(layout.complete).toBe(false);
  });

  it('a commondir that is a link or a FIFO: named by kind, never opened', () => {
    gitDir('app/.git');
    symlinkSync('/etc/passwd', path.join(dir, 'app/.git/commondir'));
    expect(layoutOf(path.join(dir, 'app')).pointers['.git/commondir']).toEqual({
      kind: 'symlink',
      target: '/etc/passwd',
    });
    execFileSync('rm', [path.join(dir, 'app/.git/commondir')]);
    execFileSync('mkfifo', [path.join(dir, 'app/.git/commondir')]);
    expect(layoutOf(path.join(dir, 'app')).pointers['.git/commondir']).toEqual({
      kind: 'other',
      what: 'a FIFO',
    });
  });
});
