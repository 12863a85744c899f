// The host side of a network posture: find the box by its per-invocation
// nonce, refuse a shared network namespace, then run the skill's netns init
// hook in a helper that shares ONLY the box's network namespace. Any failure
// stops the box: it must never run past its launch gate without the wall.

import { createHash, randomBytes } from 'node:crypto';
import { DROP_PRIVILEGES, NEVER_PULL, capAddFlags } from '../engine/argv.js';
import { helperName, LABEL } from '../gen/names.js';
import type { Engine } from '../engine/engine.js';

export interface NetnsPlan {
  nonce: string;
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
 * writes the namespace's rules; the hook needs nothing else (adr/0050).
 */
export const NETNS_HELPER_PRIVILEGES: readonly string[] = [
  ...DROP_PRIVILEGES,
  ...capAddFlags(['NET_ADMIN']),
];

/**
 * The wall's helper container for a box (by the box's container name): one
 * per box, so byre can read its event lines and remove it (adr/0064).
 */
export function wallHelperName(box: string): string {
  return helperName('netns', createHash('sha256').update(box).digest('hex').slice(0, 16));
}

/** The helper's run argv (pure). */
export function netnsHelperArgv(plan: NetnsPlan, boxId: string, name: string): string[] {
  const env = Object.keys(plan.env)
    .sort()
    .flatMap((k) => ['-e', `${k}=${plan.env[k] ?? ''}`]);
  return [
    'run',
    '--rm',
    NEVER_PULL,
    '--name',
    name,
    '-u',
    '0:0',
    '--net',
    `container:${boxId}`,
    ...NETNS_HELPER_PRIVILEGES,
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
  pollMs: number;
  helperMs: number;
}

export const NETNS_TIMEOUTS: NetnsTimeouts = { findMs: 120_000, pollMs: 200, helperMs: 600_000 };

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * The running box this invocation created, found by its `byre.run` nonce
 * label; null when it never showed up in time. Shared by the network wall
 * and credential delivery, which both act on the box from outside.
 */
export async function findBoxByNonce(
  engine: Engine,
  nonce: string,
  timeouts: Pick<NetnsTimeouts, 'findMs' | 'pollMs'> = NETNS_TIMEOUTS,
): Promise<string | null> {
  const deadline = Date.now() + timeouts.findMs;
  for (;;) {
    const boxId = (await engine.ps({ labels: { [LABEL.run]: nonce }, all: false }))[0];
    if (boxId !== undefined) return boxId;
    if (Date.now() > deadline) return null;
    await sleep(timeouts.pollMs);
  }
}

/**
 * Wall the box off. Resolves when the hook succeeded (it has opened the
 * gate); rejects with the reason otherwise, after stopping the box.
 */
export async function enforcePosture(
  engine: Engine,
  plan: NetnsPlan,
  timeouts: NetnsTimeouts = NETNS_TIMEOUTS,
): Promise<void> {
  const boxId = await findBoxByNonce(engine, plan.nonce, timeouts);
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
    const name = helperName('netns', randomBytes(8).toString('hex'));
    try {
      await engine.run(netnsHelperArgv(plan, boxId, name), { timeoutMs: timeouts.helperMs });
    } catch (error) {
      await engine.remove(name).catch(() => false);
      throw error;
    }
  } catch (error) {
    await stopBox();
    throw error;
  }
}
