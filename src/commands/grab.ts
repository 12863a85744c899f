// `byre grab <box-path> [<host-path> | -]`: a file or tree out of a running
// box. Prints the landed host path; `-` streams one file to stdout. Never
// overwrites a host file.

import type { Writable } from 'node:stream';

import type { Io } from '../io.js';
import { escapeTerminal } from '../output/escape.js';
import { boxPathFor, grabFromBox, GrabIncomplete } from '../transfer/grab-from-box.js';
import { localTransferEngines } from '../transfer/podman-memo.js';
import { selectBox } from '../transfer/select.js';
import { sayAll } from '../output/notes.js';
import type { CommandDeps } from './deps.js';

export interface GrabOptions {
  box?: string;
  skipUidCheck?: boolean;
}

export async function grabCommand(
  io: Io,
  boxArg: string,
  hostArg: string | undefined,
  options: GrabOptions,
  deps: CommandDeps = {},
): Promise<void> {
  const { pool, podman } = localTransferEngines(io, deps.pool);
  const { box } = await selectBox(io, pool, {
    podman,
    verb: 'grab',
    ...(options.box === undefined ? {} : { box: options.box }),
    skipUidCheck: options.skipUidCheck === true,
    stdinBusy: false,
    interactive: true,
  });
  const boxPath = boxPathFor(boxArg);
  const toStdout = hostArg === '-';
  const out = (io.stdoutStream ?? process.stdout) as Writable;
  const dest = toStdout
    ? { kind: 'stdout' as const, stream: out }
    : {
        kind: 'path' as const,
        path: hostArg === undefined ? io.cwd : resolveFrom(io.cwd, hostArg),
      };
  try {
    const r = await grabFromBox(box, boxPath, dest);
    sayAll(io.stderr, r.notes);
    if (!toStdout) io.stdout.write(`${escapeTerminal(r.landed)}\n`);
  } catch (error) {
    if (error instanceof GrabIncomplete) {
      sayAll(io.stderr, error.result.notes);
      if (error.result.landed !== '') io.stdout.write(`${escapeTerminal(error.result.landed)}\n`);
      throw error.error;
    }
    throw error;
  }
}

function resolveFrom(cwd: string, p: string): string {
  return p.startsWith('/') ? p : `${cwd}/${p}`;
}
