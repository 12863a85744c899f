// Quoting for the languages the Dockerfile speaks: Go %q-compatible double
// quotes (COPY operands), the builders' own double quotes (ENV values, read
// back byte for byte) and POSIX single quotes (shell words inside RUN). Pure
// and byte-stable.

import { unbakeableEnvValue } from '../config/grammar.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols, and the
// ASCII space only (other spaces are escaped).
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Whether Go's unicode.IsPrint holds for the one character `ch`. */
export function isGoPrintable(ch: string): boolean {
  return PRINTABLE.test(ch);
}

function escapeRune(ch: string): string {
  const simple = SIMPLE_ESCAPES[ch];
  if (simple !== undefined) return simple;
  const cp = ch.codePointAt(0) ?? 0;
  // A lone surrogate reaches disk as U+FFFD, which Go prints as itself.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\uFFFD';
  if (PRINTABLE.test(ch)) return ch;
  if (cp < 0x80) return `\\x${hex(cp, 2)}`;
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

/** Go's strconv.Quote (fmt %q) for a valid UTF-8 string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch);
  return `${out}"`;
}

/**
 * A double-quoted Dockerfile word that docker's and buildah's builders both
 * read back as exactly `s`: inside double quotes they unescape only `\"`,
 * `\\` and `\$`, take every other character as it stands (ESC, CR, tab and
 * any Unicode included; there are no `\n`-style escapes), and would expand
 * an unescaped `$`. A line feed ends the instruction and no environment holds
 * a NUL: the loader refuses both (config.env-value-unbakeable), so meeting
 * one here is a bug.
 */
export function dockerfileQuote(s: string): string {
  const problem = unbakeableEnvValue(s);
  if (problem !== null) throw new RangeError(`a Dockerfile word cannot hold ${problem}`);
  return `"${s.replace(/[\\"$]/g, '\\$&')}"`;
}

/** A POSIX shell single-quoted word; an embedded `'` becomes `'\''`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
