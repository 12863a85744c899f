// The digest that lets develop skip a build it can prove is a no-op: the
// exact bytes and modes of the staged build context, the base image's id and
// the baked ids. The engine still owns layer caching (adr/0003).

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { BuildPlan } from '../gen/plan.js';
import { listEntries, lstatEntry } from '../host/path-view.js';
import { sha256OfRegularFile } from '../host/read-regular.js';

export interface DigestFile {
  /** `/`-separated, relative to the context root. */
  path: string;
  kind: 'file' | 'dir';
  /** Permission bits that matter to COPY (the executable bit). */
  executable: boolean;
  sha256: string;
}

interface DigestInput {
  files: readonly DigestFile[];
  baseImageId: string;
  uid: number;
  gid: number;
  engine: string;
}

/** Pure: the same files, base and ids give the same digest, in any listing order. */
export function computeContextDigest(input: DigestInput): string {
  const h = createHash('sha256');
  h.update('byre-context-digest-v1\0');
  h.update(`${input.engine}\0${input.baseImageId}\0${input.uid}\0${input.gid}\0`);
  const files = [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of files) {
    h.update(`${f.kind}\0${f.path.length}\0${f.path}\0${f.executable ? 1 : 0}\0${f.sha256}\0`);
  }
  return h.digest('hex');
}

/** Walk a staged context (no symlinks are followed; staging writes none). */
export async function listContextFiles(root: string): Promise<DigestFile[]> {
  const out: DigestFile[] = [];
  const nonRegular = (full: string): Error =>
    new Error(`build context holds a non-regular file: ${full}`);
  const walk = (dir: string): void => {
    for (const name of listEntries(dir)) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      const st = lstatEntry(full);
      if (st.isDirectory()) {
        out.push({ path: rel, kind: 'dir', executable: false, sha256: '' });
        walk(full);
      } else if (st.isFile()) {
        const hashed = sha256OfRegularFile(full);
        if (hashed.kind !== 'ok') throw nonRegular(full);
        const executable = (hashed.mode & 0o111) !== 0;
        out.push({ path: rel, kind: 'file', executable, sha256: hashed.sha256 });
      } else {
        throw nonRegular(full);
      }
    }
  };
  walk(root);
  return out;
}

/**
 * The files staging `plan` would write, as listContextFiles would list them,
 * computed from the plan's bytes without touching the disk: every directory
 * (declared, or made for an entry), every entry with its executable bit and
 * hash. Null when staging itself must decide: an entry copied from the
 * project (its bytes are read at staging), or a path staging would refuse.
 */
export function plannedContextFiles(
  plan: Pick<BuildPlan, 'dirs' | 'entries'>,
): DigestFile[] | null {
  const dirs = new Set<string>();
  const addDirs = (rel: string): void => {
    for (let d = rel; d !== '.' && d !== ''; d = path.posix.dirname(d)) dirs.add(d);
  };
  const files = new Map<string, DigestFile>();
  const inside = (p: string): string | null => {
    const rel = path.posix.normalize(p);
    if (p === '' || path.posix.isAbsolute(rel) || rel === '.' || rel === '..') return null;
    return rel.startsWith('../') ? null : rel.replace(/\/$/, '');
  };
  for (const dir of plan.dirs) {
    const rel = inside(dir);
    if (rel === null) return null;
    addDirs(rel);
  }
  for (const entry of plan.entries) {
    const rel = inside(entry.path);
    if (rel === null || entry.source.kind !== 'bytes' || files.has(rel)) return null;
    addDirs(path.posix.dirname(rel));
    const bytes = entry.source.bytes;
    files.set(rel, {
      path: rel,
      kind: 'file',
      executable: (entry.mode & 0o111) !== 0,
      sha256: createHash('sha256')
        .update(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes)
        .digest('hex'),
    });
  }
  for (const rel of files.keys()) if (dirs.has(rel)) return null;
  return [
    ...[...dirs].map((d): DigestFile => ({ path: d, kind: 'dir', executable: false, sha256: '' })),
    ...files.values(),
  ];
}
