// `byre rehome [<old-id>]`: with no id, list stored projects whose directory
// is gone (most recent first), or say how this directory's identity changed;
// with one, move that id's volumes and stored config onto this directory's id
// and retire the old one, or accept this directory's changed identity
// (lifecycle/rehome-project.ts, adr/0047).

import { say } from '../output/notes.js';
import type { Io } from '../io.js';
import { enginePool, probedPool } from '../engine/pool.js';
import { leaveProject, listRehomeCandidates, rehomeProject } from '../lifecycle/rehome-project.js';
import { escapeTerminal } from '../output/escape.js';
import { resolveProjectContext } from '../project/context.js';
import { identityChangeRefusal } from '../project/identity-change.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectDeclinedRoots } from './load.js';

export async function rehomeCommand(
  io: Io,
  oldId: string | undefined,
  deps: CommandDeps = {},
): Promise<void> {
  // A changed identity of this very directory is what rehome settles (adr/0047).
  const ctx = await resolveProjectContext(io.cwd, io.env, { identityChange: 'report' });
  const change = ctx.identityChange;
  if (oldId === undefined && change !== null) {
    const refusal = identityChangeRefusal(change);
    say(io.stderr, refusal.message);
    if (refusal.remedy !== undefined) say(io.stderr, refusal.remedy);
    return;
  }
  if (oldId === undefined) {
    const candidates = await listRehomeCandidates(ctx.store.projects, ctx.projectId);
    if (candidates.length === 0) {
      say(io.stderr, 'no stored project has lost its directory; there is nothing to rehome');
      return;
    }
    const width = Math.max(...candidates.map((c) => c.id.length));
    for (const c of candidates) {
      io.stdout.write(`${c.id.padEnd(width)}  ${escapeTerminal(c.path)}\n`);
    }
    say(
      io.stderr,
      `run \`byre rehome <id>\` here to move that project's volumes and config onto ${ctx.projectRoot}`,
    );
    return;
  }
  if (change?.recorded.as === 'worktree' && change.recorded.projectId === oldId) {
    // Leaving a project moves nothing on an engine.
    await leaveProject({ ctx, oldId, stderr: io.stderr });
    return;
  }
  const declined = deps.pool === undefined ? projectDeclinedRoots(io, ctx) : [];
  const pool =
    deps.pool ??
    (await probedPool(
      enginePool(declined, io.env, null),
      (name) => withDefaults(deps).detect(name, declined, io.env),
      io.env,
    ));
  await rehomeProject({ ctx, oldId, pool, stderr: io.stderr });
}
