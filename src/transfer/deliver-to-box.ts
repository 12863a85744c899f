// The host side of delivery into one box: a single file streams through the
// file script (the engine client reads the file descriptor directly when no
// meter is shown); anything else goes as one staged tar through one exec.
// Landed paths come back one per line and are checked before anyone sees them.

import { PassThrough, type Readable } from 'node:stream';

import type { Writer } from '../io.js';
import { ByreError, RefusedError } from '../errors.js';
import type { ExecRunner } from '../engine/engine.js';
import { escapeTerminal } from '../output/escape.js';
import { BOX_EXIT, INBOX, deliverFileSpec, deliverTarSpec, type BoxUser } from './box-scripts.js';
import { Meter } from './progress.js';

export interface DeliverBox extends BoxUser {
  handle: ExecRunner;
}

interface ProgressOptions {
  /** stderr when it is a terminal; undefined for no meter. */
  meterTo?: Writer;
}

/** Parses the box's stdout: absolute paths under the inbox, one per line. */
export function parseLanded(stdout: string, inbox = INBOX): string[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      if (!line.startsWith(`${inbox}/`) || line.slice(inbox.length + 1).includes('/')) {
        throw new ByreError(
          `the box reported an unexpected landing path "${escapeTerminal(line)}"`,
          {
            rule: 'transfer.bad-landing',
          },
        );
      }
      return line;
    });
}

function boxFailure(exitCode: number, stderr: string, landed: readonly string[]): ByreError {
  const said = escapeTerminal(
    stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('byre-deliver: '))
      .map((l) => l.slice('byre-deliver: '.length))
      .join('; ') ||
      stderr.trim().split('\n').pop() ||
      `exit ${exitCode}`,
  );
  const partial = landed.length > 0 ? ` (${landed.length} item(s) landed before that)` : '';
  if (exitCode === BOX_EXIT.noInbox) {
    return new RefusedError(`the box has no usable ${INBOX}: ${said}`, {
      rule: 'transfer.no-inbox',
      remedy: 'rebuild the box (`byre rebuild`, then restart the session)',
    });
  }
  return new ByreError(`delivery failed in the box: ${said}${partial}`, {
    rule: 'transfer.box-failed',
  });
}

function collect(): { sink: PassThrough; text: () => string } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => {
    if (chunks.length < 4096) chunks.push(c);
  });
  return { sink, text: () => Buffer.concat(chunks).toString('utf8') };
}

export interface DeliverResult {
  landed: string[];
}

/** One regular file (open as `fd`, exactly `size` bytes) lands as `name`. */
export async function deliverOneFile(
  box: DeliverBox,
  input: { fd: number; size: number; name: string; stream: () => Readable },
  options: ProgressOptions = {},
): Promise<DeliverResult> {
  const out = collect();
  const meter =
    options.meterTo === undefined ? null : new Meter(options.meterTo, 'sending', input.size);
  const stdin = meter === null ? input.fd : input.stream().pipe(meter);
  const r = await box.handle.execStream(deliverFileSpec(box, input.name, input.size), {
    stdin,
    stdout: out.sink,
  });
  meter?.clear();
  const landed = parseLanded(out.text());
  if (r.exitCode !== 0) throw withLanded(boxFailure(r.exitCode, r.stderr, landed), landed);
  return { landed };
}

/** A staged tar (from stage-writer.ts) lands item by item, in archive order. */
export async function deliverStaged(
  box: DeliverBox,
  archive: Readable,
  done: Promise<void>,
  options: ProgressOptions = {},
): Promise<DeliverResult> {
  const out = collect();
  let hostError: unknown = null;
  const built = done.catch((error: unknown) => {
    hostError = error;
  });
  const meter = options.meterTo === undefined ? null : new Meter(options.meterTo, 'sending', null);
  const stdin = meter === null ? archive : archive.pipe(meter);
  let r;
  try {
    r = await box.handle.execStream(deliverTarSpec(box), { stdin, stdout: out.sink });
  } catch (error) {
    await built;
    throw hostError ?? error;
  } finally {
    meter?.clear();
  }
  await built;
  const landed = parseLanded(out.text());
  if (hostError !== null) throw hostError;
  if (r.exitCode !== 0) throw withLanded(boxFailure(r.exitCode, r.stderr, landed), landed);
  return { landed };
}

/** A failure that still carries what landed before it (the command prints those first). */
export class DeliveryFailure extends Error {
  constructor(
    readonly error: ByreError,
    readonly landed: string[],
  ) {
    super(error.message);
    this.name = 'DeliveryFailure';
  }
}

function withLanded(error: ByreError, landed: string[]): DeliveryFailure | ByreError {
  return landed.length > 0 ? new DeliveryFailure(error, landed) : error;
}
