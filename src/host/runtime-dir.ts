// byre's per-user runtime directory: where deliver and grab remember which
// podman container is which box (adr/0044). Outside the store, so a box with
// `--self-edit` does not reach it, and guarded like the store: a read-write
// mount that reaches it is refused (project/containment.ts).

import { lstatSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `/run/user/<uid>/byre` when `$XDG_RUNTIME_DIR` is `/run/user/<uid>` (a
 * login session's), else `/tmp/byre-<uid>`. Never any other place the
 * environment names: containment guards exactly these two
 * (runtimeDirCandidates), whichever shell a later deliver runs from.
 */
export function runtimeDirFor(env: Env, uid: number): string {
  const session = `/run/user/${uid}`;
  return env['XDG_RUNTIME_DIR'] === session ? path.join(session, 'byre') : `/tmp/byre-${uid}`;
}

/** Every place runtimeDirFor may give for `uid`: what containment guards. */
export function runtimeDirCandidates(uid: number): string[] {
  return [`/run/user/${uid}/byre`, `/tmp/byre-${uid}`];
}

/** runtimeDirFor's directory, made and checked by privateDirAt; null when it may not be used. */
export function privateRuntimeDir(env: Env, uid: number): string | null {
  return privateDirAt(runtimeDirFor(env, uid), uid);
}

/**
 * `dir` when only `uid` can use it: made 0700 when missing; null when it is
 * a link, another user's, or open to anyone else, or when its parent lets
 * another user swap it (not owned by `uid` or root, or writable by others
 * without the sticky bit, as /tmp has).
 */
export function privateDirAt(dir: string, uid: number): string | null {
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
