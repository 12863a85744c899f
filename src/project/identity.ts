// Project identity: the readable, collision-checked id derived from a
// canonical path. Pure; it never touches the filesystem, so callers pass the
// path already canonicalised (see canonical.ts).

import { createHash } from 'node:crypto';

const SLUG_CAP = 40;
const FALLBACK_SLUG = 'project';
const PROJECT_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{6}$/;

function slugPart(component: string): string {
  return component
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The readable half of an id: the leaf and its parent (in that order),
 * lowercased, runs of anything outside [a-z0-9] folded to `-`, capped at 40.
 */
export function slugFor(p: string): string {
  const components = p.split('/').filter((c) => c !== '');
  const leafFirst = components.slice(-2).reverse();
  const slug = leafFirst
    .map(slugPart)
    .filter((s) => s !== '')
    .join('-')
    .slice(0, SLUG_CAP)
    .replace(/-+$/, '');
  return slug === '' ? FALLBACK_SLUG : slug;
}

/** `<slug>-<first 6 hex of sha256(path)>`, e.g. `byre-dev-0877d7`. */
export function projectIdFor(canonicalPath: string): string {
  const hash = createHash('sha256').update(canonicalPath, 'utf8').digest('hex');
  return `${slugFor(canonicalPath)}-${hash.slice(0, 6)}`;
}

/** True for strings projectIdFor can produce; guards store paths against traversal. */
export function isValidProjectId(id: string): boolean {
  return PROJECT_ID.test(id);
}
