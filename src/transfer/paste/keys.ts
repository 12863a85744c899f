// The paste beat's keyboard, pure: turns raw terminal input into a paste
// capture (a bracketed paste, an unbracketed burst, or a bare Ctrl-V) or a
// cancel. It decides nothing about what to deliver; classify.ts does that.

import type { PasteCapture } from './classify.js';

export const BRACKETED_PASTE_ON = '\x1b[?2004h';
export const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const CTRL_C = '\x03';
const CTRL_D = '\x04';
const CTRL_V = '\x16';
const ESC = '\x1b';

type KeyOutcome =
  { kind: 'capture'; capture: PasteCapture } | { kind: 'cancel' } | { kind: 'more' };

/**
 * Feed raw chunks as they arrive. Inside a bracketed paste everything is
 * text until the end marker; outside one, a chunk of several characters is a
 * terminal without bracketed paste delivering a paste in one burst, and a
 * lone keystroke other than Ctrl-V, Esc, Ctrl-C, Ctrl-D or q is ignored.
 */
export class PasteKeys {
  private pasting = false;
  private buffer = '';

  feed(chunk: string): KeyOutcome {
    if (this.pasting) return this.inPaste(chunk);
    const start = chunk.indexOf(PASTE_START);
    if (start >= 0) {
      this.pasting = true;
      this.buffer = '';
      return this.inPaste(chunk.slice(start + PASTE_START.length));
    }
    if (chunk === CTRL_V) return { kind: 'capture', capture: { kind: 'key' } };
    if (chunk === CTRL_C || chunk === CTRL_D || chunk === ESC || chunk === 'q') {
      return { kind: 'cancel' };
    }
    if ([...chunk].length > 1 && !chunk.startsWith(ESC)) {
      return { kind: 'capture', capture: { kind: 'paste', text: chunk } };
    }
    return { kind: 'more' };
  }

  private inPaste(chunk: string): KeyOutcome {
    this.buffer += chunk;
    const end = this.buffer.indexOf(PASTE_END);
    if (end < 0) return { kind: 'more' };
    const text = this.buffer.slice(0, end);
    this.pasting = false;
    this.buffer = '';
    return { kind: 'capture', capture: { kind: 'paste', text } };
  }
}

/** y/Y confirms; anything else (Enter included) declines. */
export function confirms(chunk: string): boolean {
  return chunk === 'y' || chunk === 'Y';
}
