// Project identity: the readable, collision-checked id derived from a
// canonical path. Pure; it never touches the filesystem, so callers pass the
// path already canonicalised (see canonical.ts).

import { createHash } from 'node:crypto';

const SLUG_CAP = 40;
const FALLBACK_SLUG = 'project';
const PROJECT_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{6}$/;

/**
 * Non-ASCII code points whose Unicode simple lowercase mapping is an ASCII
 * letter (UnicodeData.txt field 13): U+0130 İ -> i and U+212A KELVIN SIGN
 * -> k. There are no others, so every other non-ASCII code point lowercases
 * to something outside [a-z0-9] and folds into a separator.
 */
const NON_ASCII_TO_ASCII: Readonly<Record<string, string>> = { '\u0130': 'i', '\u212a': 'k' };

/**
 * The reference lowercases with Go's strings.ToLower, which maps code point
 * by code point with the simple mapping (no special or contextual casing),
 * then turns runs of anything outside [a-z0-9] into `-`. JavaScript's
 * toLowerCase uses the full mapping instead (İ -> "i" + U+0307), so it is not
 * used: the same path must give the same id, store and volumes as the
 * reference.
 */
function slugPart(component: string): string {
  let out = '';
  for (const ch of component) {
    const lower = ch < '\u0080' ? ch.toLowerCase() : (NON_ASCII_TO_ASCII[ch] ?? '-');
    out += /^[a-z0-9]$/.test(lower) ? lower : '-';
  }
  return out.replace(/-+/g, '-').replace(/^-+|-+$/g, '');
}

/**
 * The readable half of an id: the leaf and its parent (in that order),
 * lowercased, runs of anything outside [a-z0-9] folded to `-`, capped at 40.
 */
function slugFor(p: string): string {
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
