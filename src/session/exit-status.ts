// What the agent's exit status means to the user. 0-127 pass through
// silently; 128 and above are signals or engine failures, which byre explains
// and reports as its own failure (exit 1). An engine client that was itself
// killed never reaches here: the engine adapter reports it as such.

import { signalName } from '../engine/signals.js';

type ExitOutcome = { kind: 'passthrough'; code: number } | { kind: 'failed'; message: string };

export function interpretExit(code: number): ExitOutcome {
  if (code >= 0 && code <= 127) return { kind: 'passthrough', code };
  if (code === 137) {
    return {
      kind: 'failed',
      message:
        'the box exited 137 (SIGKILL): it was killed out from under the session (out of memory, `stop`, or the engine restarting)',
    };
  }
  if (code >= 129 && code <= 192) {
    const n = code - 128;
    const name = signalName(n);
    return {
      kind: 'failed',
      message: `the box exited ${code}: possibly ${name ?? `signal ${n}`}`,
    };
  }
  return { kind: 'failed', message: `the box exited ${code}` };
}
