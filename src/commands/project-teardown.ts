// What `byre reset` and `byre forget` share: this directory's project, checked
// against its recorded path (a different one means the id is another
// directory's, and tearing it down would hit the wrong project), torn down on
// every installed engine through lifecycle/teardown.ts. Each verb words its own summary.
// What forget removes beyond reset (images, the store) is decided here by verb.

import { pathExists } from '../host/path-view.js';
import { terminalConfirm, type Io } from '../io.js';
import { enginePool } from '../engine/pool.js';
import { teardown, type TeardownOutcome, type TeardownVerb } from '../lifecycle/teardown.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { besideFolder } from '../project/store-layout.js';
import { declaredVolumeRoles, projectDeclinedRoots } from './load.js';
import type { CommandDeps } from './deps.js';

export interface TeardownOptions {
  force?: boolean;
}

/** Resolves this directory's project and removes what `verb` removes; the caller reports. */
export async function tearDownProject(
  io: Io,
  verb: TeardownVerb,
  options: TeardownOptions,
  deps: CommandDeps,
): Promise<{ ctx: ProjectContext; outcome: TeardownOutcome }> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  const forget = verb === 'forget';
  const outcome = await teardown({
    verb,
    projectId: ctx.projectId,
    pool: deps.pool ?? enginePool(projectDeclinedRoots(io, ctx), io.env, null),
    images: forget,
    // The wiring rootless podman's boxes bind (adr/0075), the edge's
    // certificates (adr/0070) and the delivery receipts live beside the folder.
    storeDirs: forget
      ? [ctx.project.dir, ...besideFolder(ctx.project)].filter((d) => pathExists(d))
      : [],
    yes: options.force === true,
    confirm: deps.confirm ?? terminalConfirm(io),
    stderr: io.stderr,
    volumeRoles: await declaredVolumeRoles(io, ctx),
  });
  return { ctx, outcome };
}
