// The path rules over box-writable trees (adr/0046): a link that lives inside
// a tree some box can write may have been planted by that box, so a host path
// a config names is never resolved through one, and a host tool is never run
// from, or through, such a tree. Pure: containment/writable-trees.ts gathers the
// trees, project/path-walk.ts records the links a resolution follows.

import path from 'node:path';

import type { LinkStep, PathWalk } from './path-walk.js';

/** A host directory some box byre starts can write. */
export interface BoxTree {
  /** Resolved (realpath), or the absolute path as given when it does not exist. */
  path: string;
  /** Absolute, as declared or recorded (differs from `path` when reached through a link). */
  given: string;
  /** How messages name it: "the project directory /p", "the read-write mount ~/x" … */
  what: string;
}

/** Absolute with no empty, `.` or `..` component and no trailing slash (or `/`). */
function isPlain(p: string): boolean {
  return p === '/' || (p.startsWith('/') && !/\/(\.{0,2})(\/|$)/.test(p));
}

/** `p` lies strictly below `root` (both absolute, normalised). */
function isBelow(root: string, p: string): boolean {
  // The common case by prefix: this runs for every tree at every step of a
  // walk, and a store can record a few thousand trees.
  if (isPlain(root) && isPlain(p)) {
    return p !== root && p.startsWith(root === '/' ? '/' : `${root}/`);
  }
  const rel = path.relative(root, p);
  return rel !== '' && rel !== '..' && !rel.startsWith('../') && !path.isAbsolute(rel);
}

/** `p` is `root` or lies below it. */
function isAtOrBelow(root: string, p: string): boolean {
  return root === p || isBelow(root, p);
}

/** A link a box could have planted, and the tree it lives in. */
export interface PlantableLink {
  link: LinkStep;
  tree: BoxTree;
}

/**
 * The first link `walk` followed that lives strictly inside a box-writable
 * tree: a box can replace anything below a tree's root (never the root
 * itself, its mount point), so such a link may be its doing. Links outside
 * every tree are the user's and are followed. Null when there is none.
 */
export function plantableLink(walk: PathWalk, trees: readonly BoxTree[]): PlantableLink | null {
  for (const link of walk.links) {
    const tree = trees.find((t) => isBelow(t.path, link.at));
    if (tree !== undefined) return { link, tree };
  }
  return null;
}

/** Why a host tool is declined: which tree, and the step that reached it. */
interface ToolInTree {
  tree: BoxTree;
  /** The PATH directory, a link on the way, or the binary's resolved location. */
  via: string;
}

/**
 * Whether running the tool `walk` resolved (from the PATH directory `dir`)
 * would run something a box could have written: the PATH directory lies in a
 * tree (as written or resolved), a link followed on the way lives in one, or
 * the binary resolves into one. Null when none does.
 */
export function toolInBoxTree(
  dir: string,
  walk: PathWalk,
  trees: readonly BoxTree[],
): ToolInTree | null {
  const inTree = (p: string): BoxTree | undefined =>
    trees.find((t) => isAtOrBelow(t.path, p) || isAtOrBelow(t.given, p));
  const inDir = inTree(dir);
  if (inDir !== undefined) return { tree: inDir, via: dir };
  const planted = plantableLink(walk, trees);
  if (planted !== null) return { tree: planted.tree, via: planted.link.at };
  const at = inTree(walk.resolved);
  return at === undefined ? null : { tree: at, via: walk.resolved };
}
