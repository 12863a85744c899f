// The host ports this session publishes (adr/0034): the pure block choice
// (gen/port-block.ts) asked about ports that this project's other boxes hold
// (from their verified launch records, so a sibling created but not yet
// started counts) and about ports the host itself holds (a listen probe).

import { RefusedError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import { readLaunchRecordFile, verifyLaunchRecord } from '../launch/verify.js';
import type { PortSpec } from '../config/types.js';
import {
  PORT_BLOCK_COUNT,
  choosePorts,
  type HostPort,
  type PortChoice,
  type PortHolder,
} from '../gen/port-block.js';
import { hostPortHolder } from '../host/port-probe.js';

/** A box of this project (another worktree's session) and the ports its record says it publishes. */
export interface SiblingPorts {
  id: string;
  /** The worktree directory the box was started in. */
  workdir: string;
  ports: readonly HostPort[];
}

/** The ports each box's verified launch record names; a box without one is left to the host probe. */
export function siblingPortsFrom(
  boxes: readonly { id: string; labels: Readonly<Record<string, string>> }[],
  launchesDir: string,
): SiblingPorts[] {
  return boxes.flatMap((box) => {
    const state = verifyLaunchRecord(box.labels[LABEL.launch], (hash) =>
      readLaunchRecordFile(launchesDir, hash),
    );
    if (state.kind !== 'verified') return [];
    const r = state.record;
    return [{ id: box.id, workdir: r.binds[0]?.host ?? r.workdir, ports: r.ports }];
  });
}

const WILDCARD = '0.0.0.0';

/** A sibling's port clashes on the same interface, or when either side is the wildcard. */
function siblingHolder(siblings: readonly SiblingPorts[]): PortHolder {
  return (iface, port) => {
    for (const s of siblings) {
      const hit = s.ports.find(
        (p) =>
          p.host === port &&
          (p.interface === iface || p.interface === WILDCARD || iface === WILDCARD),
      );
      if (hit !== undefined) {
        return Promise.resolve(`the session of worktree ${s.workdir} (box ${s.id.slice(0, 12)})`);
      }
    }
    return Promise.resolve(null);
  };
}

export async function planPorts(input: {
  ports: readonly PortSpec[];
  linked: boolean;
  worktreeId: string;
  siblings: readonly SiblingPorts[];
  /** The host probe; tests inject their own. */
  hostHolder?: PortHolder;
}): Promise<PortChoice> {
  const fromSiblings = siblingHolder(input.siblings);
  const fromHost = input.hostHolder ?? hostPortHolder;
  return choosePorts({
    ports: input.ports,
    linked: input.linked,
    worktreeId: input.worktreeId,
    holderOf: async (iface, port) =>
      (await fromSiblings(iface, port)) ?? (await fromHost(iface, port)),
  });
}

/** The refusal for a port choice that found no free ports; null when it did. */
export function portRefusal(choice: PortChoice): RefusedError | null {
  if (choice.kind === 'ok') return null;
  if (choice.block === null && choice.holder !== null) {
    return new RefusedError(`host port ${choice.port} is held by ${choice.holder}`, {
      rule: 'develop.port-held',
      remedy:
        'stop what holds it, or give that port another `host` in the config (byre status shows the ports)',
    });
  }
  if (choice.holder === null) {
    return new RefusedError(
      `no port block of this worktree fits its ports below 65536 (from ${choice.port})`,
      {
        rule: 'develop.port-blocks-exhausted',
        remedy:
          'publish lower host ports in the config, or run this session from the main worktree',
      },
    );
  }
  return new RefusedError(
    `every one of the ${PORT_BLOCK_COUNT} port blocks for this worktree is taken; its own block ${choice.block} has ${choice.port} held by ${choice.holder}`,
    {
      rule: 'develop.port-blocks-exhausted',
      remedy: 'stop some of this project’s other sessions, or free that port',
    },
  );
}

/** "127.0.0.1:3400 -> 3000" for the banner and notes. */
export function portMappingText(ports: readonly HostPort[]): string {
  return ports.map((p) => `${p.interface}:${p.host} -> ${p.container}`).join(', ');
}
