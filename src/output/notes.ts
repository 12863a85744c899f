// The one printer for what byre says on stderr outside an error: plain
// lines, notes and warnings, one line each, escaped. Errors go through
// render-error.ts; nothing else writes `byre: …` to the terminal.

import type { Writer } from '../io.js';
import type { ConfigIssue } from '../errors.js';
import { formatLocation } from './render-error.js';
import { escapeTerminal } from './escape.js';

interface Note {
  rule: string;
  message: string;
}

type Voice = 'plain' | 'note' | 'warning';

/**
 * `byre: [note: |warning: ]<text>`, then each detail line indented two spaces
 * (as an error's details are) — text byre did not write is escaped like the rest.
 */
export function say(
  stderr: Writer,
  text: string,
  voice: Voice = 'plain',
  details: readonly string[] = [],
): void {
  const kind = voice === 'plain' ? '' : `${voice}: `;
  const below = details.map((d) => `  ${escapeTerminal(d)}\n`).join('');
  stderr.write(`byre: ${kind}${escapeTerminal(text)}\n${below}`);
}

/** Plain lines, one `byre: ` each. */
export function sayAll(stderr: Writer, lines: readonly string[]): void {
  for (const line of lines) say(stderr, line);
}

/** Notes and config warnings; a located one names its file, line and column. */
export function printNotes(stderr: Writer, notes: readonly (Note | ConfigIssue)[]): void {
  for (const note of notes) {
    const where = 'location' in note ? `${formatLocation(note.location)}: ` : '';
    stderr.write(`byre: note: ${where}${escapeTerminal(note.message)}\n`);
  }
}

export function printWarnings(stderr: Writer, warnings: readonly { message: string }[]): void {
  for (const w of warnings) say(stderr, w.message, 'warning');
}
