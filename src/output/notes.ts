// Non-fatal notes and warnings on stderr, one line each, escaped.

import type { Writer } from '../io.js';
import type { ConfigIssue } from '../errors.js';
import { formatLocation } from './render-error.js';
import { escapeTerminal } from './escape.js';

export interface Note {
  rule: string;
  message: string;
}

export function printNotes(stderr: Writer, notes: readonly (Note | ConfigIssue)[]): void {
  for (const note of notes) {
    const where = 'location' in note ? `${formatLocation(note.location)}: ` : '';
    stderr.write(`byre: note: ${where}${escapeTerminal(note.message)}\n`);
  }
}
