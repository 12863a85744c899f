// The credentials step: the passphrase asked once, before the setup lock,
// and every row opened then, so a wrong passphrase or a damaged row fails
// before any image, volume or box exists; the values for the config read
// under the lock; the delivery plan (by the run nonce, over the channel);
// and the delivery beside the session, whose failure stops the box.

import type { Io } from '../io.js';
import type { EffectiveConfig } from '../config/types.js';
import { deliveredCredentialRows } from '../config/credential-rows.js';
import type { DeliveredValue } from '../credentials/channel.js';
import { deliverCredentials, type CredentialDelivery } from '../credentials/box-delivery.js';
import { askPassphrase } from '../credentials/input.js';
import {
  credentialFiles,
  openCredentials,
  slowIdentityNotes,
  type UnlockCache,
} from '../credentials/open.js';
import type { Engine } from '../engine/engine.js';
import { RefusedError } from '../errors.js';
import type { RunParams } from '../gen/run-argv.js';
import { writeDeliveryReceipt } from '../launch/store.js';
import { say } from '../output/notes.js';

/** The passphrase asked once, and the identities it already opened. */
export interface CredentialSession {
  passphrase: string;
  cache: UnlockCache;
}

/** Ask the passphrase and open every row (before the lock); null when the config has none. */
export async function openCredentialSession(
  io: Io,
  config: EffectiveConfig,
  fd: number | undefined,
): Promise<CredentialSession | null> {
  const files = credentialFiles(config);
  if (files.length === 0) return null;
  const passphrase = await askPassphrase(
    { fd: fd ?? null, terminal: io.terminal ?? null },
    `byre: passphrase for the credentials in ${files.map((f) => f.path ?? f.name).join(', ')}: `,
  );
  const session: CredentialSession = { passphrase, cache: new Map() };
  await openCredentials(config, passphrase, session.cache);
  for (const note of slowIdentityNotes(config)) say(io.stderr, note, 'note');
  return session;
}

/** The values for the config read under the lock, opened with the passphrase already asked. */
export async function credentialValues(
  config: EffectiveConfig,
  session: CredentialSession | null,
): Promise<DeliveredValue[]> {
  if (deliveredCredentialRows(config).length === 0) return [];
  if (session === null) {
    throw new RefusedError('credential rows were added to the config while byre was starting', {
      rule: 'develop.config-changed',
      remedy: 'run byre develop again',
    });
  }
  return openCredentials(config, session.passphrase, session.cache);
}

/** What is delivered into the box, found by its run nonce; null when nothing is. */
export function credentialDelivery(
  params: Pick<RunParams, 'labels' | 'uid' | 'gid'>,
  values: DeliveredValue[],
): CredentialDelivery | null {
  if (values.length === 0 || params.labels.run === undefined) return null;
  return { nonce: params.labels.run, uid: params.uid, gid: params.gid, values };
}

/** Deliver beside the session; a failure is reported after the box (which it stopped) exits. */
export async function deliverBeside(
  engine: Engine,
  launchesDir: string,
  launchHash: string,
  delivery: CredentialDelivery | null,
): Promise<{ error: unknown } | null> {
  if (delivery === null) return null;
  try {
    await deliverCredentials(engine, delivery);
  } catch (error) {
    return { error };
  }
  try {
    writeDeliveryReceipt(
      launchesDir,
      launchHash,
      delivery.values.map((v) => v.key),
    );
  } catch {
    // Only status's "delivered" line depends on it; the box has its credentials.
  }
  return null;
}
