// `byre reset`: wipe every named volume of this project on every installed
// engine. Never the image, never a machine-scoped volume, never while a
// session of the project is live; the flow itself lives in lifecycle/teardown.ts,
// reached through project-teardown.ts, which forget shares.

import type { Io } from '../io.js';
import { confirmRemoved, throwIfIncomplete } from '../lifecycle/teardown.js';
import { tearDownProject, type TeardownOptions } from './project-teardown.js';
import type { CommandDeps } from './deps.js';

export type ResetOptions = TeardownOptions;

/** `2 volumes and 1 stopped container`: what reset removed, by kind (its lines name the kind). */
function removedCount(removed: readonly string[]): string {
  const count = (kind: string, word: string): string | null => {
    const n = removed.filter((line) => line.includes(` ${kind} `)).length;
    return n === 0 ? null : `${n} ${word}${n === 1 ? '' : 's'}`;
  };
  const parts = [count('volume', 'volume'), count('stopped container', 'stopped container')];
  return parts.filter((p) => p !== null).join(' and ');
}

export async function resetCommand(
  io: Io,
  options: ResetOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const { ctx, outcome } = await tearDownProject(io, 'reset', options, deps);
  confirmRemoved(
    io.stderr,
    `reset removed ${removedCount(outcome.removed)} of project ${ctx.projectId}; the next byre develop starts ${outcome.removed.length === 1 ? 'it' : 'them'} fresh:`,
    outcome.removed,
  );
  throwIfIncomplete('reset', ctx.projectId, outcome);
}
