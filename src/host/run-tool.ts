// Running a host program for its output, when byre pinned the program
// (engine/host-tools.ts: never one a box could have planted): by absolute
// path and no shell, from `/` (never the project: the box writes it, and a
// program run there may read its files, as git reads a repository's config),
// stdin closed, stderr dropped, bounded in time and in output. Any failure
// (a refusal to start, a non-zero exit, the time or the output bound) is
// null: the caller has no value, never a partial one.

import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** How long the program may run and how much it may print. */
interface ToolBounds {
  timeoutMs: number;
  maxBytes: number;
}

/** What the program at the absolute `file` printed on stdout, or null. */
export function toolOutputSync(
  file: string,
  args: readonly string[],
  bounds: ToolBounds,
): string | null {
  if (!path.isAbsolute(file)) return null;
  try {
    return execFileSync(file, args, {
      cwd: '/',
      encoding: 'utf8',
      timeout: bounds.timeoutMs,
      maxBuffer: bounds.maxBytes,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}
