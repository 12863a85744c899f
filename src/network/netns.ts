// The host side of a network posture: refuse a shared network namespace,
// then run the skill's netns init hook in a helper that shares ONLY the
// box's network namespace (the box byre just created, by its id; the box
// still carries the reference's per-invocation `byre.run` nonce label).
// Any failure stops the box: it must never run past its launch gate
// without the wall.
// The helper stays up for the session (it runs the wall's resolver and
// prints its event lines, adr/0063): one per box, named for it, removed when
// the session ends.

import { createHash, randomBytes } from 'node:crypto';
import { DROP_PRIVILEGES, NEVER_PULL, capAddFlags } from '../engine/argv.js';
import { helperName, LABEL } from '../gen/names.js';
import { Writable } from 'node:stream';
import type { SessionRunner, StreamResult } from '../engine/engine.js';

export interface NetnsPlan {
  /** The box's container id, as its create returned it. */
  boxId: string;
  /** The box's project id: the helper's `byre.helper` label. */
  project: string;
  /** The box's container name; names its helper (wallHelperName). */
  box: string;
  /** The skill's netns_init path inside the image. */
  hook: string;
  image: string;
  /** The box's runtime env plus BYRE_EGRESS / BYRE_EGRESS_DENY. */
  env: Readonly<Record<string, string>>;
  /** Rootless podman: the helper joins the box's user namespace. */
  joinUserns: boolean;
  /** The box's edge helper's id, when the box joins its network (adr/0079): the one shared mode allowed. */
  edgeId?: string;
}

export function mintNonce(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The helper's privileges, here and in `byre ejectfirewall`'s script: NET_ADMIN
 * writes the namespace's rules and lets the resolver fill its sets;
 * NET_BIND_SERVICE, SETUID and SETGID let the resolver listen on port 53 and
 * then run as its own user, the one user whose DNS leaves the box (adr/0063).
 * Nothing else (adr/0050).
 */
export const NETNS_HELPER_PRIVILEGES: readonly string[] = [
  ...DROP_PRIVILEGES,
  ...capAddFlags(['NET_ADMIN', 'NET_BIND_SERVICE', 'SETGID', 'SETUID']),
];

/**
 * How long the engine waits for the helper to end on its stop signal before
 * it kills it: a second. The helper keeps nothing to flush (byre reads its
 * event lines before removing it), and podman's `rm -f` waits out this grace
 * (docker's kills at once), so a hook that ignores TERM as PID 1 would hold
 * up the end of every session by the engine's default ten. The bundled hook
 * ends on TERM at once.
 */
export const NETNS_HELPER_STOP: readonly string[] = ['--stop-timeout', '1'];

/**
 * The wall's helper container for a box (by the box's container name): one
 * per box, so byre can read its event lines and remove it (adr/0063).
 */
export function wallHelperName(box: string): string {
  return helperName('netns', createHash('sha256').update(box).digest('hex').slice(0, 16));
}

/** End the box's wall helper (stopped and removed); false when there was none. */
export async function endWall(engine: SessionRunner, box: string): Promise<boolean> {
  return engine.remove(wallHelperName(box)).catch(() => false);
}

/**
 * What every helper beside a box runs with (the wall's and the edge's):
 * never pulled, named for the box, root inside. The wall's runs on the box's
 * image, whose `byre.project` label every container inherits; a helper's is
 * emptied, so a census of the project's sessions (labels only) never counts
 * a helper as a box, and `byre.helper` names the project instead, for
 * forget, reset and doctor.
 */
export function helperIdentityFlags(name: string, project: string): string[] {
  return [
    NEVER_PULL,
    '--name',
    name,
    '--label',
    `${LABEL.project}=`,
    '--label',
    `${LABEL.helper}=${project}`,
    '-u',
    '0:0',
  ];
}

/** A helper that shares only the box's network namespace (the wall's). */
export function boxNetHelperFlags(name: string, boxId: string, project: string): string[] {
  return [...helperIdentityFlags(name, project), '--net', `container:${boxId}`];
}

/**
 * The helper's create argv (pure): made while the box starts, started
 * attached once it runs (startWall), so neither its create nor byre's
 * polls sit between the box's start and its gate.
 */
export function netnsHelperArgv(plan: NetnsPlan, name: string): string[] {
  const { boxId } = plan;
  const env = Object.keys(plan.env)
    .sort()
    .flatMap((k) => ['-e', `${k}=${plan.env[k] ?? ''}`]);
  return [
    'create',
    ...boxNetHelperFlags(name, boxId, plan.project),
    ...NETNS_HELPER_PRIVILEGES,
    ...NETNS_HELPER_STOP,
    '--entrypoint',
    plan.hook,
    ...(plan.joinUserns ? [`--userns=container:${boxId}`] : []),
    ...env,
    plan.image,
  ];
}

/**
 * Create a helper in the box's network: at once, and only when the engine
 * refuses (the name taken by a helper an earlier session of this box left,
 * byre killed) after removing that one. The usual launch, whose last
 * session removed its helpers, pays no removal before the create.
 */
export async function createHelper(
  engine: SessionRunner,
  name: string,
  argv: readonly string[],
): Promise<string> {
  try {
    return await engine.create(argv);
  } catch {
    await engine.remove(name).catch(() => false);
    return engine.create(argv);
  }
}

/** Network modes that share a namespace the wall would also wall (or not). */
export function sharedNetworkMode(mode: string): boolean {
  const m = mode.trim();
  return m === 'host' || m.startsWith('container:') || m.startsWith('ns:');
}

/** The box's network is its own edge's (adr/0079), which the wall walls with it. */
function ownEdge(mode: string, edgeId: string | undefined): boolean {
  return edgeId !== undefined && mode.trim() === `container:${edgeId}`;
}

export interface NetnsTimeouts {
  /** How long the created box may take to run. */
  findMs: number;
  /** Between looks at the created box until it runs. */
  startPollMs: number;
  /** How long the helper may take to open the gate (it waits for the box's entrypoint to knock). */
  helperMs: number;
}

export const NETNS_TIMEOUTS: NetnsTimeouts = {
  findMs: 120_000,
  startPollMs: 25,
  helperMs: 600_000,
};

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * Resolves once the box runs (its network namespace exists to be joined);
 * rejects when it is gone, or still not running at the deadline.
 */
export async function boxRunning(
  engine: SessionRunner,
  boxId: string,
  timeouts: Pick<NetnsTimeouts, 'findMs' | 'startPollMs'>,
): Promise<void> {
  const deadline = Date.now() + timeouts.findMs;
  for (;;) {
    const [facts] = await engine.inspectContainers([boxId]);
    if (facts?.running === true) return;
    if (facts === undefined || Date.now() > deadline) {
      throw new Error('the box never started, so its network was never walled');
    }
    await sleep(timeouts.startPollMs);
  }
}

/** What the hook prints on stderr once the box has passed its gate. */
export const GATE_OPENED = 'byre-firewall: gate opened';

/** Bytes of the helper's stderr kept: its last words, when it fails. */
const MAX_HELPER_STDERR = 16_384;

/** A helper's start, attached: `ended` settles when it ends (removed with the session, or failed). */
export interface AttachedHelper {
  ended: Promise<StreamResult | { error: unknown }>;
}

/**
 * How an attached helper's start went: ready (its ready signal came
 * first), ended (it exited before), or silent (neither within `ms`).
 */
export async function readyOrNot(
  ready: Promise<void>,
  ended: Promise<unknown>,
  ms: number,
): Promise<'ready' | 'ended' | 'silent'> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    ended.then(() => 'ended' as const),
    new Promise<'silent'>((resolve) => {
      timer = setTimeout(() => resolve('silent'), ms);
    }),
  ]);
  clearTimeout(timer);
  return outcome;
}

/**
 * Start the created helper attached: its stderr read as it comes, so the
 * gate's opening is seen at once (no polls of `inspect` and `logs`); its
 * event lines on stdout are the engine's to keep (byre reads them with
 * `logs`, adr/0064), so they are let go here. Resolves once its hook opened
 * the gate; rejects with the hook's own words when it exited first or never
 * got there.
 */
async function startWall(engine: SessionRunner, name: string, ms: number): Promise<AttachedHelper> {
  let stderr = '';
  let onGate = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    onGate = resolve;
  });
  const ended = engine
    .runStream(['start', '--attach', name], {
      stdout: new Writable({ write: (_chunk, _enc, done) => done() }),
      onStderr: (chunk) => {
        stderr = (stderr + chunk).slice(-MAX_HELPER_STDERR);
        if (stderr.includes(GATE_OPENED)) onGate();
      },
    })
    .catch((error: unknown) => ({ error }));
  const outcome = await readyOrNot(gate, ended, ms);
  if (outcome === 'ready') return { ended };
  const r = outcome === 'ended' ? await ended : null;
  if (r !== null && 'error' in r) {
    const cause = r.error instanceof Error ? r.error.message : String(r.error);
    throw new Error(`the wall's helper could not be started: ${cause}`);
  }
  const said = stderr.trim().split('\n').slice(-5).join('\n');
  const why = outcome === 'silent' ? 'never opened the gate' : 'exited';
  throw new Error(`the wall's helper ${why}${said === '' ? '' : `:\n${said}`}`);
}

/**
 * Wall the box off. Resolves when the hook succeeded (it has opened the
 * gate; its helper runs on, see endWall); rejects with the reason otherwise,
 * after removing the helper and stopping the box.
 *
 * What does not need the box running (its network mode, which is fixed at
 * create, a stale helper's removal and the helper's create) overlaps its
 * start, so the helper's start follows the box's as closely as the engine
 * tells it (issue 30's gate budget).
 */
export async function enforcePosture(
  engine: SessionRunner,
  plan: NetnsPlan,
  timeouts: NetnsTimeouts = NETNS_TIMEOUTS,
): Promise<void> {
  const { boxId } = plan;
  const name = wallHelperName(plan.box);
  // Made while the box starts (a container need not run for another to be
  // created in its namespace).
  const made = createHelper(engine, name, netnsHelperArgv(plan, name));
  const [mode, helper] = await Promise.allSettled([engine.networkMode(boxId), made]);
  try {
    if (mode.status === 'rejected') throw mode.reason;
    if (sharedNetworkMode(mode.value) && !ownEdge(mode.value, plan.edgeId)) {
      throw new Error(
        `the box shares a network namespace (${mode.value}), so byre cannot wall it off; remove the --network flag from run_args`,
      );
    }
    if (helper.status === 'rejected') throw helper.reason;
    await boxRunning(engine, boxId, timeouts);
    await startWall(engine, name, timeouts.helperMs);
  } catch (error) {
    await engine.remove(name).catch(() => false);
    await engine.stop(boxId, 2).catch(() => undefined);
    throw error;
  }
}
