// The ssh legs of a remote delivery: list the remote's boxes (one exec), and
// stream one archive up one exec into the remote's `deliver --tar -`. ssh runs
// by absolute path, with no shell on this side (host/spawn.ts); the remote's stderr is
// relayed escaped and marked as the remote's, never as byre's own voice.

import type { Readable } from 'node:stream';

import type { Writer } from '../../io.js';
import { ByreError } from '../../errors.js';
import { runProgram } from '../../host/spawn.js';
import { escapeTerminal } from '../../output/escape.js';
import { parseBoxLines } from '../boxes-grammar.js';
import { DeliveryFailure, parseLanded, type DeliverResult } from '../deliver-to-box.js';
import type { BoxSummary } from '../discover.js';
import { Meter } from '../progress.js';
import {
  remoteDeliverArgv,
  remoteExitError,
  remoteListArgv,
  sshArgv,
  type RemoteOptions,
  type SshTarget,
} from './protocol.js';

const PARTIAL_POOL_EXIT = 4;
const MAX_STDOUT = 16 << 20;
const MAX_SAID = 64 << 10;

export interface RemoteContext extends RemoteOptions {
  target: SshTarget;
  /** Absolute path of the host's ssh. */
  ssh: string;
  env: NodeJS.ProcessEnv;
  stderr: Writer;
}

interface SshRun {
  code: number | null;
  stdout: string;
  said: string;
}

/** Relays the remote's stderr line by line, escaped and prefixed, and keeps a bounded copy. */
function relay(stderr: Writer): { push(chunk: Buffer): void; end(): string } {
  let pending = '';
  let kept = '';
  const emit = (line: string): void => {
    stderr.write(`remote: ${escapeTerminal(line)}\n`);
    if (kept.length < MAX_SAID) kept += `${line}\n`;
  };
  return {
    push(chunk) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) emit(l);
    },
    end() {
      if (pending !== '') emit(pending);
      pending = '';
      return kept;
    },
  };
}

async function runSsh(
  ctx: RemoteContext,
  remoteArgv: readonly string[],
  stdin: Readable | null,
  onSpawn: (kill: () => void) => void = () => undefined,
): Promise<SshRun> {
  const said = relay(ctx.stderr);
  const r = await runProgram(ctx.ssh, sshArgv(ctx.target, remoteArgv), {
    env: ctx.env,
    // ssh resolves a relative identity or config path from where byre was run.
    cwd: process.cwd(),
    ...(stdin === null ? {} : { stdin }),
    stdout: { maxBytes: MAX_STDOUT, over: 'cut' },
    stderr: { onChunk: (c) => said.push(c) },
    onStart: onSpawn,
  });
  if (r.failed === 'start') throw r.error ?? new Error('ssh did not start');
  return { code: r.code, stdout: r.stdout.toString('utf8'), said: said.end() };
}

/** The remote's usable boxes; `partial` when its pool answered only in part (exit 4). */
export async function listRemoteBoxes(
  ctx: RemoteContext,
): Promise<{ boxes: BoxSummary[]; partial: boolean }> {
  const r = await runSsh(ctx, remoteListArgv(ctx), null);
  if (r.code !== 0 && r.code !== PARTIAL_POOL_EXIT) throw remoteExitError(r.code, exitCtx(ctx, r));
  return { boxes: parseBoxLines(r.stdout), partial: r.code === PARTIAL_POOL_EXIT };
}

/**
 * Streams `archive` (finished when `built` settles) into the remote's
 * `deliver --tar -`. A local failure kills ssh so the remote sees a broken
 * upload rather than a short one.
 */
export async function uploadArchive(
  ctx: RemoteContext & { box: string; meterTo?: Writer },
  archive: Readable,
  built: Promise<void>,
): Promise<DeliverResult> {
  let hostError: unknown = null;
  let kill: () => void = () => undefined;
  const watched = built.catch((error: unknown) => {
    hostError = error;
    kill();
  });
  const meter = ctx.meterTo === undefined ? null : new Meter(ctx.meterTo, 'sending', null);
  const stdin = meter === null ? archive : archive.pipe(meter);
  archive.on('error', () => meter?.destroy());
  let r: SshRun;
  try {
    r = await runSsh(ctx, remoteDeliverArgv(ctx), stdin, (k) => {
      kill = k;
      if (hostError !== null) k();
    });
  } finally {
    meter?.clear();
  }
  await watched;
  if (hostError !== null) throw hostError;
  const landed = parseLanded(r.stdout);
  if (r.code !== 0) {
    const error = remoteExitError(r.code, exitCtx(ctx, r));
    throw landed.length > 0 ? new DeliveryFailure(error, landed) : error;
  }
  if (landed.length === 0) {
    throw new ByreError('the remote byre reported success but named nothing it landed', {
      rule: 'transfer.remote-silent',
    });
  }
  return { landed };
}

function exitCtx(
  ctx: RemoteContext,
  r: SshRun,
): { target: SshTarget; remoteByre?: string; said: string } {
  return {
    target: ctx.target,
    said: r.said,
    ...(ctx.remoteByre === undefined ? {} : { remoteByre: ctx.remoteByre }),
  };
}
