// Quoting for the two languages the Dockerfile speaks: Go %q-compatible double
// quotes (COPY operands, ENV values) and POSIX single quotes (shell words
// inside RUN). Pure and byte-stable.

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

/** A POSIX shell single-quoted word; an embedded `'` becomes `'\''`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
