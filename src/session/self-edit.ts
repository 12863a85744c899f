// `--self-edit`: this project's store, read-write in the box where the
// launcher looks for it, and the loud lines before the box exists. The
// store is byre's own and outside the containment rules (they would refuse
// it); its source is pinned beside the others (adr/0045).

import type { Io } from '../io.js';
import { SELF_EDIT_DIR } from '../gen/box-layout.js';
import type { RunBind } from '../gen/run-argv.js';
import { say } from '../output/notes.js';
import type { ProjectContext } from '../project/context.js';

/** The store's bind. */
export function selfEditBind(ctx: Pick<ProjectContext, 'project'>): RunBind {
  return { host: ctx.project.dir, target: SELF_EDIT_DIR, mode: 'rw' };
}

/** The loud line before the box exists: this session can rewrite its own grants. */
export function warnSelfEdit(io: Io, ctx: Pick<ProjectContext, 'project'>): void {
  say(
    io.stderr,
    '🛑 self-edit is on. A malicious or incompetent agent can change the configuration to grant itself full access to your host on the next run.',
  );
  say(
    io.stderr,
    `🛑 the box can write ${ctx.project.dir} (at ${SELF_EDIT_DIR}) until this session ends; byre lists what changed when it does.`,
  );
}
