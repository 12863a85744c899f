// `byre forget`: remove all of byre's host-side state for this directory —
// volumes, images and ~/.byre/projects/<id>/ — on every installed engine.
// Never touches the project tree or machine-scoped volumes; refuses while live.

import { existsSync } from 'node:fs';
import { terminalConfirm, type Io } from '../io.js';
import { enginePool } from '../box/pool.js';
import { confirmRemoved, teardown, throwIfIncomplete } from '../box/teardown.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { retargetWorktreeRecords } from '../project/identity-record.js';
import { declaredVolumeRoles, projectDeclinedRoots } from './load.js';
import type { ResetOptions } from './reset.js';
import type { CommandDeps } from './deps.js';

export type ForgetOptions = ResetOptions;

export async function forgetCommand(
  io: Io,
  options: ForgetOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  const outcome = await teardown({
    verb: 'forget',
    projectId: ctx.projectId,
    pool: deps.pool ?? enginePool(projectDeclinedRoots(io, ctx), io.env, null),
    images: true,
    storeDir: existsSync(ctx.project.dir) ? ctx.project.dir : null,
    yes: options.force === true,
    confirm: deps.confirm ?? terminalConfirm(io),
    stderr: io.stderr,
    volumeRoles: await declaredVolumeRoles(io, ctx),
  });
  // Its worktrees' records go with its store: they name a project byre no longer keeps (adr/0047).
  if (outcome.removed.includes(`store ${ctx.project.dir}`)) {
    await retargetWorktreeRecords(ctx.store.home, ctx.projectId, null);
  }
  const n = outcome.removed.length;
  confirmRemoved(
    io.stderr,
    `forget removed ${n} item${n === 1 ? '' : 's'} of project ${ctx.projectId}; ${ctx.projectRoot} itself is untouched:`,
    outcome.removed,
  );
  throwIfIncomplete('forget', ctx.projectId, outcome);
}
