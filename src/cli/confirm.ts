// The one y/N question byre asks before destroying state: a line read from
// stdin on a terminal. Without a terminal it never guesses; the caller's
// `-y` is the only way past it, and this module says so.

import { createInterface } from 'node:readline';
import { UsageError } from '../errors.js';
import type { Io } from './io.js';

/** Asks `question` and resolves true only for an explicit yes. */
export type Confirm = (question: string) => Promise<boolean>;

/** True for `y` / `yes` in any case; everything else (including empty) is no. */
export function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}

/** Reads one line from `input`; null when it ends first. */
export async function readAnswer(
  input: NodeJS.ReadableStream,
  prompt: string,
  output: NodeJS.WritableStream,
): Promise<string | null> {
  const rl = createInterface({ input, output, terminal: false });
  output.write(prompt);
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once('line', (line) => resolve(line));
      rl.once('close', () => resolve(null));
    });
  } finally {
    rl.close();
    if ('pause' in input && typeof input.pause === 'function') input.pause();
  }
}

/** The terminal confirmation: refuses (usage) without a TTY, since `-y` is the scripted path. */
export function terminalConfirm(io: Io, flag = '-y'): Confirm {
  return async (question) => {
    if (!io.stdinIsTty) {
      throw new UsageError(`${question} — stdin is not a terminal, so byre cannot ask`, {
        rule: 'confirm.needs-yes',
        remedy: `pass ${flag} to confirm without a prompt`,
      });
    }
    const answer = await readAnswer(process.stdin, `${question} [y/N] `, process.stderr);
    return answer !== null && isYes(answer);
  };
}
