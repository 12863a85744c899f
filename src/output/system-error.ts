// Operating-system refusals (permission denied, no such file, disk full) are
// the host saying no, not byre crashing: they become a located ByreError
// (exit 1) instead of the crash banner. Anything without an errno stays a bug,
// except a full or read-only filesystem, which is never byre's fault even
// when the system did not name the file (a write(2) on an open descriptor).

import path from 'node:path';
import { ByreError } from '../errors.js';

const WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  ELOOP: 'too many symbolic links (or a symlink where byre refuses one)',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'name too long',
  EIO: 'input/output error',
};

/** The filesystem refusals no retry fixes until the user frees space or remounts. */
const STORAGE_FULL_OR_READ_ONLY = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** What to do, for the directory the refused path sits in. */
function remedyFor(code: string, dir: string | null): string | undefined {
  const at = dir ?? 'the directory byre writes (its store is BYRE_HOME, else ~/.byre)';
  const df = dir === null ? 'df -h' : `df -h ${dir}`;
  switch (code) {
    case 'ENOSPC':
      return `the filesystem holding ${at} is full: free space on it (${df} shows it), then run the command again`;
    case 'EDQUOT':
      return `your disk quota on the filesystem holding ${at} is used up: free some of your files there (${df} shows the filesystem), then run the command again`;
    case 'EROFS':
      return `${at} is on a read-only filesystem (${df} names the mount): remount it read-write, then run the command again`;
    case 'EACCES':
    case 'EPERM':
      return dir === null
        ? 'check the permissions of the path named above'
        : `check the permissions of ${dir} (ls -ld ${dir})`;
    case 'ENOENT':
      return 'check that the path exists';
    default:
      return undefined;
  }
}

function errnoOf(error: unknown): NodeJS.ErrnoException | null {
  if (!(error instanceof Error)) return null;
  const e = error as NodeJS.ErrnoException;
  return typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) ? e : null;
}

/** The ByreError for a system error with a path, or null when `error` is not one. */
export function systemErrorToByre(error: unknown): ByreError | null {
  const e = errnoOf(error);
  if (e === null || e.code === undefined) return null;
  if (typeof e.path !== 'string') {
    if (!STORAGE_FULL_OR_READ_ONLY.has(e.code)) return null;
    // The last line of defence: a writer that did not name its file still
    // gets the user's answer, not the crash banner.
    return new ByreError(`a write failed: ${WORDS[e.code] ?? e.code}`, {
      rule: `fs.${e.code.toLowerCase()}`,
      remedy: remedyFor(e.code, null) ?? '',
      cause: error,
    });
  }
  const what = WORDS[e.code] ?? e.code;
  const verb = typeof e.syscall === 'string' ? `${e.syscall} ` : '';
  const remedy = remedyFor(e.code, path.dirname(e.path));
  return new ByreError(`cannot ${verb}${e.path}: ${what}`, {
    rule: `fs.${e.code.toLowerCase()}`,
    ...(remedy === undefined ? {} : { remedy }),
    cause: error,
  });
}

/**
 * An OS refusal while byre wrote `file` (through a temp beside it, an open
 * descriptor, or the directory it goes in), as a ByreError naming `file`:
 * a write(2) or fsync(2) error carries no path, and a temp file's name would
 * mean nothing to the user. `what` names the file's role ("the launch record").
 * Anything that is not an errno is returned as is.
 */
export function writeFailure(
  error: unknown,
  file: string,
  options: { rule?: string; what?: string } = {},
): unknown {
  if (error instanceof ByreError) return error;
  const e = errnoOf(error);
  if (e === null || e.code === undefined) return error;
  const remedy = remedyFor(e.code, path.dirname(file));
  const what = options.what === undefined ? '' : `${options.what} `;
  return new ByreError(`cannot write ${what}${file}: ${WORDS[e.code] ?? e.code}`, {
    rule: options.rule ?? `fs.${e.code.toLowerCase()}`,
    ...(remedy === undefined ? {} : { remedy }),
    cause: error,
  });
}
