// The canonical form of a host path: absolute, symlinks resolved, no trailing
// slash. Project identity hashes this string, so every caller must derive it
// here and nowhere else.

import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** Drops trailing slashes, keeping `/` itself. Pure. */
export function trimTrailingSlashes(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed === '' && p.startsWith('/') ? '/' : trimmed;
}

/** realpath(abs(p)) without a trailing slash. Throws when the path does not exist. */
export async function canonicalPath(p: string): Promise<string> {
  return trimTrailingSlashes(await realpath(path.resolve(p)));
}
