// The paste beat on a terminal: a one-line screen on stderr, stdin in raw
// mode with bracketed paste on, waiting for a paste or Ctrl-V / Cmd-V; and
// the y/N question a possible drag needs. Always restores the terminal.

import type { Writer } from '../../io.js';
import { escapeTerminal } from '../../output/escape.js';
import type { PasteCapture } from './classify.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, PasteKeys, confirms } from './keys.js';

export interface BeatTerminal {
  input: NodeJS.ReadStream;
  screen: Writer;
}

async function rawSession<T>(
  term: BeatTerminal,
  onChunk: (chunk: string) => T | undefined,
): Promise<T> {
  const { input } = term;
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.setEncoding('utf8');
  try {
    return await new Promise<T>((resolve, reject) => {
      const onData = (chunk: string | Buffer): void => {
        const r = onChunk(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        if (r !== undefined) {
          cleanup();
          resolve(r);
        }
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(error);
      };
      const cleanup = (): void => {
        input.off('data', onData);
        input.off('error', onError);
      };
      input.on('data', onData);
      input.on('error', onError);
      input.resume();
    });
  } finally {
    input.setRawMode(wasRaw);
    input.pause();
  }
}

/** Waits for a paste (or Ctrl-V); null when the user cancels. */
export async function waitForPaste(
  term: BeatTerminal,
  target: string,
): Promise<PasteCapture | null> {
  term.screen.write(
    `byre: paste to deliver into ${escapeTerminal(target)} — ` +
      'Ctrl-V / Cmd-V reads the clipboard; Esc or Ctrl-C cancels\n',
  );
  term.screen.write(BRACKETED_PASTE_ON);
  const keys = new PasteKeys();
  try {
    return await rawSession(term, (chunk) => {
      const o = keys.feed(chunk);
      if (o.kind === 'capture') return o.capture;
      if (o.kind === 'cancel') return null;
      return undefined;
    });
  } finally {
    term.screen.write(BRACKETED_PASTE_OFF);
  }
}

/** Names the host paths a paste looked like and asks before delivering them. */
export async function confirmDrag(term: BeatTerminal, paths: readonly string[]): Promise<boolean> {
  term.screen.write('byre: that paste names host files (a drag onto the window?):\n');
  for (const p of paths) term.screen.write(`  ${escapeTerminal(p)}\n`);
  term.screen.write('byre: deliver them? [y/N] ');
  const yes = await rawSession(term, (chunk) => confirms(chunk));
  term.screen.write(yes ? 'y\n' : 'n\n');
  return yes;
}
