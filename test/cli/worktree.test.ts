// `byre worktree` refusals the built binary makes before it asks any engine
// (no engine is on PATH here): a bad name, outside git, before setup, no
// place to put the worktree, a target that exists; `list` reads git's files.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../support/temp.js';
import { hasGit } from '../support/tools.js';
import { projectIdFor } from '../../src/project/identity.js';

const BIN = path.resolve('dist/byre');
let root: string;

useTempDir('cli-worktree', (tmp) => {
  root = tmp;
});

function byre(
  cwd: string,
  args: string[],
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, {
    cwd,
    input: '',
    encoding: 'utf8',
    env: {
      HOME: path.join(root, 'userhome'),
      PATH: path.join(root, 'no-engines'),
      BYRE_HOME: path.join(root, 'home'),
      BYRE_ALLOW_ROOT: '1',
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function repo(setUp: boolean, defaults = ''): string {
  const dir = path.join(root, 'app');
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  mkdirSync(path.join(root, 'home'), { recursive: true });
  writeFileSync(path.join(root, 'home', 'default.config'), defaults);
  if (setUp) {
    const store = path.join(root, 'home', 'projects', projectIdFor(dir));
    mkdirSync(store, { recursive: true });
    writeFileSync(path.join(store, 'byre.config'), '');
  }
  return dir;
}

describe('byre worktree, before any engine', () => {
  it('a name that cannot be a branch is a usage error (exit 2)', () => {
    const r = byre(root, ['worktree', 'a b']);
    expect(r.stderr).toContain('cannot be a branch name');
    expect(r.status).toBe(2);
  });

  it('outside a git repository: refused, naming why', () => {
    mkdirSync(path.join(root, 'plain'));
    const r = byre(path.join(root, 'plain'), ['worktree', 'feat']);
    expect(r.stderr).toContain('is not in a git repository');
    expect(r.status).toBe(1);
  });

  it.skipIf(!hasGit)('a project byre has not set up: develop first', () => {
    const r = byre(repo(false), ['worktree', 'feat']);
    expect(r.stderr).toContain('run byre develop in');
    expect(r.status).toBe(1);
  });

  it.skipIf(!hasGit)('no --path and no worktree_base: refused, naming both', () => {
    const r = byre(repo(true), ['worktree', 'feat']);
    expect(r.stderr).toContain('does not know where to put the new worktree');
    expect(r.stderr).toMatch(/--path <dir>.*worktree_base/);
    expect(r.status).toBe(1);
  });

  it.skipIf(!hasGit)('a target that exists and is not empty is refused', () => {
    const dir = repo(true, 'worktree_base = "sibling"\n');
    mkdirSync(path.join(root, 'app-feat'));
    writeFileSync(path.join(root, 'app-feat', 'x'), '');
    const r = byre(dir, ['worktree', 'feat']);
    expect(r.stderr).toContain(`${path.join(root, 'app-feat')} already exists`);
    expect(r.status).toBe(1);
  });

  it.skipIf(!hasGit)('list reads git’s files: the main worktree, its branch, no session', () => {
    const dir = repo(true);
    const r = byre(dir, ['worktree', 'list']);
    expect(r.stdout).toMatch(new RegExp(`^${dir} +main +(not running|unknown) +\\(main\\)\\n$`));
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasGit)(
    'files are read from the main worktree: a new one is empty until its box checks it out',
    () => {
      const dir = repo(true, 'files = { "README" = "/opt/readme" }\n');
      writeFileSync(path.join(dir, 'README'), 'hi\n');
      const commit = ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'i'];
      execFileSync('git', ['add', '.'], { cwd: dir });
      execFileSync('git', commit, { cwd: dir });
      const linked = path.join(root, 'app-feat');
      execFileSync('git', ['worktree', 'add', '-q', '--no-checkout', '-b', 'feat', linked], {
        cwd: dir,
      });
      const r = byre(linked, ['dockerfile']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('COPY "files/README" "/opt/readme"');
      expect(r.status).toBe(0);
    },
  );

  it.skipIf(!hasGit)('remove names a worktree it does not know', () => {
    const r = byre(repo(true), ['worktree', 'remove', 'nope']);
    expect(r.stderr).toContain('no linked worktree of this repository is named nope');
    expect(r.status).toBe(1);
  });
});
