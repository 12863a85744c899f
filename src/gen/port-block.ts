// Host ports for parallel sessions of one project (adr/0034): the main
// worktree publishes the configured host ports; a linked worktree's session
// publishes each of them shifted into its own block, chosen from its worktree
// id and moved past any block whose ports are taken. Pure: whether a port is
// taken, and by whom, is asked through an injected function.

import { createHash } from 'node:crypto';
import type { PortSpec } from '../config/types.js';

/** Block n shifts every host port by n × STRIDE, so the last two digits stay. */
const PORT_BLOCK_STRIDE = 100;
/** Blocks 1..COUNT: a shift of at most 10,000. */
export const PORT_BLOCK_COUNT = 100;
const MAX_PORT = 65535;

/** A published port with its host side resolved (`host = 0` mirrors the container port). */
export interface HostPort {
  interface: string;
  host: number;
  container: number;
}

export type PortChoice =
  | {
      kind: 'ok';
      ports: HostPort[];
      /** The linked worktree's block; null for the main worktree (configured ports). */
      block: number | null;
    }
  | {
      kind: 'collision';
      /** The port that cannot be had, as `interface:host`. */
      port: string;
      /** Who holds it, in words; null when no block fits inside 1..65535 at all. */
      holder: string | null;
      block: number | null;
    };

/** Who holds `interface:port` on this host right now, or null when it is free. */
export type PortHolder = (iface: string, port: number) => Promise<string | null>;

function resolveHostPorts(ports: readonly PortSpec[]): HostPort[] {
  return ports.map((p) => ({
    interface: p.interface,
    host: p.host === 0 ? p.container : p.host,
    container: p.container,
  }));
}

/** The block a worktree tries first: 1 + (the first 32 bits of sha256(id)) mod COUNT. */
function firstBlock(worktreeId: string): number {
  const digest = createHash('sha256').update(worktreeId, 'utf8').digest();
  return 1 + (digest.readUInt32BE(0) % PORT_BLOCK_COUNT);
}

/** Every block once, starting at the worktree's own and wrapping. */
function blockOrder(worktreeId: string): number[] {
  const start = firstBlock(worktreeId);
  return Array.from(
    { length: PORT_BLOCK_COUNT },
    (_, i) => ((start - 1 + i) % PORT_BLOCK_COUNT) + 1,
  );
}

function shiftPorts(ports: readonly HostPort[], block: number): HostPort[] {
  return ports.map((p) => ({ ...p, host: p.host + block * PORT_BLOCK_STRIDE }));
}

const key = (p: HostPort): string => `${p.interface}:${p.host}`;

/** The first port of `ports` someone holds, with the holder. */
async function firstHeld(
  ports: readonly HostPort[],
  holderOf: PortHolder,
): Promise<{ port: HostPort; holder: string } | null> {
  for (const p of ports) {
    const holder = await holderOf(p.interface, p.host);
    if (holder !== null) return { port: p, holder };
  }
  return null;
}

/**
 * The host ports a session publishes. The main worktree keeps the configured
 * ones and refuses when one is held. A linked worktree takes the first block,
 * in blockOrder, whose every port stays within 1..65535, avoids every
 * configured host port (so the main worktree can always start) and is free;
 * when none is, it refuses naming the holder in its own first block.
 */
export async function choosePorts(input: {
  ports: readonly PortSpec[];
  linked: boolean;
  worktreeId: string;
  holderOf: PortHolder;
}): Promise<PortChoice> {
  const configured = resolveHostPorts(input.ports);
  if (configured.length === 0) return { kind: 'ok', ports: [], block: null };
  if (!input.linked) {
    const held = await firstHeld(configured, input.holderOf);
    return held === null
      ? { kind: 'ok', ports: configured, block: null }
      : { kind: 'collision', port: key(held.port), holder: held.holder, block: null };
  }
  const reserved = new Set(configured.map((p) => p.host));
  let first: { port: string; holder: string | null; block: number } | null = null;
  for (const block of blockOrder(input.worktreeId)) {
    const shifted = shiftPorts(configured, block);
    const outside = shifted.find((p) => p.host > MAX_PORT || reserved.has(p.host));
    if (outside !== undefined) continue;
    const held = await firstHeld(shifted, input.holderOf);
    if (held === null) return { kind: 'ok', ports: shifted, block };
    first ??= { port: key(held.port), holder: held.holder, block };
  }
  return first === null
    ? { kind: 'collision', port: key(configured[0] as HostPort), holder: null, block: null }
    : { kind: 'collision', ...first };
}
