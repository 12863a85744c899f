// `byre reset`: wipe every named volume of this project on every installed
// engine. Never the image, never a machine-scoped volume, never while a
// session of the project is live; the flow itself lives in lifecycle/teardown.ts,
// reached through project-teardown.ts, which forget shares.

import type { Io } from '../io.js';
import { confirmRemoved, throwIfIncomplete } from '../lifecycle/teardown.js';
import { tearDownProject, type TeardownOptions } from './project-teardown.js';
import type { CommandDeps } from './deps.js';

export type ResetOptions = TeardownOptions;

export async function resetCommand(
  io: Io,
  options: ResetOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const { ctx, outcome } = await tearDownProject(io, 'reset', options, deps);
  const n = outcome.removed.length;
  confirmRemoved(
    io.stderr,
    `reset removed ${n} volume${n === 1 ? '' : 's'} of project ${ctx.projectId}; the next byre develop starts ${n === 1 ? 'it' : 'them'} fresh:`,
    outcome.removed,
  );
  throwIfIncomplete('reset', ctx.projectId, outcome);
}
