import { describe, expect, it } from 'vitest';
import { ByreError, UsageError } from '../errors.js';
import { checkWorktreeName, worktreeTarget } from './worktree-name.js';

type TargetInput = Parameters<typeof worktreeTarget>[0];

/** What checkWorktreeName says is wrong with `name`, after its fixed lead; null when it passes. */
function worktreeNameProblem(name: string): string | null {
  try {
    checkWorktreeName(name);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const lead = `worktree name ${JSON.stringify(name)} cannot be a branch name: `;
    const message = (error as UsageError).message;
    expect(message.startsWith(lead)).toBe(true);
    return message.slice(lead.length);
  }
}

describe('checkWorktreeName', () => {
  it.each(['feat', 'feat-login', 'fix/issue-12', 'v1.2', 'a_b', 'A/B/C'])('accepts %j', (name) => {
    expect(worktreeNameProblem(name)).toBeNull();
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(101), 'longer'],
    ['feat login', 'only letters'],
    ['feat;rm', 'only letters'],
    ['$(x)', 'only letters'],
    ['HEAD', 'not a branch'],
    ['@', 'only letters'],
    ['/feat', 'empty path component'],
    ['feat/', 'empty path component'],
    ['a//b', 'empty path component'],
    ['.hidden', 'starts with'],
    ['-rf', 'starts with'],
    ['a/-b', 'starts with'],
    ['feat.lock', '.lock'],
    ['a/b.lock/c', '.lock'],
    ['feat.', '.lock'],
    ['a..b', '".."'],
  ])('refuses %j (%s)', (name, why) => {
    expect(worktreeNameProblem(name)).toContain(why);
  });

  it('checkWorktreeName throws a usage error with its rule', () => {
    expect(() => checkWorktreeName('a b')).toThrow(UsageError);
    try {
      checkWorktreeName('a b');
    } catch (error) {
      expect((error as UsageError).rule).toBe('worktree.name-invalid');
    }
  });
});

describe('worktreeTarget', () => {
  const base: TargetInput = {
    name: 'fix/x',
    pathFlag: undefined,
    base: null,
    projectRoot: '/src/app',
    cwd: '/src/app/sub',
    home: '/home/u',
  };
  const at = (b: string): TargetInput['base'] => ({ value: b, source: 'default' });

  it.each<[string, TargetInput, string]>([
    ['--path, relative to cwd', { ...base, pathFlag: '../../wt', base: at('sibling') }, '/src/wt'],
    ['--path, absolute', { ...base, pathFlag: '/elsewhere/x' }, '/elsewhere/x'],
    ['sibling', { ...base, base: at('sibling') }, '/src/app-fix-x'],
    ['~', { ...base, base: at('~') }, '/home/u/app-fix-x'],
    ['~/dir', { ...base, base: at('~/worktrees') }, '/home/u/worktrees/app-fix-x'],
    ['an absolute base', { ...base, base: at('/wt') }, '/wt/app-fix-x'],
  ])('%s', (_name, input, want) => {
    expect(worktreeTarget(input)).toBe(want);
  });

  it.each<TargetInput['base']>([null, at('')])(
    'refuses without --path or worktree_base (%j)',
    (b) => {
      try {
        worktreeTarget({ ...base, base: b });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ByreError);
        expect((error as ByreError).rule).toBe('worktree.no-location');
        expect((error as ByreError).remedy).toMatch(/--path.*worktree_base/);
      }
    },
  );

  it('turns "/" into "-" for the directory', () => {
    expect(worktreeTarget({ ...base, name: 'a/b/c', base: at('sibling') })).toBe('/src/app-a-b-c');
  });
});
