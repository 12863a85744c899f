// pickBox: the interactive leg of the target cascade. Renders BoxPicker on the
// caller's terminal -- stdin/stderr, or /dev/tty when stdin carries a piped
// payload -- and never writes to stdout, which is the machine contract.
// Callers import this module dynamically so ink loads only when a picker shows.

import tty from 'node:tty';

import { ByreError } from '../errors.js';
import { openTtyDescriptors, PolledTtyInput, type TtyDescriptors } from '../host/tty.js';
import { BoxPicker } from './BoxPicker.js';
import { chosenCandidate, type PickerCandidate, type PickerOutcome } from './model/picker.js';
import { showScreen } from './screen.js';

export type { PickerCandidate } from './model/picker.js';

export interface PickBoxOptions {
  /** 'stdin': keys from stdin, screen on stderr. '/dev/tty': both on the controlling terminal. */
  tty: 'stdin' | '/dev/tty';
}

interface Terminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  close(): void;
}

/** Resolves to the chosen candidate, or null when the user cancels (Esc, q, Ctrl-C). */
export async function pickBox<T extends PickerCandidate>(
  candidates: readonly T[],
  opts: PickBoxOptions,
): Promise<T | null> {
  if (candidates.length === 0) return null;
  const term = openTerminal(opts.tty);
  const settled: { outcome: PickerOutcome } = { outcome: { kind: 'cancelled' } };
  try {
    await showScreen(
      <BoxPicker
        candidates={candidates}
        onSettled={(o) => {
          settled.outcome = o;
        }}
      />,
      term.input,
      term.output,
    );
  } finally {
    term.close();
  }
  return chosenCandidate(candidates, settled.outcome);
}

function openTerminal(which: PickBoxOptions['tty']): Terminal {
  if (which === 'stdin') {
    if (!process.stdin.isTTY) {
      throw new ByreError('cannot show the box picker: stdin is not a terminal', {
        rule: 'picker.no-tty',
        remedy: 'pick a box with --box <id>',
      });
    }
    return {
      input: process.stdin,
      output: process.stderr,
      close() {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
        process.stdin.pause();
      },
    };
  }
  let fds: TtyDescriptors;
  try {
    fds = openTtyDescriptors();
  } catch (cause) {
    throw new ByreError('cannot show the box picker: no usable controlling terminal (/dev/tty)', {
      rule: 'picker.no-tty',
      remedy: 'pick a box with --box <id>',
      cause,
    });
  }
  const mode = new tty.ReadStream(fds.mode);
  const output = new tty.WriteStream(fds.screen);
  const input = new PolledTtyInput(fds.keys, mode);
  return {
    // ink wants a ReadStream; PolledTtyInput carries what it uses (isTTY, setRawMode, ref/unref).
    input: input as unknown as NodeJS.ReadStream,
    output,
    close() {
      mode.setRawMode(false);
      input.destroy();
      mode.destroy();
      output.destroy();
    },
  };
}
