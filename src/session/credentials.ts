// The credentials step: the passphrase asked once, before the setup lock,
// and every row opened then, so a wrong passphrase or a damaged row fails
// before any image, volume or box exists; the values (and the injected
// credentials, for the edge) for the config read under the lock; the
// delivery plan (by the run nonce, over the channel); and, beside the
// session, the edge started and then the delivery, whose failure stops the box.

import type { Io } from '../io.js';
import type { EffectiveConfig } from '../config/types.js';
import { deliveredCredentialRows } from '../config/credential-rows.js';
import type { DeliveredValue } from '../credentials/channel.js';
import { deliverCredentials, type CredentialDelivery } from '../credentials/box-delivery.js';
import { askPassphrase } from '../credentials/input.js';
import {
  credentialFiles,
  openCredentials,
  openInjections,
  slowIdentityNotes,
  type EdgeCredential,
  type UnlockCache,
} from '../credentials/open.js';
import type { Engine } from '../engine/engine.js';
import { ByreError, RefusedError } from '../errors.js';
import { createEdge, edgeHelperName, startEdge, type EdgePlan } from '../network/edge.js';
import { boxRunning, NETNS_TIMEOUTS } from '../network/netns.js';
import type { EdgeLaunch } from './edge.js';
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
  await openInjections(config, passphrase, session.cache);
  for (const note of slowIdentityNotes(config)) say(io.stderr, note, 'note');
  return session;
}

function addedWhileStarting(): RefusedError {
  return new RefusedError('credential rows were added to the config while byre was starting', {
    rule: 'develop.config-changed',
    remedy: 'run byre develop again',
  });
}

/** The values for the config read under the lock, opened with the passphrase already asked. */
export async function credentialValues(
  config: EffectiveConfig,
  session: CredentialSession | null,
): Promise<DeliveredValue[]> {
  if (deliveredCredentialRows(config).length === 0) return [];
  if (session === null) throw addedWhileStarting();
  return openCredentials(config, session.passphrase, session.cache);
}

/** The injected credentials for the config read under the lock, their sealed rules checked. */
export async function edgeCredentials(
  config: EffectiveConfig,
  session: CredentialSession | null,
): Promise<EdgeCredential[]> {
  if (config.injections.length === 0) return [];
  if (session === null) throw addedWhileStarting();
  return openInjections(config, session.passphrase, session.cache);
}

/**
 * What is delivered into the box, found by its run nonce; null when nothing
 * is. An injected key's sentinel travels with the values, so the credential
 * gate opens only once the edge is ready (deliverBeside starts it first).
 */
export function credentialDelivery(
  params: Pick<RunParams, 'uid' | 'gid'>,
  boxId: string,
  values: DeliveredValue[],
  edge: Pick<EdgeLaunch, 'sentinels'> | null = null,
): CredentialDelivery | null {
  const all = [...values, ...(edge?.sentinels ?? [])];
  if (all.length === 0) return null;
  return { boxId, uid: params.uid, gid: params.gid, values: all };
}

/** The box's edge, as the steps beside its start need it. */
export interface EdgeStart {
  launch: EdgeLaunch;
  /** The box's container name (names its edge helper). */
  box: string;
  /** The box's project id (labels its edge helper). */
  project: string;
  image: string;
  joinUserns: boolean;
}

/** The edge helper's plan for this box. */
function edgePlan(edge: EdgeStart): EdgePlan {
  const { launch } = edge;
  return {
    box: edge.box,
    project: edge.project,
    image: edge.image,
    ports: launch.ports,
    input: launch.input,
    joinUserns: edge.joinUserns,
    ...(launch.upstreamAddress === undefined ? {} : { upstreamAddress: launch.upstreamAddress }),
  };
}

/**
 * The box's edge beside the delivery, each engine call as early as it can
 * be: the edge's helper created as soon as the box exists (while it
 * starts), started once the box runs; the delivery's exec started then too,
 * sending the values at once, its closing line (which opens the gate)
 * waiting for the edge's ready line, so nothing of the box's runs before
 * the edge listens. The edge's failure is the one reported.
 */
async function deliverWithEdge(
  engine: Engine,
  delivery: CredentialDelivery,
  edge: EdgeStart,
): Promise<void> {
  const { boxId } = delivery;
  const plan = edgePlan(edge);
  const created = createEdge(engine, plan, boxId);
  // Awaited below, once the box runs; a refusal meanwhile is not unhandled.
  created.catch(() => undefined);
  try {
    await boxRunning(engine, boxId, NETNS_TIMEOUTS);
  } catch (error) {
    await created.catch(() => undefined);
    await engine.remove(edgeHelperName(edge.box)).catch(() => false);
    throw new ByreError(
      `the box never ran, so its edge was not started: ${(error as Error).message}`,
      {
        rule: 'edge.not-ready',
      },
    );
  }
  const ready = startEdge(engine, plan, boxId, undefined, created).then(() => undefined);
  const [started, delivered] = await Promise.allSettled([
    ready,
    deliverCredentials(engine, delivery, { running: true, release: ready }),
  ]);
  if (started.status === 'rejected') throw started.reason;
  if (delivered.status === 'rejected') throw delivered.reason;
}

/**
 * Start the edge (when the box injects), then deliver, beside the session; a
 * failure is reported after the box (which it stopped) exits. The receipt
 * names the delivered keys only: a sentinel is not a delivery. A receipt
 * that could not be written is `warn`ed of, for after the session: status
 * would otherwise say NOT delivered of credentials the box has.
 */
export async function deliverBeside(
  engine: Engine,
  receiptsDir: string,
  launchHash: string,
  delivery: CredentialDelivery | null,
  edge: EdgeStart | null = null,
  warn: (message: string) => void = () => undefined,
): Promise<{ error: unknown } | null> {
  if (delivery === null) return null;
  try {
    if (edge === null) await deliverCredentials(engine, delivery);
    else await deliverWithEdge(engine, delivery, edge);
  } catch (error) {
    return { error };
  }
  const sentinels = new Set(edge?.launch.sentinels.map((v) => v.key) ?? []);
  const delivered = delivery.values.map((v) => v.key).filter((k) => !sentinels.has(k));
  if (delivered.length === 0) return null;
  try {
    writeDeliveryReceipt(receiptsDir, launchHash, delivered);
  } catch (error) {
    // Only status's "delivered" line depends on it; the box has its credentials.
    const why = error instanceof Error ? error.message : String(error);
    warn(
      `the box got its credentials, but byre could not record that in ${receiptsDir} (${why}); byre status says NOT delivered for this session`,
    );
  }
  return null;
}
