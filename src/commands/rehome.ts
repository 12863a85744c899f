// `byre rehome [<old-id>]`: with no id, list stored projects whose directory
// is gone (most recent first); with one, move that id's volumes and stored
// config onto this directory's id and retire the old one (box/rehome.ts).

import { say } from '../output/notes.js';
import type { Io } from '../io.js';
import { enginePool, probedPool } from '../box/pool.js';
import { listRehomeCandidates, rehomeProject } from '../box/rehome.js';
import { escapeTerminal } from '../output/escape.js';
import { resolveProjectContext } from '../project/context.js';
import { withDefaults, type CommandDeps } from './deps.js';
import { projectDeclinedRoots } from './load.js';

export async function rehomeCommand(
  io: Io,
  oldId: string | undefined,
  deps: CommandDeps = {},
): Promise<void> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
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
