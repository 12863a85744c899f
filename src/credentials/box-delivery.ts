// The host side of the credential channel (adr/0012): find the box develop
// just started, then stream the decrypted values into its session tmpfs
// through one `exec -i` as the dev user. The values travel only on that
// exec's stdin. Any failure stops the box: it must never run past its
// credential gate without them (it would fail closed anyway, 30 s later).

import { Readable, Writable } from 'node:stream';

import type { ExecRunner, SessionRunner } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { ByreError } from '../errors.js';
import { boxRunning, NETNS_TIMEOUTS, type NetnsTimeouts } from '../network/netns.js';
import { escapeTerminal } from '../output/escape.js';
import { redactSecrets } from '../output/redact.js';
import {
  credentialPayload,
  RECEIVER_DONE,
  receiverCommand,
  type DeliveredValue,
} from './channel.js';

export interface CredentialDelivery {
  /** The box's container id, as its create returned it. */
  boxId: string;
  /** The in-box dev user, as the exec's `-u`. */
  uid: number;
  gid: number;
  values: readonly DeliveredValue[];
}

/** The box's own words about a failed delivery: the last lines, redacted, escaped. */
function boxSaid(stderr: string): string {
  const tail = stderr.trimEnd().split('\n').slice(-5).join('\n');
  return escapeTerminal(redactSecrets(tail));
}

function failed(message: string): ByreError {
  return new ByreError(message, {
    rule: 'develop.credentials-failed',
    remedy:
      'nothing was delivered and the box was stopped (fail closed); run byre develop again, and check `byre status` for the credential rows',
  });
}

/** Bytes of the receiver's stdout kept: it says one line. */
const RECEIVER_OUTPUT_CAP = 4096;

/**
 * The receiver run with the payload on its stdin. It answers as soon as the receiver's done line comes (the receiver says it
 * last, once the gate is open), not when the engine's exec returns: podman's
 * exec teardown can take seconds under load, and the delivery's receipt,
 * which status reads, is written on this answer. The exec ends on its own.
 */
async function execReceiver(
  engine: ExecRunner,
  spec: ExecSpec,
  payload: string,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const stdin = Readable.from([Buffer.from(payload)]);
  let stdout = '';
  let onDone = (): void => undefined;
  const done = new Promise<null>((resolve) => {
    onDone = () => resolve(null);
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, next) {
      if (stdout.length < RECEIVER_OUTPUT_CAP) stdout += chunk.toString('utf8');
      if (stdout === `${RECEIVER_DONE}\n`) onDone();
      next();
    },
  });
  let stderr = '';
  const ended = engine
    .execStream(spec, {
      stdin,
      stdout: sink,
      onStderr: (chunk) => {
        stderr = (stderr + chunk).slice(-RECEIVER_OUTPUT_CAP);
      },
    })
    .then((r) => ({ exitCode: r.exitCode, stdout, stderr }));
  const first = await Promise.race([done, ended]);
  if (first !== null) return first;
  ended.catch(() => undefined);
  return { exitCode: 0, stdout, stderr };
}

/** How a delivery waits for the box to run. */
interface DeliveryWait {
  timeouts?: Pick<NetnsTimeouts, 'findMs' | 'startPollMs'>;
}

/**
 * Deliver every value. Resolves once the receiver confirmed the gate is
 * open; rejects (after stopping the box) otherwise.
 */
export async function deliverCredentials(
  engine: SessionRunner & ExecRunner,
  delivery: CredentialDelivery,
  wait: DeliveryWait = {},
): Promise<void> {
  const { boxId } = delivery;
  await boxRunning(engine, boxId, wait.timeouts ?? NETNS_TIMEOUTS).catch(() => {
    throw failed('the box never started, so no credentials were delivered');
  });
  const spec = { id: boxId, command: receiverCommand(), user: `${delivery.uid}:${delivery.gid}` };
  const payload = credentialPayload(delivery.values);
  let outcome: { exitCode: number; stdout: string; stderr: string };
  try {
    outcome = await execReceiver(engine, spec, payload);
  } catch (error) {
    await engine.stop(boxId, 2).catch(() => undefined);
    const why = error instanceof Error ? redactSecrets(error.message) : 'the exec failed';
    throw failed(`could not deliver credentials into the box: ${why}`);
  }
  if (outcome.exitCode === 0 && outcome.stdout.trim() === RECEIVER_DONE) return;
  await engine.stop(boxId, 2).catch(() => undefined);
  const said = boxSaid(outcome.stderr);
  throw failed(
    `the box refused the credentials (exit ${outcome.exitCode})${said === '' ? '' : `: ${said}`}`,
  );
}
