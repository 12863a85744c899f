// The credentials step: the passphrase asked once, before the setup lock,
// and every row opened then, so a wrong passphrase or a damaged row fails
// before any image, volume or box exists; the values (and the injected
// credentials, for the edge) for the config read under the lock; the
// delivery plan (by the box's id, over the channel); the edge started
// before the box is created (the box joins its network, adr/0079); and,
// beside the session, the delivery and the edge's start, whose failure
// stops the box.

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
import { RefusedError } from '../errors.js';
import { startEdge, type EdgeHandle, type EdgePlan } from '../network/edge.js';
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
 * What is delivered into the box, by its id; null when nothing is. An
 * injected key is not: the box's launcher sets its sentinel once the edge
 * gate opened (adr/0084).
 */
export function credentialDelivery(
  params: Pick<RunParams, 'uid' | 'gid'>,
  boxId: string,
  values: DeliveredValue[],
): CredentialDelivery | null {
  if (values.length === 0) return null;
  return { boxId, uid: params.uid, gid: params.gid, values };
}

/** What the box's edge is started from. */
export interface EdgeStart {
  launch: EdgeLaunch;
  /** The box's container name (names its edge helper). */
  box: string;
  /** The box's project id (labels its edge helper). */
  project: string;
  image: string;
  /** The box's host entries, published ports and (keep-id) user namespace: the edge's to own. */
  network: readonly string[];
}

/** The box's edge, started before the box is created (adr/0079). */
export interface BoxEdge {
  launch: EdgeLaunch;
  /** The box's container name. */
  box: string;
  /** Settles once the edge's helper exists (its id): the box's create names it. */
  created: Promise<string>;
  /** Settles once the edge's container runs (the box may start in its network), or it failed first. */
  up: Promise<void>;
  /** Settles once the edge is ready (its handle), or failed (`edge.not-ready`, its helper removed). */
  started: Promise<EdgeHandle>;
}

/** The edge helper's plan for this box; `input` when its values come later (adr/0080). */
export function edgePlan(
  edge: Omit<EdgeStart, 'launch'> & {
    launch: Pick<EdgeLaunch, 'ports' | 'upstreamAddress'> & { input: EdgePlan['input'] };
  },
): EdgePlan {
  const { launch } = edge;
  return {
    box: edge.box,
    project: edge.project,
    image: edge.image,
    ports: launch.ports,
    input: launch.input,
    network: edge.network,
    ...(launch.upstreamAddress === undefined ? {} : { upstreamAddress: launch.upstreamAddress }),
  };
}

/**
 * Start the box's edge now, not waiting for it: the launch's later steps
 * (the record, the box's create) run while it starts; the box's create
 * waits for its helper to exist, the box's start for its container to run,
 * and the box's launcher, at its edge gate, for it to be ready (adr/0084).
 */
export function startBoxEdge(engine: Engine, edge: EdgeStart): BoxEdge {
  return { launch: edge.launch, ...startedEdge(engine, edgePlan(edge), true) };
}

/**
 * The helper made and started from this plan: under the setup lock
 * (`replace`: a helper an earlier session left under its name goes), or
 * before it (adr/0080: refused when the name is taken).
 */
export function startedEdge(
  engine: Engine,
  plan: EdgePlan,
  replace: boolean,
): Omit<BoxEdge, 'launch'> {
  return { box: plan.box, ...startEdge(engine, plan, { replace }) };
}

/**
 * End the box's edge and remove its helper (after the box, which joins its
 * network): by its id, whose name another launch may since hold (adr/0080).
 */
export async function dropBoxEdge(engine: Engine, edge: BoxEdge): Promise<void> {
  const handle = await edge.started.catch(() => null);
  handle?.close();
  const id = await edge.created.catch(() => null);
  if (id !== null) await engine.remove(id).catch(() => false);
}

/**
 * An injecting box's edge, watched beside the session: its failure stops
 * the box at once (the box's launcher, waiting at its edge gate, would
 * otherwise wait out the gate's timeout) and is the one reported.
 */
async function watchEdge(
  engine: Engine,
  boxId: string,
  started: Promise<EdgeHandle>,
): Promise<void> {
  try {
    await started;
  } catch (error) {
    await engine.stop(boxId, 2).catch(() => undefined);
    throw error;
  }
}

/**
 * Beside the session: the delivery, and an injecting box's edge watched
 * until it is ready; a failure of either (each stops the box) is reported
 * after the box exits, the edge's first. The receipt names the delivered
 * keys: an injected key is not a delivery. A receipt that could not be
 * written is `warn`ed of, for after the session: status would otherwise
 * say NOT delivered of credentials the box has.
 */
export async function deliverBeside(
  engine: Engine,
  receiptsDir: string,
  launchHash: string,
  beside: {
    boxId: string;
    delivery: CredentialDelivery | null;
    edge: Pick<BoxEdge, 'started'> | null;
  },
  warn: (message: string) => void = () => undefined,
): Promise<{ error: unknown } | null> {
  const { boxId, delivery, edge } = beside;
  const watching = edge === null ? null : watchEdge(engine, boxId, edge.started);
  const delivering = delivery === null ? null : deliverCredentials(engine, delivery);
  // Each settles on its own; the edge's failure comes first.
  delivering?.catch(() => undefined);
  try {
    await watching;
    await delivering;
  } catch (error) {
    return { error };
  }
  if (delivery === null) return null;
  try {
    writeDeliveryReceipt(
      receiptsDir,
      launchHash,
      delivery.values.map((v) => v.key),
    );
  } catch (error) {
    // Only status's "delivered" line depends on it; the box has its credentials.
    const why = error instanceof Error ? error.message : String(error);
    warn(
      `the box got its credentials, but byre could not record that in ${receiptsDir} (${why}); byre status says NOT delivered for this session`,
    );
  }
  return null;
}
