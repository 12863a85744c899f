import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir, putFile } from '../../test/support/temp.js';
import { hasGit } from '../../test/support/tools.js';
import { WORKTREE_ADD_SCRIPT, WORKTREE_REMOVE_SCRIPT } from '../../test/support/fake-git.js';
import { ByreError } from '../errors.js';
import { projectIdFor } from './identity.js';
import { resolveWorktree } from './worktree.js';
import { NEEDS_CHECKOUT_MARKER, headText, listWorktrees } from './worktree-list.js';

let dir: string;
useTempDir('worktree-list', (tmp) => {
  dir = tmp;
});

const put = (rel: string, content: string): string => putFile(dir, rel, content);

/** The main worktree's head as listWorktrees reads it from a `HEAD` holding `text`. */
function parseHead(text: string): ReturnType<typeof listWorktrees>['entries'][number]['head'] {
  put('repo/.git/HEAD', text);
  const [main] = listWorktrees(path.join(dir, 'repo/.git'), path.join(dir, 'repo')).entries;
  if (main === undefined) throw new Error('listWorktrees listed no main worktree');
  return main.head;
}

describe('listWorktrees: a HEAD read', () => {
  it.each([
    ['ref: refs/heads/main\n', { branch: 'main' }, 'main'],
    ['ref: refs/heads/fix/x', { branch: 'fix/x' }, 'fix/x'],
    [
      '0123456789abcdef0123456789abcdef01234567\n',
      { detached: '0123456789ab' },
      '(detached 0123456789ab)',
    ],
    ['garbage', { unknown: 'garbage' }, '(unreadable HEAD)'],
  ])('%j', (text, head, shown) => {
    expect(parseHead(text)).toEqual(head);
    expect(headText(parseHead(text))).toBe(shown);
  });
});

describe('listWorktrees (git’s files, read by hand)', () => {
  it('lists the main worktree and each linked one, with branch, marker, lock and missing', () => {
    const common = path.join(dir, 'app/.git');
    put('app/.git/HEAD', 'ref: refs/heads/main\n');
    put('app/.git/worktrees/feat/gitdir', `${dir}/app-feat/.git\n`);
    put('app/.git/worktrees/feat/HEAD', 'ref: refs/heads/feat\n');
    put(`app/.git/worktrees/feat/${NEEDS_CHECKOUT_MARKER}`, '');
    put('app-feat/.git', `gitdir: ${common}/worktrees/feat\n`);
    put('app/.git/worktrees/gone/gitdir', `${dir}/app-gone/.git\n`);
    put('app/.git/worktrees/gone/HEAD', 'ref: refs/heads/gone\n');
    put('app/.git/worktrees/gone/locked', 'on a usb disk\n');
    const list = listWorktrees(common, path.join(dir, 'app'));
    expect(list.notListed).toBe(0);
    expect(list.entries).toEqual([
      {
        path: path.join(dir, 'app'),
        head: { branch: 'main' },
        admin: null,
        pendingCheckout: false,
        locked: false,
        missing: false,
      },
      {
        path: path.join(dir, 'app-feat'),
        head: { branch: 'feat' },
        admin: 'feat',
        pendingCheckout: true,
        locked: false,
        missing: false,
      },
      {
        path: path.join(dir, 'app-gone'),
        head: { branch: 'gone' },
        admin: 'gone',
        pendingCheckout: false,
        locked: true,
        missing: true,
      },
    ]);
  });

  it('follows no link and opens no FIFO planted in the admin dirs', () => {
    const common = path.join(dir, 'app/.git');
    put('app/.git/HEAD', 'ref: refs/heads/main\n');
    put('secret', 'ref: refs/heads/leaked\n');
    mkdirSync(path.join(common, 'worktrees/evil'), { recursive: true });
    symlinkSync(path.join(dir, 'secret'), path.join(common, 'worktrees/evil/HEAD'));
    put('app/.git/worktrees/evil/gitdir', `${dir}/evil/.git\n`);
    execFileSync('mkfifo', [path.join(common, 'worktrees/evil/locked-fifo')]);
    symlinkSync(path.join(dir, 'elsewhere'), path.join(common, 'worktrees/linked-dir'));
    const list = listWorktrees(common, path.join(dir, 'app'));
    expect(list.entries.map((e) => e.admin)).toEqual([null, 'evil']);
    expect(list.entries[1]?.head).toEqual({ unknown: '' });
  });

  it('reads a bounded number of linked worktrees, and counts the rest', () => {
    const common = path.join(dir, 'app/.git');
    /** The list with `n` linked worktrees, after checking listed and counted add up to `n`. */
    const listed = (n: number): string[] => {
      for (let i = 0; i < n; i++) {
        put(`app/.git/worktrees/w${String(i).padStart(3, '0')}/gitdir`, `${dir}/w${i}/.git\n`);
      }
      const list = listWorktrees(common, path.join(dir, 'app'));
      expect(list.notListed).toBeGreaterThan(0);
      expect(list.entries.length - 1 + list.notListed).toBe(n);
      return list.entries.map((e) => e.path);
    };
    const few = listed(300);
    expect(listed(400)).toEqual(few);
  });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe.skipIf(!hasGit)(
  'the helper scripts against a real repository (run by sh, as the helper would)',
  () => {
    function repo(): { main: string; common: string } {
      const main = path.join(dir, 'app');
      mkdirSync(main);
      git(main, 'init', '-q', '-b', 'main');
      writeFileSync(path.join(main, 'a.txt'), 'hi\n');
      git(main, 'add', '.');
      git(main, 'commit', '-qm', 'init');
      return { main, common: path.join(main, '.git') };
    }
    const run = (script: string, env: Record<string, string>): void => {
      execFileSync('sh', ['-c', script], { env: { ...process.env, ...env }, stdio: 'pipe' });
    };

    it('registers without a checkout, leaves the marker, and removes again', async () => {
      const { main, common } = repo();
      const target = path.join(dir, 'app-feat');
      mkdirSync(target);
      run(WORKTREE_ADD_SCRIPT, {
        BYRE_WT_MAIN: main,
        BYRE_WT_TARGET: target,
        BYRE_WT_BRANCH: 'feat',
      });
      expect(existsSync(path.join(target, 'a.txt'))).toBe(false);
      const list = listWorktrees(common, main);
      expect(list.entries[1]).toMatchObject({
        path: target,
        head: { branch: 'feat' },
        pendingCheckout: true,
      });
      const wt = await resolveWorktree(target);
      expect(wt.isLinkedWorktree).toBe(true);
      expect(wt.projectRoot).toBe(main);

      // An existing branch is checked out as is, not created again.
      const other = path.join(dir, 'app-main2');
      git(main, 'branch', 'existing');
      run(WORKTREE_ADD_SCRIPT, {
        BYRE_WT_MAIN: main,
        BYRE_WT_TARGET: other,
        BYRE_WT_BRANCH: 'existing',
      });
      expect(listWorktrees(common, main).entries[2]?.head).toEqual({ branch: 'existing' });

      // Never checked out, git counts every file as deleted: only --force removes it.
      expect(() =>
        run(WORKTREE_REMOVE_SCRIPT, { BYRE_WT_MAIN: main, BYRE_WT_TARGET: other }),
      ).toThrow();
      run(WORKTREE_REMOVE_SCRIPT, {
        BYRE_WT_MAIN: main,
        BYRE_WT_TARGET: other,
        BYRE_WT_FORCE: '1',
      });
      expect(existsSync(path.join(common, 'worktrees/app-main2'))).toBe(false);

      git(target, 'checkout'); // what the launcher does at the box's first start
      run(WORKTREE_REMOVE_SCRIPT, { BYRE_WT_MAIN: main, BYRE_WT_TARGET: target });
      expect(existsSync(path.join(common, 'worktrees/app-feat'))).toBe(false);
      expect(git(main, 'branch', '--list', 'feat')).toContain('feat');
    });

    it('a moved worktree is refused until git repairs its pointers, then resolves to the same project without rehome', async () => {
      const { main } = repo();
      const before = path.join(dir, 'wt-a');
      git(main, 'worktree', 'add', '-q', '-b', 'a', before);
      const after = path.join(dir, 'wt-moved');
      renameSync(before, after);
      await expect(resolveWorktree(after)).rejects.toBeInstanceOf(ByreError);
      git(main, 'worktree', 'repair', after);
      const wt = await resolveWorktree(after);
      expect(wt.isLinkedWorktree).toBe(true);
      expect(projectIdFor(wt.projectRoot)).toBe(projectIdFor(main));
      expect(wt.worktreeDir).toBe(after);
    });

    it('after the main worktree moves, a linked one is refused until git repairs its pointers, then anchors at the moved main', async () => {
      const { main } = repo();
      const linked = path.join(dir, 'wt-b');
      git(main, 'worktree', 'add', '-q', '-b', 'b', linked);
      const moved = path.join(dir, 'app-moved');
      renameSync(main, moved);
      await expect(resolveWorktree(linked)).rejects.toBeInstanceOf(ByreError);
      git(moved, 'worktree', 'repair', linked);
      const wt = await resolveWorktree(linked);
      expect(wt.isLinkedWorktree).toBe(true);
      expect(wt.projectRoot).toBe(moved);
      expect(wt.commonGitDir).toBe(path.join(moved, '.git'));
    });
  },
);
