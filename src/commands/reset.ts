// `byre reset`: wipe every named volume of this project on every installed
// engine. Never the image, never a machine-scoped volume, never while a
// session of the project is live; the flow itself lives in box/teardown.ts.

import { terminalConfirm, type Io } from '../io.js';
import { enginePool } from '../box/pool.js';
import { confirmRemoved, teardown, throwIfIncomplete } from '../box/teardown.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { declaredVolumeRoles, projectDeclinedRoots } from './load.js';
import type { CommandDeps } from './deps.js';

export interface ResetOptions {
  force?: boolean;
}

export async function resetCommand(
  io: Io,
  options: ResetOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  // A different recorded path means this id is another directory's: wiping it would hit the wrong project.
  await checkProjectPath(ctx);
  const outcome = await teardown({
    verb: 'reset',
    projectId: ctx.projectId,
    pool: deps.pool ?? enginePool(projectDeclinedRoots(io, ctx), io.env, null),
    images: false,
    storeDir: null,
    yes: options.force === true,
    confirm: deps.confirm ?? terminalConfirm(io),
    stderr: io.stderr,
    volumeRoles: await declaredVolumeRoles(io, ctx),
  });
  const n = outcome.removed.length;
  confirmRemoved(
    io.stderr,
    `reset removed ${n} volume${n === 1 ? '' : 's'} of project ${ctx.projectId}; the next byre develop starts ${n === 1 ? 'it' : 'them'} fresh:`,
    outcome.removed,
  );
  throwIfIncomplete('reset', ctx.projectId, outcome);
}
