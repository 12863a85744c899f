// Terminal escaping for strings byre did not write (paths, names, anything a
// box or a config file said). Control characters and ANSI sequences are shown,
// never interpreted: ESC becomes \x1b, a newline \n, and so on.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

function visible(ch: string): string {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = ch.codePointAt(0) ?? 0;
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}

/** Neutralise control characters, ANSI escapes and bidi overrides in `text`. */
export function escapeTerminal(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Like escapeTerminal, but keeps newlines and tabs (multi-line prose byre prints as-is). */
export function escapeTerminalBlock(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeTerminal(line).replace(/\\t/g, '\t'))
    .join('\n');
}
