import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { ByreError } from '../errors.js';
import { projectIdFor } from './identity.js';
import { mainWorktreeFor, parseGitFile, resolveWorktree, worktreeIdFor } from './worktree.js';

let dir: string;

const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

useTempDir('worktree-test', (tmp) => {
  dir = tmp;
});

function mk(rel: string): string {
  const p = path.join(dir, rel);
  mkdirSync(p, { recursive: true });
  return p;
}

function put(rel: string, content: string): void {
  const p = path.join(dir, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
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

describe('pure helpers', () => {
  const files: [string, string | null][] = [
    ['gitdir: /r/.git/worktrees/x\n', '/r/.git/worktrees/x'],
    ['gitdir:../r/.git/worktrees/x', '../r/.git/worktrees/x'],
    ['gitdir: /r/.git/worktrees/x\r\n', '/r/.git/worktrees/x'],
    ['ref: refs/heads/main\n', null],
    ['', null],
  ];
  for (const [text, want] of files) {
    it(`parseGitFile(${JSON.stringify(text)})`, () => expect(parseGitFile(text)).toBe(want));
  }

  it('mainWorktreeFor', () => {
    expect(mainWorktreeFor('/r/.git')).toBe('/r');
    expect(mainWorktreeFor('/srv/repo.git')).toBeNull();
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
    });
  });
});
