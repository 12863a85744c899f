// Operating-system refusals (permission denied, no such file, disk full) are
// the host saying no, not byre crashing: they become a located ByreError
// (exit 1) instead of the crash banner. Anything without an errno stays a bug.

import { ByreError } from '../errors.js';

const WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  ELOOP: 'too many symbolic links (or a symlink where byre refuses one)',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'name too long',
};

const REMEDIES: Readonly<Record<string, string>> = {
  EACCES: 'check the permissions of the path named above',
  EPERM: 'check the permissions of the path named above',
  ENOENT: 'check that the path exists',
  ENOSPC: 'free some disk space and retry',
  EROFS: 'choose a writable location',
};

/** The ByreError for a system error with a path, or null when `error` is not one. */
export function systemErrorToByre(error: unknown): ByreError | null {
  if (!(error instanceof Error)) return null;
  const e = error as NodeJS.ErrnoException;
  if (typeof e.code !== 'string' || !/^E[A-Z]+$/.test(e.code) || typeof e.path !== 'string')
    return null;
  const what = WORDS[e.code] ?? e.code;
  const verb = typeof e.syscall === 'string' ? `${e.syscall} ` : '';
  const remedy = REMEDIES[e.code];
  return new ByreError(`cannot ${verb}${e.path}: ${what}`, {
    rule: `fs.${e.code.toLowerCase()}`,
    ...(remedy === undefined ? {} : { remedy }),
    cause: error,
  });
}
