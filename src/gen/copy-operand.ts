// COPY operands the builders read back as the exact bytes byre staged.
//
// Both builders (docker's and buildah) split a plain COPY line on whitespace
// before any quote is honoured, then expand `$VAR`, remove quotes and
// backslashes from each word, and treat a source as a glob pattern, each in
// its own dialect: buildah reads `\e` in a source as `e`, docker's classic
// builder as `\e`. So a source byre stages is always named plainly (a name
// that is not is staged under its hash instead), and an operand that is not
// plain is written in COPY's JSON form with `$`, quotes and backslashes
// escaped for the expansion step (adr/0042).

import { createHash } from 'node:crypto';

import { goQuote, isGoPrintable } from './quote.js';

// Read specially by the builders' word expansion or their source globbing.
const SPECIAL = new Set(['$', "'", '"', '\\', '*', '?', '[']);

/** Where a staged name that is not plain goes, under its hash. */
const ESCAPED_CONTEXT_DIR = 'escaped';

/** True when every character is visible and none is read specially. */
function isPlainOperand(s: string): boolean {
  if (s === '') return false;
  for (const ch of s) {
    // Visible: Go's unicode.IsPrint, without the space.
    if (ch === ' ' || SPECIAL.has(ch) || !isGoPrintable(ch)) return false;
  }
  return true;
}

/**
 * The build-context path for a file byre would stage at `preferred`: that
 * path when it is plain, else `escaped/<sha256 of it>`, which no plain
 * preferred path can equal (no fixed context entry is named `escaped`).
 * Idempotent: the hashed path is plain, so mapping twice changes nothing.
 */
export function stagedContextPath(preferred: string): string {
  if (isPlainOperand(preferred)) return preferred;
  const digest = createHash('sha256').update(preferred, 'utf8').digest('hex');
  return `${ESCAPED_CONTEXT_DIR}/${digest}`;
}

function jsonChar(ch: string): string {
  if (ch === '"' || ch === '\\') return `\\${ch}`;
  if (isGoPrintable(ch)) return ch;
  let out = '';
  for (let i = 0; i < ch.length; i += 1) {
    out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return out;
}

/**
 * One element of COPY's JSON form: the builders still expand `$` and remove
 * quotes and backslashes inside it, so those are backslash-escaped first;
 * anything not visible is a JSON `\u` escape, so the line stays one line of
 * printable text.
 */
function jsonCopyOperand(s: string): string {
  const expanded = s.replace(/[$'"\\]/g, '\\$&');
  let out = '"';
  for (const ch of expanded) out += jsonChar(ch);
  return `${out}"`;
}

/** A COPY instruction: the plain form when both operands allow it, else JSON. */
export function copyInstruction(staged: string, dest: string): string {
  if (isPlainOperand(staged) && isPlainOperand(dest)) {
    return `COPY ${goQuote(staged)} ${goQuote(dest)}`;
  }
  return `COPY [${jsonCopyOperand(staged)}, ${jsonCopyOperand(dest)}]`;
}
