// The host side of a network posture: find the box by its per-invocation
// nonce, refuse a shared network namespace, then run the skill's netns init
// hook in a helper that shares ONLY the box's network namespace. Any failure
// stops the box: it must never run past its launch gate without the wall.
// The helper stays up for the session (it runs the wall's resolver and
// prints its event lines, adr/0063): one per box, named for it, removed when
// the session ends.

import { createHash, randomBytes } from 'node:crypto';
import { DROP_PRIVILEGES, NEVER_PULL, capAddFlags } from '../engine/argv.js';
import { helperName, LABEL } from '../gen/names.js';
import type { SessionRunner } from '../engine/engine.js';

export interface NetnsPlan {
  nonce: string;
  /** The box's container name; names its helper (wallHelperName). */
  box: string;
  /** The skill's netns_init path inside the image. */
  hook: string;
  image: string;
  /** The box's runtime env plus BYRE_EGRESS / BYRE_EGRESS_DENY. */
  env: Readonly<Record<string, string>>;
  /** Rootless podman: the helper joins the box's user namespace. */
  joinUserns: boolean;
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
 * What every helper in the box's network namespace runs with (the wall's
 * and the edge's): never pulled, named for the box, root inside, sharing
 * only the box's network. It runs on the box's image, whose `byre.project`
 * label every container inherits; the helper's is emptied, so a census of
 * the project's sessions (labels only) never counts a helper as a box.
 */
export function boxNetHelperFlags(name: string, boxId: string): string[] {
  return [
    NEVER_PULL,
    '--name',
    name,
    '--label',
    `${LABEL.project}=`,
    '-u',
    '0:0',
    '--net',
    `container:${boxId}`,
  ];
}

/** The helper's run argv (pure): detached, it outlives this call. */
export function netnsHelperArgv(plan: NetnsPlan, boxId: string, name: string): string[] {
  const env = Object.keys(plan.env)
    .sort()
    .flatMap((k) => ['-e', `${k}=${plan.env[k] ?? ''}`]);
  return [
    'run',
    '-d',
    ...boxNetHelperFlags(name, boxId),
    ...NETNS_HELPER_PRIVILEGES,
    ...NETNS_HELPER_STOP,
    '--entrypoint',
    plan.hook,
    ...(plan.joinUserns ? [`--userns=container:${boxId}`] : []),
    ...env,
    plan.image,
  ];
}

/** Network modes that share a namespace the wall would also wall (or not). */
export function sharedNetworkMode(mode: string): boolean {
  const m = mode.trim();
  return m === 'host' || m.startsWith('container:') || m.startsWith('ns:');
}

export interface NetnsTimeouts {
  findMs: number;
  /** Between looks for the running box by its nonce (credential delivery). */
  pollMs: number;
  /** Between looks at the created box until it runs (the wall's start). */
  startPollMs: number;
  helperMs: number;
  /** Between looks at the helper until its hook opened the gate. */
  helperPollMs: number;
}

export const NETNS_TIMEOUTS: NetnsTimeouts = {
  findMs: 120_000,
  pollMs: 200,
  startPollMs: 25,
  helperMs: 600_000,
  helperPollMs: 200,
};

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * The box this invocation created, found by its `byre.run` nonce label;
 * null when it never showed up in time. Running only, unless `created`
 * (a box not started yet counts). Shared by the network wall and
 * credential delivery, which both act on the box from outside.
 */
export async function findBoxByNonce(
  engine: SessionRunner,
  nonce: string,
  timeouts: Pick<NetnsTimeouts, 'findMs' | 'pollMs'> = NETNS_TIMEOUTS,
  created = false,
): Promise<string | null> {
  const deadline = Date.now() + timeouts.findMs;
  for (;;) {
    const boxId = (await engine.ps({ labels: { [LABEL.run]: nonce }, all: created }))[0];
    if (boxId !== undefined) return boxId;
    if (Date.now() > deadline) return null;
    await sleep(timeouts.pollMs);
  }
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

/**
 * The box this invocation created, once it runs: found as created, which
 * overlaps its start, then looked at every `startPollMs` until it runs (a
 * `ps` every `pollMs` would add half that to every launch); null when it
 * never showed up or never ran in time.
 */
export async function findRunningBox(
  engine: SessionRunner,
  nonce: string,
  timeouts: Pick<NetnsTimeouts, 'findMs' | 'pollMs' | 'startPollMs'> = NETNS_TIMEOUTS,
): Promise<string | null> {
  const boxId = await findBoxByNonce(engine, nonce, timeouts, true);
  if (boxId === null) return null;
  return boxRunning(engine, boxId, timeouts).then(
    () => boxId,
    () => null,
  );
}

/** What the hook prints on stderr once the box has passed its gate. */
export const GATE_OPENED = 'byre-firewall: gate opened';

/**
 * Wait for the detached helper: resolves once its hook has opened the gate;
 * rejects with the hook's own words when it exited first or never got there.
 */
async function helperReady(
  engine: SessionRunner,
  name: string,
  timeouts: Pick<NetnsTimeouts, 'helperPollMs' | 'helperMs'>,
): Promise<void> {
  const deadline = Date.now() + timeouts.helperMs;
  for (;;) {
    const [facts] = await engine.inspectContainers([name]);
    const out = await engine.logs(name);
    if (out?.stderr.includes(GATE_OPENED) === true) return;
    if (facts === undefined || !facts.running || Date.now() > deadline) {
      const said = (out?.stderr ?? '').trim().split('\n').slice(-5).join('\n');
      const why = facts?.running === true ? 'never opened the gate' : 'exited';
      throw new Error(`the wall's helper ${why}${said === '' ? '' : `:\n${said}`}`);
    }
    await sleep(timeouts.helperPollMs);
  }
}

/**
 * Wall the box off. Resolves when the hook succeeded (it has opened the
 * gate; its helper runs on, see endWall); rejects with the reason otherwise,
 * after removing the helper and stopping the box.
 *
 * What does not need the box running (finding it as created, its network
 * mode, which is fixed at create, and a stale helper's removal) overlaps its
 * start, so the helper's `run` follows the box's start as closely as the
 * engine tells it (issue 30's gate budget).
 */
export async function enforcePosture(
  engine: SessionRunner,
  plan: NetnsPlan,
  timeouts: NetnsTimeouts = NETNS_TIMEOUTS,
): Promise<void> {
  const name = wallHelperName(plan.box);
  // A helper left by an earlier session of this box (byre killed) goes first.
  const [boxId] = await Promise.all([
    findBoxByNonce(engine, plan.nonce, timeouts, true),
    engine.remove(name).catch(() => false),
  ]);
  if (boxId === null) throw new Error('the box never started, so its network was never walled');
  const stopBox = async (): Promise<void> => {
    await engine.stop(boxId, 2).catch(() => undefined);
  };
  try {
    const mode = await engine.networkMode(boxId);
    if (sharedNetworkMode(mode)) {
      throw new Error(
        `the box shares a network namespace (${mode}), so byre cannot wall it off; remove the --network flag from run_args`,
      );
    }
    await boxRunning(engine, boxId, timeouts);
    try {
      await engine.run(netnsHelperArgv(plan, boxId, name), { timeoutMs: timeouts.helperMs });
      await helperReady(engine, name, timeouts);
    } catch (error) {
      await engine.remove(name).catch(() => false);
      throw error;
    }
  } catch (error) {
    await stopBox();
    throw error;
  }
}
