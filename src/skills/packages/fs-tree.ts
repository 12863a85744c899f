// A PackageTree over a real directory (local packages, adopted checkouts):
// walks it once, follows symlinks that stay inside the package, and reports
// the ones that leave it as escapes instead of reading through them.

import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PackageTree } from '../materialize.js';

/** Walks stop here: a package with more entries is refused rather than slurped. */
const MAX_TREE_ENTRIES = 4096;

export interface FsTree extends PackageTree {
  /** True when the walk hit MAX_TREE_ENTRIES. */
  truncated: boolean;
}

function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(`${root}${path.sep}`);
}

/** The tree under `dir`; `exclude` names package-relative files to leave out (the manifest). */
export function fsTree(dir: string, exclude: readonly string[]): FsTree {
  const root = realpathSync(dir);
  const files = new Map<string, { abs: string; executable: boolean }>();
  const escaping = new Set<string>();
  const linked = new Set<string>();
  const dirs = new Set<string>();
  let count = 0;
  let truncated = false;

  const walk = (abs: string, rel: string, seen: Set<string>, viaLink: boolean): void => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
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
        real = realpathSync(childAbs);
      } catch {
        continue; // dangling link: nothing to ship
      }
      if (!inside(root, real)) {
        escaping.add(childRel);
        files.set(childRel, { abs: childAbs, executable: false });
        continue;
      }
      const stat = statSync(real);
      const throughLink = viaLink || isSymlink(childAbs);
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
      return new Uint8Array(readFileSync(entry.abs));
    },
    executable: (rel) => files.get(rel)?.executable ?? false,
    escapes: (rel) => escaping.has(rel),
    linked: (rel) => linked.has(rel),
    isDir: (rel) => dirs.has(rel),
  };
}

/** Whether `p` is a symlink (not followed). */
function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
