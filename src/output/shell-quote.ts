// Shell quoting for commands byre prints for a person to paste (the eject
// output, install hints). Pure; the one owner of the quoting rule.

const SAFE_TOKEN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * POSIX shell quoting for printing an argv a user can paste: safe tokens stay
 * bare, everything else is single-quoted with `'` spelled `'\''`.
 */
export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteToken).join(' ');
}

export function quoteToken(token: string): string {
  if (token === '') return "''";
  if (SAFE_TOKEN.test(token)) return token;
  return `'${token.replaceAll("'", `'\\''`)}'`;
}
