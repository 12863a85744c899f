// A PackageTree over a real directory (local packages, adopted checkouts):
// walks it once, follows symlinks that stay inside the package, and reports
// the ones that leave it as escapes instead of reading through them. Its IO
// is host/'s: each entry is resolved to its real path once, looked at there
// without following (a link swapped in after the resolve is skipped, never
// followed out), and read no-follow, never waiting on a FIFO, under a cap.

import path from 'node:path';
import { ByreError } from '../../errors.js';
import { canonicalPathSync } from '../../host/canonical.js';
import { entryKind, listEntries, lstatOrNull } from '../../host/path-view.js';
import { describeNotRegular, readRegularFile } from '../../host/read-regular.js';
import type { PackageTree } from '../materialize.js';
import { FETCH_LIMITS } from './fetch.js';

/** Walks stop here: a package with more entries is refused rather than slurped. */
const MAX_TREE_ENTRIES = 4096;

/** No one file of a local package is read past what a whole fetched package may hold. */
const MAX_FILE_BYTES = FETCH_LIMITS.maxBytes;

interface FsTree extends PackageTree {
  /** True when the walk hit MAX_TREE_ENTRIES. */
  truncated: boolean;
}

function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(`${root}${path.sep}`);
}

/** The tree under `dir`; `exclude` names package-relative files to leave out (the manifest). */
export function fsTree(dir: string, exclude: readonly string[]): FsTree {
  const root = canonicalPathSync(dir);
  const files = new Map<string, { abs: string; executable: boolean }>();
  const escaping = new Set<string>();
  const linked = new Set<string>();
  const dirs = new Set<string>();
  let count = 0;
  let truncated = false;

  const walk = (abs: string, rel: string, seen: Set<string>, viaLink: boolean): void => {
    let names: string[];
    try {
      names = listEntries(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      if (++count > MAX_TREE_ENTRIES) {
        truncated = true;
        return;
      }
      const childAbs = path.join(abs, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      let real: string;
      try {
        real = canonicalPathSync(childAbs);
      } catch {
        continue; // dangling link: nothing to ship
      }
      if (!inside(root, real)) {
        escaping.add(childRel);
        files.set(childRel, { abs: childAbs, executable: false });
        continue;
      }
      // `real` has no link left in it: looked at without following, so one
      // swapped in since the resolve is neither a directory nor a file here.
      const stat = lstatOrNull(real);
      if (stat === null) continue;
      const throughLink = viaLink || entryKind(childAbs) === 'link';
      if (stat.isDirectory()) {
        dirs.add(childRel);
        if (seen.has(real)) continue;
        walk(real, childRel, new Set([...seen, real]), throughLink);
      } else if (stat.isFile() && !exclude.includes(childRel)) {
        files.set(childRel, { abs: real, executable: (stat.mode & 0o111) !== 0 });
        if (throughLink) linked.add(childRel);
      }
    }
  };
  walk(root, '', new Set([root]), false);
  const list = [...files.keys()].sort();
  return {
    truncated,
    list: () => list,
    read: (rel) => {
      const entry = files.get(rel);
      if (entry === undefined || escaping.has(rel)) return null;
      return readPackageFile(entry.abs);
    },
    executable: (rel) => files.get(rel)?.executable ?? false,
    escapes: (rel) => escaping.has(rel),
    linked: (rel) => linked.has(rel),
    isDir: (rel) => dirs.has(rel),
  };
}

/**
 * The bytes of a package's file, read no-follow, never waiting on a FIFO,
 * capped at what a whole fetched package may hold; anything else (gone, a
 * link or FIFO swapped in since the walk, too large) is refused.
 */
export function readPackageFile(abs: string): Uint8Array {
  const read = readRegularFile(abs, MAX_FILE_BYTES);
  if (read.kind === 'ok') return new Uint8Array(read.bytes);
  const why =
    read.kind === 'missing'
      ? 'is gone'
      : read.kind === 'too-large'
        ? `is ${read.size} bytes, past the ${MAX_FILE_BYTES / 1024 / 1024} MiB a package file may be`
        : `is ${describeNotRegular(read.what)}`;
  throw new ByreError(`package file ${abs} ${why}`, {
    rule: 'package.file-unreadable',
    remedy:
      "a package's files are read only as regular files, never through a link: leave the package alone while byre reads it",
  });
}
