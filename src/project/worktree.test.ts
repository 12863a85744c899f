import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { FORGE_WORKTREE } from '../../test/support/forge.js';
import { useTempDir, putFile } from '../../test/support/temp.js';
import { hasGit } from '../../test/support/tools.js';

import { ByreError } from '../errors.js';
import { projectIdFor } from './identity.js';
import {
  POINTER_MAX_BYTES,
  commonDirOfWorktreeGitdir,
  mainWorktreeFor,
  resolveWorktree,
  worktreeIdFor,
} from './worktree.js';

let dir: string;

useTempDir('worktree-test', (tmp) => {
  dir = tmp;
});

function mk(rel: string): string {
  const p = path.join(dir, rel);
  mkdirSync(p, { recursive: true });
  return p;
}

function put(rel: string, content: string): void {
  putFile(dir, rel, content);
}

/** The layout `git worktree add` leaves, written by hand. */
function linkedWorktree(relativePointers: boolean): { main: string; wt: string } {
  const main = mk('repo');
  mk('repo/.git/worktrees/feature');
  const wt = mk('repo-feature');
  const gitdir = path.join(main, '.git/worktrees/feature');
  put(
    'repo-feature/.git',
    `gitdir: ${relativePointers ? '../repo/.git/worktrees/feature' : gitdir}\n`,
  );
  put('repo/.git/worktrees/feature/commondir', relativePointers ? '../..\n' : `${main}/.git\n`);
  put('repo/.git/worktrees/feature/gitdir', `${wt}/.git\n`);
  return { main, wt };
}

/**
 * The git dir resolveWorktree takes from checkout `wt`'s `.git` file holding
 * `text`, named in its refusal since nothing is there; null when it finds no
 * `gitdir:` line.
 */
async function gitDirNamed(wt: string, text: string): Promise<string | null> {
  writeFileSync(path.join(wt, '.git'), text);
  const error = await resolveWorktree(wt).catch((e: unknown) => e);
  expect(error).toMatchObject({ rule: 'worktree.broken-pointer' });
  const message = (error as Error).message;
  const missing = /, but its git dir (.*) is missing$/s.exec(message);
  if (missing?.[1] !== undefined) return missing[1];
  expect(message).toContain('holds no "gitdir:" line');
  return null;
}

describe('pure helpers', () => {
  const files: [string, string | null][] = [
    ['gitdir: /r/.git/worktrees/x\n', '/r/.git/worktrees/x'],
    ['gitdir:../r/.git/worktrees/x', '../r/.git/worktrees/x'],
    ['gitdir: /r/.git/worktrees/x\r\n', '/r/.git/worktrees/x'],
    ['ref: refs/heads/main\n', null],
    ['', null],
  ];
  for (const [text, want] of files) {
    it(`a .git file holding ${JSON.stringify(text)}`, async () => {
      const wt = mk('checkout');
      expect(await gitDirNamed(wt, text)).toBe(want === null ? null : path.resolve(wt, want));
    });
  }

  it('mainWorktreeFor', () => {
    expect(mainWorktreeFor('/r/.git')).toBe('/r');
    expect(mainWorktreeFor('/srv/repo.git')).toBeNull();
  });

  it.each([
    ['/r/.git/worktrees/x', '/r/.git'],
    ['/srv/repo.git/worktrees/w', '/srv/repo.git'],
    ['/r/.git/modules/sub', null],
    ['/r/.git', null],
    ['/worktrees/x', '/'],
  ])('commonDirOfWorktreeGitdir(%s) is %s', (gitdir, want) => {
    expect(commonDirOfWorktreeGitdir(gitdir)).toBe(want);
  });

  it('worktreeIdFor uses the worktree’s own path', () => {
    expect(worktreeIdFor('/r/feature')).toBe(projectIdFor('/r/feature'));
  });
});

describe('resolveWorktree', () => {
  it('treats a directory without git as its own project', async () => {
    const p = mk('plain');
    expect(await resolveWorktree(`${p}/`)).toEqual({
      projectRoot: p,
      worktreeDir: p,
      isLinkedWorktree: false,
      commonGitDir: null,
      gitDir: null,
      gitPaths: null,
      forged: null,
    });
  });

  it('treats a main worktree as its own project', async () => {
    const p = mk('main');
    mk('main/.git');
    expect(await resolveWorktree(p)).toMatchObject({
      projectRoot: p,
      isLinkedWorktree: false,
      commonGitDir: path.join(p, '.git'),
    });
  });

  for (const relative of [false, true]) {
    it(`anchors a linked worktree at the main worktree (${relative ? 'relative' : 'absolute'} pointers)`, async () => {
      const { main, wt } = linkedWorktree(relative);
      expect(await resolveWorktree(wt)).toEqual({
        projectRoot: main,
        worktreeDir: wt,
        isLinkedWorktree: true,
        commonGitDir: path.join(main, '.git'),
        gitDir: path.join(main, '.git/worktrees/feature'),
        gitPaths: { commonGitDir: path.join(main, '.git'), worktreeDir: wt },
        forged: null,
      });
    });
  }

  it('canonicalises through a symlinked start directory', async () => {
    const { main, wt } = linkedWorktree(false);
    symlinkSync(wt, path.join(dir, 'alias'));
    expect(await resolveWorktree(path.join(dir, 'alias'))).toMatchObject({
      projectRoot: main,
      worktreeDir: wt,
    });
  });

  it('treats a submodule (.git file, no commondir) as its own project', async () => {
    const sub = mk('super/sub');
    mk('super/.git/modules/sub');
    put('super/sub/.git', 'gitdir: ../.git/modules/sub\n');
    expect(await resolveWorktree(sub)).toMatchObject({
      projectRoot: sub,
      isLinkedWorktree: false,
      commonGitDir: path.join(dir, 'super/.git/modules/sub'),
    });
  });

  it('treats a bare repository’s worktree as its own project', async () => {
    const bare = mk('repo.git');
    mk('repo.git/worktrees/w');
    const wt = mk('w');
    put('w/.git', `gitdir: ${bare}/worktrees/w\n`);
    put('repo.git/worktrees/w/commondir', '../..\n');
    put('repo.git/worktrees/w/gitdir', `${wt}/.git\n`);
    expect(await resolveWorktree(wt)).toMatchObject({
      projectRoot: wt,
      isLinkedWorktree: false,
      commonGitDir: bare,
    });
  });

  it('refuses a pointer whose git dir is gone', async () => {
    const wt = mk('orphan');
    put('orphan/.git', `gitdir: ${dir}/moved/.git/worktrees/orphan\n`);
    await expect(resolveWorktree(wt)).rejects.toMatchObject({ rule: 'worktree.broken-pointer' });
  });

  it('refuses a .git file without a gitdir line', async () => {
    const wt = mk('odd');
    put('odd/.git', 'hello\n');
    const err: unknown = await resolveWorktree(wt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ByreError);
    expect(err).toMatchObject({ rule: 'worktree.broken-pointer' });
  });

  it.skipIf(!hasGit)('agrees with real git', async () => {
    const main = mk('real');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', main, ...args], {
        stdio: 'ignore',
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
      });
    git('init', '-q');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'x');
    git('worktree', 'add', '-q', '--no-checkout', path.join(dir, 'real-wt'));
    expect(await resolveWorktree(path.join(dir, 'real-wt'))).toEqual({
      projectRoot: main,
      worktreeDir: path.join(dir, 'real-wt'),
      isLinkedWorktree: true,
      commonGitDir: path.join(main, '.git'),
      gitDir: path.join(main, '.git/worktrees/real-wt'),
      gitPaths: { commonGitDir: path.join(main, '.git'), worktreeDir: path.join(dir, 'real-wt') },
      forged: null,
    });
  });

  it('binds the paths git recorded, not their symlink-resolved forms', async () => {
    const real = mk('disk/repo');
    mk('disk/repo/.git/worktrees/feature');
    symlinkSync(path.join(dir, 'disk'), path.join(dir, 'via'));
    const recordedCommon = path.join(dir, 'via/repo/.git');
    const wt = mk('wt');
    put('wt/.git', `gitdir: ${recordedCommon}/worktrees/feature\n`);
    put('disk/repo/.git/worktrees/feature/commondir', '../..\n');
    put('disk/repo/.git/worktrees/feature/gitdir', `${wt}/.git\n`);
    expect(await resolveWorktree(wt)).toEqual({
      projectRoot: real,
      worktreeDir: wt,
      isLinkedWorktree: true,
      commonGitDir: path.join(real, '.git'),
      gitDir: path.join(real, '.git/worktrees/feature'),
      gitPaths: { commonGitDir: recordedCommon, worktreeDir: wt },
      forged: null,
    });
  });
});

/** A second repository with a real-shaped worktree `other-wt`, and a directory `victim` whose .git the box forges. */
function forgery(): { victim: string; other: string } {
  const { main } = linkedWorktree(false);
  const victim = mk('victim');
  return { victim, other: main };
}

describe('resolveWorktree refuses pointers that are not git’s own structure', () => {
  const cases: [string, () => string, string][] = [
    [
      'a .git naming another repository’s worktree (its gitdir points elsewhere)',
      () => {
        const { victim, other } = forgery();
        put('victim/.git', `gitdir: ${other}/.git/worktrees/feature\n`);
        return victim;
      },
      'worktree.pointer-mismatch',
    ],
    [
      'a gitdir that is not <common>/worktrees/<name>',
      () => {
        const { victim, other } = forgery();
        mk('repo/.git/elsewhere/x');
        put('repo/.git/elsewhere/x/commondir', '../..\n');
        put('repo/.git/elsewhere/x/gitdir', `${path.join(dir, 'victim')}/.git\n`);
        put('victim/.git', `gitdir: ${other}/.git/elsewhere/x\n`);
        return victim;
      },
      'worktree.pointer-mismatch',
    ],
    [
      'a commondir naming a different repository',
      () => {
        const { victim } = forgery();
        mk('third/.git');
        mk('fake/.git/worktrees/v');
        put('fake/.git/worktrees/v/commondir', `${path.join(dir, 'third/.git')}\n`);
        put('fake/.git/worktrees/v/gitdir', `${path.join(dir, 'victim')}/.git\n`);
        put('victim/.git', `gitdir: ${path.join(dir, 'fake/.git/worktrees/v')}\n`);
        return victim;
      },
      'worktree.pointer-mismatch',
    ],
    [
      'a .git that is a symlink',
      () => {
        const { victim, other } = forgery();
        put('pointer', `gitdir: ${other}/.git/worktrees/feature\n`);
        symlinkSync(path.join(dir, 'pointer'), path.join(victim, '.git'));
        return victim;
      },
      'worktree.pointer-not-file',
    ],
    [
      'a .git that is a FIFO',
      () => {
        const victim = mk('victim');
        execFileSync('mkfifo', [path.join(victim, '.git')]);
        return victim;
      },
      'worktree.pointer-not-file',
    ],
    [
      'a commondir that is a FIFO',
      () => {
        const { victim } = forgery();
        mk('fake/.git/worktrees/v');
        execFileSync('mkfifo', [path.join(dir, 'fake/.git/worktrees/v/commondir')]);
        put('victim/.git', `gitdir: ${path.join(dir, 'fake/.git/worktrees/v')}\n`);
        return victim;
      },
      'worktree.pointer-not-file',
    ],
    [
      'a gitdir back-pointer that is a symlink',
      () => {
        const { victim } = forgery();
        mk('fake/.git/worktrees/v');
        put('fake/.git/worktrees/v/commondir', '../..\n');
        put('back', `${path.join(dir, 'victim')}/.git\n`);
        symlinkSync(path.join(dir, 'back'), path.join(dir, 'fake/.git/worktrees/v/gitdir'));
        put('victim/.git', `gitdir: ${path.join(dir, 'fake/.git/worktrees/v')}\n`);
        return victim;
      },
      'worktree.pointer-not-file',
    ],
    [
      'an oversized commondir',
      () => {
        const { victim } = forgery();
        mk('fake/.git/worktrees/v');
        put('fake/.git/worktrees/v/commondir', `../..\n${'x'.repeat(POINTER_MAX_BYTES)}`);
        put('victim/.git', `gitdir: ${path.join(dir, 'fake/.git/worktrees/v')}\n`);
        return victim;
      },
      'worktree.pointer-not-file',
    ],
  ];
  it.each(cases)('%s', async (_what, make, rule) => {
    const victim = make();
    const err: unknown = await resolveWorktree(victim).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ByreError);
    expect(err).toMatchObject({ rule });
  });

  it('a .git file too large to be a pointer is a standalone project', async () => {
    const p = mk('big');
    put('big/.git', `gitdir: /elsewhere/.git/worktrees/x\n${'#'.repeat(POINTER_MAX_BYTES)}`);
    expect(await resolveWorktree(p)).toMatchObject({
      projectRoot: p,
      isLinkedWorktree: false,
      commonGitDir: null,
      gitDir: null,
      gitPaths: null,
    });
  });

  it('a .git pointing straight at another repository’s git dir keeps this project’s id and binds nothing', async () => {
    const { victim, other } = forgery();
    put('victim/.git', `gitdir: ${other}/.git\n`);
    expect(await resolveWorktree(victim)).toMatchObject({
      projectRoot: victim,
      isLinkedWorktree: false,
      gitPaths: null,
    });
  });
});

describe('resolveWorktree: which tree makes a linked worktree a forgery (adr/0047)', () => {
  /**
   * A linked worktree at `wt` of the repository `repo` (a checkout's `.git`
   * or a bare `r.git`), in git's own shape, its `.git` naming the repository
   * as `named`; `links` are made first (`[at, to]`, relative to the temp dir).
   */
  function layout(wt: string, repo: string, named = repo, links: [string, string][] = []): void {
    mk(`${repo}/worktrees/w`);
    const wtAbs = mk(wt);
    for (const [at, to] of links) symlinkSync(path.join(dir, to), path.join(dir, at));
    put(`${wt}/.git`, `gitdir: ${path.join(dir, named)}/worktrees/w\n`);
    put(`${repo}/worktrees/w/commondir`, '../..\n');
    put(`${repo}/worktrees/w/gitdir`, `${wtAbs}/.git\n`);
  }

  /** The tree the refusal names (relative), or null when `wt` resolves as a linked worktree. */
  async function forgingTree(wt: string, launched: string[]): Promise<string | null> {
    const base = realpathSync(dir);
    const launchedDirs = new Set(launched.map((l) => path.join(base, l)));
    const seen: unknown = await resolveWorktree(path.join(dir, wt), {
      launchedDir: (d) => launchedDirs.has(d),
    }).catch((e: unknown) => e);
    if (!(seen instanceof Error)) {
      expect(seen).toMatchObject({ isLinkedWorktree: true, forged: null });
      return null;
    }
    expect(seen).toMatchObject({ rule: 'worktree.forged' });
    if (seen.message.includes(' lies inside the worktree itself;')) return wt;
    const tree = / lies inside (.+), where byre has run a box /.exec(seen.message)?.[1];
    return tree === undefined ? seen.message : path.relative(base, tree);
  }

  it.each<[string, () => void, string, string[], string | null]>([
    [
      'its repository inside the worktree (the box’s own forgery)',
      () => layout('p', 'p/sub/.git'),
      'p',
      [],
      'p',
    ],
    ['a bare repository inside the worktree', () => layout('p', 'p/r.git'), 'p', [], 'p'],
    [
      'a repository named through the worktree, resolving elsewhere',
      () => layout('p', 'e/.git', 'p/l/.git', [['p/l', 'e']]),
      'p',
      [],
      'p',
    ],
    ['a launched directory holding both', () => layout('t/a', 't/b/.git'), 't/a', ['t'], 't'],
    [
      'a launched directory holding both, the nearest named',
      () => layout('t/u/a', 't/u/b/.git'),
      't/u/a',
      ['t/u', 't'],
      't/u',
    ],
    ['a worktree beside its repository', () => layout('w', 'r/.git'), 'w', [], null],
    [
      'a worktree inside its main checkout, which byre launched in',
      () => layout('r/wt', 'r/.git'),
      'r/wt',
      ['r'],
      null,
    ],
    [
      'a worktree deeper in its launched main checkout',
      () => layout('r/x/wt', 'r/.git'),
      'r/x/wt',
      ['r'],
      null,
    ],
    [
      'a launched directory holding only the worktree',
      () => layout('t/a', 'r/.git'),
      't/a',
      ['t'],
      null,
    ],
    [
      'a launched directory holding only the repository',
      () => layout('w', 't/r/.git'),
      'w',
      ['t'],
      null,
    ],
    [
      'a launched directory that is not above the worktree',
      () => layout('w', 'x/r/.git'),
      'w',
      ['x'],
      null,
    ],
    [
      'a sibling directory whose name extends the worktree’s',
      () => layout('p', 'pp/.git'),
      'p',
      [],
      null,
    ],
  ])('%s', async (_what, build, wt, launched, want) => {
    build();
    expect(await forgingTree(wt, launched)).toBe(want);
  });
});

describe('resolveWorktree refuses a structure a box could have built (adr/0047)', () => {
  /** The attack, as the box runs it inside a project with a real .git directory. */
  function attack(): string {
    const p = mk('proj');
    mk('proj/.git/objects');
    put('proj/.git/HEAD', 'ref: refs/heads/main\n');
    execFileSync('sh', ['-c', FORGE_WORKTREE], { cwd: p });
    return p;
  }

  it('the moved-.git forgery: every pointer checks out, the whole is refused', async () => {
    const p = attack();
    const err: unknown = await resolveWorktree(p).catch((e: unknown) => e);
    expect(err).toMatchObject({ rule: 'worktree.forged', exitCode: 3 });
    expect((err as Error).message).toContain(
      `its repository ${path.join(p, 'sub/.git')} lies inside the worktree itself`,
    );
    expect((err as ByreError).remedy).toContain(
      `mv ${path.join(p, 'sub/.git')} ${path.join(p, '.git')}`,
    );
  });

  it('reported instead when the caller shows it: the directory as its own project outside git', async () => {
    const p = attack();
    const seen = await resolveWorktree(p, { forged: 'report' });
    expect(seen).toMatchObject({
      projectRoot: p,
      worktreeDir: p,
      isLinkedWorktree: false,
      commonGitDir: null,
      gitDir: null,
      gitPaths: null,
      forged: { rule: 'worktree.forged', exitCode: 3 },
    });
  });

  it('a bare repository planted inside the worktree', async () => {
    const wt = mk('w2');
    mk('w2/r.git/worktrees/w');
    put('w2/.git', 'gitdir: r.git/worktrees/w\n');
    put('w2/r.git/worktrees/w/commondir', '../..\n');
    put('w2/r.git/worktrees/w/gitdir', `${wt}/.git\n`);
    await expect(resolveWorktree(wt)).rejects.toMatchObject({ rule: 'worktree.forged' });
  });

  it('a structure inside a directory byre launched in, only when the caller knows it', async () => {
    const t = mk('launched');
    mk('launched/b/.git/worktrees/a');
    const a = mk('launched/a');
    put('launched/a/.git', `gitdir: ${t}/b/.git/worktrees/a\n`);
    put('launched/b/.git/worktrees/a/commondir', '../..\n');
    put('launched/b/.git/worktrees/a/gitdir', `${a}/.git\n`);
    expect(await resolveWorktree(a)).toMatchObject({ isLinkedWorktree: true });
    const err: unknown = await resolveWorktree(a, { launchedDir: (d) => d === t }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ rule: 'worktree.forged' });
    expect((err as Error).message).toContain(`inside ${t}, where byre has run a box`);
  });

  it('a real worktree inside its launched main checkout is accepted', async () => {
    const main = mk('mainco');
    mk('mainco/.git/worktrees/wt');
    const wt = mk('mainco/wt');
    put('mainco/wt/.git', 'gitdir: ../.git/worktrees/wt\n');
    put('mainco/.git/worktrees/wt/commondir', '../..\n');
    put('mainco/.git/worktrees/wt/gitdir', `${wt}/.git\n`);
    expect(await resolveWorktree(wt, { launchedDir: (d) => d === main })).toMatchObject({
      projectRoot: main,
      isLinkedWorktree: true,
    });
  });
});
