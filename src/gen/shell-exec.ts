// The exec that `byre shell` runs in a live box: a login shell as the box's
// own dev ids (read from its BYRE_UID/BYRE_GID), at /workspace, with the
// box's BYRE_* env. Pure; it never decides which box, only how to enter it.

import { ByreError } from '../errors.js';
import type { EngineName, ExecSpec } from '../engine/types.js';
import { DEV_HOME, WORKSPACE } from './box-layout.js';

interface ShellRequest {
  /** `byre shell -- <cmd> [args…]`: run this instead of a login shell. */
  command?: readonly string[];
  id: string;
  /** The box's environment as the engine reports it. */
  boxEnv: Readonly<Record<string, string>>;
  engineName: EngineName;
  callerUid: number;
  skipUidCheck: boolean;
  tty: boolean;
}

/** The `bash -lc` script `byre shell -- <cmd>` runs: its words follow as argv (`$0` is `byre-shell`). */
export const SHELL_COMMAND_SCRIPT = 'exec "$@"';

function idFrom(env: Readonly<Record<string, string>>, key: string): number | null {
  const raw = env[key];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : null;
}

/**
 * Rootless Podman is caller-scoped (a non-root user's podman only sees that
 * user's boxes, baked at the generic 1000), so only other cases compare ids.
 */
export function uidCheckApplies(engineName: EngineName, callerUid: number): boolean {
  return !(engineName === 'podman' && callerUid !== 0);
}

export function shellExecSpec(req: ShellRequest): ExecSpec {
  const uid = idFrom(req.boxEnv, 'BYRE_UID');
  const gid = idFrom(req.boxEnv, 'BYRE_GID');
  const short = req.id.slice(0, 12);
  if (uid === null || gid === null) {
    throw new ByreError(
      `box ${short} carries no valid BYRE_UID/BYRE_GID, so byre cannot tell who dev is`,
      {
        rule: 'shell.no-ids',
        remedy: 'stop that box and start it again with byre develop',
      },
    );
  }
  if (
    !req.skipUidCheck &&
    uidCheckApplies(req.engineName, req.callerUid) &&
    uid !== req.callerUid
  ) {
    throw new ByreError(`box ${short} runs as uid ${uid}, not yours (${req.callerUid})`, {
      rule: 'shell.foreign-box',
      remedy: 'pass --skip-uid-check to enter it anyway',
    });
  }
  const env: Record<string, string> = { HOME: DEV_HOME };
  for (const [k, v] of Object.entries(req.boxEnv)) {
    if (k.startsWith('BYRE_')) env[k] = v;
  }
  return {
    id: req.id,
    // A command runs through the same login environment as the shell (the
    // env.d hooks), handed over as argv: never spliced into shell text.
    command:
      req.command === undefined || req.command.length === 0
        ? ['bash', '-l']
        : ['bash', '-lc', SHELL_COMMAND_SCRIPT, 'byre-shell', ...req.command],
    user: `${uid}:${gid}`,
    workdir: WORKSPACE,
    env,
    interactive: true,
    tty: req.tty,
  };
}
