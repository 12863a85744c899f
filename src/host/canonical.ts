// The canonical form of a host path: absolute, symlinks resolved, no trailing
// slash. Project identity hashes this string, so every caller must derive it
// here and nowhere else. Beside it, the kernel's own realpath of a path as
// given, for the box-writable trees.

// Sync on purpose: in the compiled binary the first async fs call starts
// bun's worker pool (~4 ms), a quarter of a short command's whole start.
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Drops trailing slashes, keeping `/` itself. Pure. */
function trimTrailingSlashes(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed === '' && p.startsWith('/') ? '/' : trimmed;
}

/** realpath(abs(p)) without a trailing slash. Rejects when the path does not exist. */
export async function canonicalPath(p: string): Promise<string> {
  return canonicalPathSync(p);
}

/** canonicalPath for a synchronous caller. Throws when the path does not exist. */
export function canonicalPathSync(p: string): string {
  return trimTrailingSlashes(realpathSync(path.resolve(p)));
}

/** The kernel's realpath(3) of `p` as given (not made absolute or trimmed), or `p` itself when it cannot be resolved. */
export function realpathOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/**
 * Like canonicalPath, for a path that may not exist yet (a store before the
 * first run, a mount source the engine would create): the deepest existing
 * ancestor is resolved and the rest appended as written.
 */
export function canonicalPathLoose(p: string): string {
  const abs = path.resolve(p);
  const tail: string[] = [];
  let head = abs;
  for (;;) {
    try {
      return trimTrailingSlashes(path.join(realpathSync(head), ...tail));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const parent = path.dirname(head);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === head) throw err;
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}
