// The host side of the credential channel (adr/0012): find the box develop
// just started, then stream the decrypted values into its session tmpfs
// through one `exec -i` as the dev user. The values travel only on that
// exec's stdin. Any failure stops the box: it must never run past its
// credential gate without them (it would fail closed anyway, 30 s later).

import type { ExecRunner, SessionRunner } from '../engine/engine.js';
import { ByreError } from '../errors.js';
import { findBoxByNonce, NETNS_TIMEOUTS, type NetnsTimeouts } from '../network/netns.js';
import { escapeTerminal } from '../output/escape.js';
import { redactSecrets } from '../output/redact.js';
import {
  credentialPayload,
  RECEIVER_DONE,
  receiverCommand,
  type DeliveredValue,
} from './channel.js';

export interface CredentialDelivery {
  /** The box's `byre.run` nonce label. */
  nonce: string;
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

/**
 * Deliver every value. Resolves once the receiver confirmed the gate is
 * open; rejects (after stopping the box) otherwise. `found`: the box's id
 * when a step before this one already found it by its nonce (the edge's).
 */
export async function deliverCredentials(
  engine: SessionRunner & ExecRunner,
  delivery: CredentialDelivery,
  timeouts: Pick<NetnsTimeouts, 'findMs' | 'pollMs'> = NETNS_TIMEOUTS,
  found?: string,
): Promise<void> {
  const boxId = found ?? (await findBoxByNonce(engine, delivery.nonce, timeouts));
  if (boxId === null) throw failed('the box never started, so no credentials were delivered');
  let outcome: { exitCode: number; stdout: string; stderr: string };
  try {
    outcome = await engine.exec(
      { id: boxId, command: receiverCommand(), user: `${delivery.uid}:${delivery.gid}` },
      { input: credentialPayload(delivery.values) },
    );
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
