// byre's per-user runtime directory: where deliver and grab remember which
// podman container is which box (adr/0044). Outside the store, so a box with
// `--self-edit` does not reach it, and guarded like the store: a read-write
// mount that reaches it is refused (project/containment.ts).

import { lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

const absolute = (p: string | undefined): string | null =>
  p !== undefined && path.isAbsolute(p) ? p : null;

/** `$XDG_RUNTIME_DIR/byre` when it is set; else `$TMPDIR/byre-<uid>` (`/tmp` by default). */
export function runtimeDirFor(env: Env, uid: number): string {
  const xdg = absolute(env['XDG_RUNTIME_DIR']);
  return xdg !== null
    ? path.join(xdg, 'byre')
    : path.join(absolute(env['TMPDIR']) ?? '/tmp', `byre-${uid}`);
}

/**
 * Every place a deliver or grab of this user might use, whichever shell it
 * runs from: this environment's choice, plus the `/tmp` and `/run/user`
 * defaults. What containment guards. An unknown uid guards the env's dirs.
 */
export function runtimeDirCandidates(env: Env, uid: number | null): string[] {
  const out = new Set<string>();
  const xdg = absolute(env['XDG_RUNTIME_DIR']);
  if (xdg !== null) out.add(path.join(xdg, 'byre'));
  if (uid !== null) {
    out.add(runtimeDirFor({ TMPDIR: env['TMPDIR'] }, uid));
    out.add(`/tmp/byre-${uid}`);
    out.add(`/run/user/${uid}/byre`);
  }
  return [...out];
}

/**
 * A directory only `uid` can use at `runtimeDirFor`, made 0700 when missing;
 * null when it is a link, another user's, or open to anyone else, or when
 * its parent lets another user swap it (not owned by `uid` or root, or
 * writable by others without the sticky bit, as /tmp has).
 */
export function privateRuntimeDir(env: Env, uid: number): string | null {
  const dir = runtimeDirFor(env, uid);
  try {
    const parent = statSync(path.dirname(dir));
    if (!parent.isDirectory() || (parent.uid !== uid && parent.uid !== 0)) return null;
    if ((parent.mode & 0o022) !== 0 && (parent.mode & 0o1000) === 0) return null;
  } catch {
    return null;
  }
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0 ? dir : null;
  } catch {
    return null;
  }
}
