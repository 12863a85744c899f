// `byre deliver`: files, a tree, or stdin into a running box's /inbox, and
// the machine verbs a remote byre answers (`--boxes`, `--tar -`). Stdout is
// the landed paths, one per line; everything else is stderr.

import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type { Io } from '../cli/io.js';
import { enginePool, type EnginePool } from '../box/pool.js';
import { PartialPoolError, UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { formatBoxLines, PROTO_VERSION } from '../transfer/boxes-grammar.js';
import {
  DeliveryFailure,
  deliverOneFile,
  deliverStaged,
  type DeliverResult,
} from '../transfer/deliver.js';
import { discoverBoxes, type FoundBox } from '../transfer/discover.js';
import { isUnusableName, sanitizeName, stdinName } from '../transfer/names.js';
import { printNotes, selectBox } from '../transfer/select.js';
import { buildStage, stageLocalSources, stageTarInput } from '../transfer/stage-writer.js';

export interface DeliverOptions {
  box?: string;
  name?: string;
  skipUidCheck?: boolean;
  /** commander's --no-clip. */
  clip?: boolean;
  boxes?: boolean;
  proto?: string;
  tar?: boolean;
}

export interface DeliverDeps {
  pool?: EnginePool;
  now?: () => Date;
}

function checkProto(proto: string | undefined): void {
  if (proto !== undefined && proto !== String(PROTO_VERSION)) {
    throw new UsageError(
      `this byre speaks --proto ${PROTO_VERSION}, not ${escapeTerminal(proto)}`,
      {
        rule: 'transfer.proto',
        remedy: 'update byre on one side so both speak the same protocol',
      },
    );
  }
}

/** Flag exclusivity (reference section 1's deliver row). */
export function checkDeliverArgs(args: readonly string[], o: DeliverOptions): void {
  checkProto(o.proto);
  if (o.boxes === true) {
    if (args.length > 0 || o.box !== undefined || o.name !== undefined || o.tar === true) {
      throw new UsageError('--boxes takes only --proto and --skip-uid-check', {
        rule: 'transfer.boxes-usage',
      });
    }
    return;
  }
  if (o.tar === true) {
    if (args.length !== 1 || args[0] !== '-' || o.name !== undefined) {
      throw new UsageError('--tar needs exactly the argument `-` and no --name', {
        rule: 'transfer.tar-usage',
      });
    }
    return;
  }
  if (args.includes('-') && args.length > 1) {
    throw new UsageError('`-` (stdin) cannot be mixed with paths', {
      rule: 'transfer.stdin-mixed',
    });
  }
  if (args[0]?.startsWith('ssh://') === true) {
    // TODO(issue 7, remote): enumerate with `deliver --boxes --proto 1`, pick
    // locally, then ONE tar up `ssh … byre deliver --proto 1 --box <id> --no-clip --tar -`.
    throw new UsageError('delivering through ssh:// is not available in this build yet', {
      rule: 'transfer.remote-unsupported',
    });
  }
}

function readable(io: Io): Readable {
  const s = io.stdinStream ?? process.stdin;
  return s instanceof Readable ? s : Readable.from(s as AsyncIterable<Buffer>);
}

export async function deliverCommand(
  io: Io,
  args: readonly string[],
  options: DeliverOptions,
  deps: DeliverDeps = {},
): Promise<void> {
  checkDeliverArgs(args, options);
  const pool = deps.pool ?? enginePool([], io.env, null);
  const skipUidCheck = options.skipUidCheck === true;

  if (options.boxes === true) {
    const d = await discoverBoxes(pool, { callerUid: io.uid, skipUidCheck });
    io.stdout.write(formatBoxLines(d.boxes));
    if (d.partial) {
      throw new PartialPoolError(`only part of the engine pool answered: ${d.notes.join('; ')}`, {
        rule: 'transfer.partial-pool',
      });
    }
    return;
  }

  const fromStdin =
    options.tar === true || args[0] === '-' || (args.length === 0 && !io.stdinIsTty);
  if (args.length === 0 && io.stdinIsTty) {
    // TODO(issue 7, paste): the paste beat from src/transfer/paste/ goes here.
    throw new UsageError('nothing to deliver: name files, or pipe data on stdin', {
      rule: 'transfer.nothing',
      remedy: 'byre deliver <path>…   or   … | byre deliver -',
    });
  }
  const { box } = await selectBox(io, pool, {
    ...(options.box === undefined ? {} : { box: options.box }),
    skipUidCheck,
    stdinBusy: fromStdin,
    interactive: options.tar !== true,
  });
  const meterTo = io.stderrIsTty === true ? { meterTo: io.stderr } : {};
  const notes: string[] = [];
  let result: DeliverResult;
  try {
    if (options.tar === true) {
      const input = readable(io);
      const { writer, done } = buildStage((w) => stageTarInput(w, input));
      result = await deliverStaged(box, writer.stream, done, meterTo);
      reportRenames(io, writer.plan.renames);
    } else if (fromStdin) {
      const wanted = options.name ?? stdinName((deps.now ?? (() => new Date()))());
      result = await deliverStdin(io, box, landingName(io, wanted), meterTo);
    } else {
      result = await deliverPaths(io, box, args, notes, meterTo);
    }
  } catch (error) {
    if (error instanceof DeliveryFailure) {
      printLanded(io, error.landed);
      throw error.error;
    }
    throw error;
  } finally {
    printNotes(io, notes);
  }
  printLanded(io, result.landed);
  // TODO(issue 7, clipboard): copy the landed paths via src/transfer/clipboard/ unless --no-clip.
}

function printLanded(io: Io, landed: readonly string[]): void {
  for (const p of landed) io.stdout.write(`${escapeTerminal(p)}\n`);
}

function reportRenames(io: Io, renames: readonly { from: string; to: string }[]): void {
  for (const r of renames) {
    io.stderr.write(`byre: renamed "${escapeTerminal(r.from)}" → "${escapeTerminal(r.to)}"\n`);
  }
}

function landingName(io: Io, wanted: string): string {
  const clean = sanitizeName(wanted);
  const name = isUnusableName(clean) ? 'stdin' : clean;
  if (name !== wanted) reportRenames(io, [{ from: wanted, to: name }]);
  return name;
}

/** stdin is spooled to a private host temp first: the box needs the exact size to tell a died stream. */
async function deliverStdin(
  io: Io,
  box: FoundBox,
  name: string,
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'byre-stdin-'));
  try {
    const spool = path.join(dir, 'payload');
    await pipeline(readable(io), createWriteStream(spool, { mode: 0o600, flags: 'wx' }));
    return await deliverFilePath(box, spool, name, meter);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function deliverFilePath(
  box: FoundBox,
  file: string,
  name: string,
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  const fh = await open(file, 'r');
  try {
    const st = await fh.stat();
    return await deliverOneFile(
      box,
      {
        fd: fh.fd,
        size: st.size,
        name,
        stream: () => fh.createReadStream({ autoClose: false, start: 0 }),
      },
      meter,
    );
  } finally {
    await fh.close();
  }
}

async function deliverPaths(
  io: Io,
  box: FoundBox,
  args: readonly string[],
  notes: string[],
  meter: { meterTo?: Io['stderr'] },
): Promise<DeliverResult> {
  const only = args[0];
  if (args.length === 1 && only !== undefined) {
    const st = await stat(only);
    if (st.isFile()) {
      const base = path.basename(path.resolve(only));
      return deliverFilePath(box, only, landingName(io, base), meter);
    }
  }
  const { writer, done } = buildStage((w) => stageLocalSources(w, args, notes));
  const result = await deliverStaged(box, writer.stream, done, meter);
  reportRenames(io, writer.plan.renames);
  return result;
}
