import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname as dirOf, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hostReaders, startGitConfigList } from './readers.js';

// The one `git config --list` must answer every key as `git config --get` would.
describe('hostReaders git, against the real git', () => {
  let dir: string;
  let cwd: string;
  const git = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'byre-readers-'));
    const file = join(dir, 'gitconfig');
    writeFileSync(
      file,
      [
        '[user]',
        '  name = Ada',
        '  email = ada@example.org',
        '  name = Ada Lovelace',
        '[core]',
        '  bare',
        '[branch "Main"]',
        '  remote = origin',
        '[alias]',
        '  x = "!echo a; echo b"',
        '',
      ].join('\n'),
    );
    vi.stubEnv('GIT_CONFIG_GLOBAL', file);
    vi.stubEnv('GIT_CONFIG_NOSYSTEM', '1');
    // Outside any repository, so no repository config answers.
    cwd = process.cwd();
    process.chdir(dir);
  });
  afterEach(() => {
    process.chdir(cwd);
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (key: string): string | null => {
    try {
      return execFileSync(git, ['config', '--get', key], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).replace(/\r?\n$/, '');
    } catch {
      return null;
    }
  };

  it.each([
    'user.name',
    'USER.EMAIL',
    'core.bare',
    'branch.Main.remote',
    'branch.main.remote',
    'alias.x',
    'user.signingkey',
    'user',
  ])('%s', (key) => {
    expect(hostReaders({}, git).git(key)).toBe(get(key));
  });

  it('runs git once however many keys are read', () => {
    const readers = hostReaders({}, git);
    readers.git('user.name');
    vi.stubEnv('GIT_CONFIG_GLOBAL', join(dir, 'gone'));
    expect(readers.git('user.email')).toBe('ada@example.org');
  });

  it('reads nothing without a git', () => {
    expect(hostReaders({}, null).git('user.name')).toBeNull();
  });

  it('answers from a listing started early, the same as from its own', async () => {
    const early = await startGitConfigList({ PATH: dirOf(git) }, []);
    expect(early).toEqual({ gitPath: git, listed: expect.stringContaining('user.email') });
    // The config is gone before any key is read: the early listing answers.
    vi.stubEnv('GIT_CONFIG_GLOBAL', join(dir, 'gone'));
    const readers = hostReaders({}, git, early);
    expect(readers.git('user.name')).toBe('Ada Lovelace');
    expect(readers.git('USER.EMAIL')).toBe('ada@example.org');
  });

  it('runs its own listing when the early one came through another git', async () => {
    const early = { gitPath: '/elsewhere/git', listed: 'user.name\nMallory\0' };
    expect(hostReaders({}, git, early).git('user.name')).toBe('Ada Lovelace');
  });

  it('asks each key alone when the early listing failed', () => {
    expect(hostReaders({}, git, { gitPath: git, listed: null }).git('user.name')).toBe(
      'Ada Lovelace',
    );
  });

  it('lists nothing when git is declined or absent', async () => {
    expect(await startGitConfigList({ PATH: dirOf(git) }, [dirOf(git)])).toEqual({
      gitPath: null,
      listed: null,
    });
    expect(await startGitConfigList({ PATH: dir }, [])).toEqual({ gitPath: null, listed: null });
  });

  it('reads a failing listing as failed', async () => {
    const fake = join(dir, 'bin');
    mkdirSync(fake);
    writeFileSync(join(fake, 'git'), '#!/bin/sh\necho user.name; echo Mallory; exit 1\n', {
      mode: 0o755,
    });
    expect(await startGitConfigList({ PATH: fake }, [])).toEqual({
      gitPath: join(fake, 'git'),
      listed: null,
    });
  });
});
