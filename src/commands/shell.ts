// `byre shell`: a login shell as dev in THIS directory's running session, on
// whichever installed engine runs it, or with `-- <cmd> [args…]` that one
// command. The exit status passes through; byre never starts a box here.

import type { Io } from '../io.js';
import { enginePool } from '../engine/pool.js';
import { describeUnchecked, findSessions } from '../session/census.js';
import { shellExecSpec } from '../gen/shell-exec.js';
import { ByreError, PassthroughExit } from '../errors.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import type { CommandDeps } from './deps.js';
import { projectDeclinedRoots } from './load.js';

export interface ShellOptions {
  skipUidCheck?: boolean;
  /** The command after `--`; empty or absent: a login shell. */
  command?: readonly string[];
}

export async function shellCommand(
  io: Io,
  options: ShellOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const command = options.command ?? [];
  const ctx = await resolveProjectContext(io.cwd, io.env);
  // An id another directory owns names that directory's box: refuse before any engine is asked.
  await checkProjectPath(ctx);
  const pool = deps.pool ?? enginePool(projectDeclinedRoots(io, ctx), io.env, null);
  const scan = await findSessions(pool, { projectId: ctx.projectId, worktreeId: ctx.worktreeId });
  const box = scan.boxes[0];
  if (box === undefined) {
    const unchecked =
      scan.unchecked.length > 0 ? ` (could not check ${describeUnchecked(scan.unchecked)})` : '';
    throw new ByreError(`no session is running for this directory${unchecked}`, {
      rule: 'shell.no-session',
      remedy: 'start one with `byre develop` here, then run `byre shell` from another terminal',
    });
  }
  const spec = shellExecSpec({
    id: box.id,
    boxEnv: await box.engine.inspectEnv(box.id),
    engineName: box.engineName,
    callerUid: io.uid,
    skipUidCheck: options.skipUidCheck === true,
    // A command's output may be piped, like `docker exec`: a terminal only when both ends are one.
    tty: command.length === 0 ? io.stdinIsTty : io.stdinIsTty && io.stdoutIsTty,
    command,
  });
  const code = await box.engine.execAttached(spec);
  if (code !== 0) throw new PassthroughExit(code);
}
