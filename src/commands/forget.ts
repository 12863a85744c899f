// `byre forget`: remove all of byre's host-side state for this directory —
// volumes, images and ~/.byre/projects/<id>/ — on every installed engine.
// Never touches the project tree or machine-scoped volumes; refuses while live.
// The teardown is project-teardown.ts's, shared with reset.

import type { Io } from '../io.js';
import { confirmRemoved, throwIfIncomplete } from '../lifecycle/teardown.js';
import { retargetWorktreeRecords } from '../project/identity-record.js';
import { tearDownProject, type TeardownOptions } from './project-teardown.js';
import type { CommandDeps } from './deps.js';

export type ForgetOptions = TeardownOptions;

export async function forgetCommand(
  io: Io,
  options: ForgetOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const { ctx, outcome } = await tearDownProject(io, 'forget', options, deps);
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
