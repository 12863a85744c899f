// What `byre worktree <name>` accepts as a name, and where the new worktree
// goes: `--path`, else `worktree_base` (`sibling`, or a base directory),
// else a refusal naming both. Pure: paths come in canonical.

import path from 'node:path';

import { ByreError, UsageError } from '../errors.js';

const NAME_MAX = 100;

/**
 * A branch name git accepts and a shell, a path and an argv can carry as is:
 * `[A-Za-z0-9._/-]`, no component starting with `.` or `-`, no `..`, `//`,
 * trailing `/`, `.lock` component end, or `@{`. Null when it passes.
 */
function worktreeNameProblem(name: string): string | null {
  if (name === '') return 'it is empty';
  if (name.length > NAME_MAX) return `it is longer than ${NAME_MAX} characters`;
  if (!/^[A-Za-z0-9._/-]+$/.test(name)) return 'use only letters, digits, ".", "_", "-" and "/"';
  if (name === 'HEAD' || name === '@') return `"${name}" is not a branch name`;
  const parts = name.split('/');
  if (parts.some((p) => p === ''))
    return 'it has an empty path component ("//" or a "/" at an end)';
  if (parts.some((p) => p.startsWith('.') || p.startsWith('-')))
    return 'a component starts with "." or "-"';
  if (parts.some((p) => p.endsWith('.lock') || p.endsWith('.')))
    return 'a component ends in ".lock" or "."';
  if (name.includes('..')) return 'it contains ".."';
  return null;
}

export function checkWorktreeName(name: string): void {
  const problem = worktreeNameProblem(name);
  if (problem !== null) {
    throw new UsageError(
      `worktree name ${JSON.stringify(name)} cannot be a branch name: ${problem}`,
      {
        rule: 'worktree.name-invalid',
        remedy: 'pick a name like feat-login or fix/issue-12 (it becomes the branch)',
      },
    );
  }
}

/** The directory-name form of a branch name: `/` becomes `-`. */
function worktreeDirName(name: string): string {
  return name.replaceAll('/', '-');
}

interface TargetInput {
  name: string;
  /** `--path`, as typed. */
  pathFlag: string | undefined;
  /** The resolved `worktree_base`, and the layer that set it. */
  base: { value: string; source: string } | null;
  /** The main worktree (canonical): `sibling` puts the new one beside it. */
  projectRoot: string;
  cwd: string;
  home: string;
}

/**
 * Where the new worktree goes: `--path` (from cwd); `sibling` ->
 * `<repo>-<name>` beside the repository; a base directory ->
 * `<base>/<repo>-<name>`, so one base serves every repository.
 */
export function worktreeTarget(input: TargetInput): string {
  if (input.pathFlag !== undefined && input.pathFlag !== '') {
    return path.resolve(input.cwd, input.pathFlag);
  }
  const leaf = `${path.basename(input.projectRoot)}-${worktreeDirName(input.name)}`;
  const base = input.base?.value ?? '';
  if (base === 'sibling') return path.join(path.dirname(input.projectRoot), leaf);
  if (base === '~') return path.join(input.home, leaf);
  if (base.startsWith('~/')) return path.join(input.home, base.slice(2), leaf);
  if (path.isAbsolute(base)) return path.join(base, leaf);
  throw new ByreError('byre worktree does not know where to put the new worktree', {
    rule: 'worktree.no-location',
    remedy:
      'pass --path <dir>, or set worktree_base = "sibling" (beside the repository) or a directory in ~/.byre/default.config',
  });
}
