import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hostReaders } from './readers.js';

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
});
