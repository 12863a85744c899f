// Rules for [[ports]] entries and for two ports claiming one host port.

import { isCanonicalIPv4 } from '../address.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer, RawPort } from '../schema.js';
import { finding, missing, q, removalExtras, type Finding } from './finding.js';

export const DEFAULT_INTERFACE = '127.0.0.1';
const ANY_INTERFACE = '0.0.0.0';

function portRange(value: number, min: number, path: PathSegment[], what: string): Finding[] {
  if (value >= min && value <= 65535) return [];
  return [
    finding(
      'config.port-range',
      path,
      `${what} ${value} out of range (${min}-65535)`,
      min === 0 ? 'use 1-65535, or 0 to mirror the container port' : 'use a port from 1 to 65535',
    ),
  ];
}

function checkPort(port: RawPort, i: number): Finding[] {
  const path: PathSegment[] = ['ports', i];
  const out: Finding[] = [];
  if (port.container === undefined) out.push(missing(path, 'container', 'a port'));
  else out.push(...portRange(port.container, 1, [...path, 'container'], 'container port'));
  if (port.remove === true) {
    return [...out, ...removalExtras(path, port, 'container', 'port', ['remove'])];
  }
  if (port.host !== undefined) out.push(...portRange(port.host, 0, [...path, 'host'], 'host port'));
  if (port.interface !== undefined && !isCanonicalIPv4(port.interface)) {
    out.push(
      finding(
        'config.port-interface-invalid',
        [...path, 'interface'],
        `port interface ${q(port.interface)} must be a canonical IPv4 address`,
        'write it as four plain decimals, e.g. "127.0.0.1" or "0.0.0.0"',
      ),
    );
  }
  return out;
}

export function checkPorts(layer: RawLayer): Finding[] {
  return (layer.ports ?? []).flatMap(checkPort);
}

export interface PortBinding {
  container: number;
  host: number;
  interface: string;
}

/** Pairs of binding indexes that collide on one host port. */
export function portCollisions(bindings: readonly PortBinding[]): [number, number][] {
  const pairs: [number, number][] = [];
  const hostPort = (b: PortBinding): number => (b.host === 0 ? b.container : b.host);
  for (let a = 0; a < bindings.length; a++) {
    for (let b = a + 1; b < bindings.length; b++) {
      const x = bindings[a];
      const y = bindings[b];
      if (!x || !y || hostPort(x) !== hostPort(y)) continue;
      if (
        x.interface === y.interface ||
        x.interface === ANY_INTERFACE ||
        y.interface === ANY_INTERFACE
      ) {
        pairs.push([a, b]);
      }
    }
  }
  return pairs;
}

export function portCollisionMessage(binding: PortBinding): string {
  const host = binding.host === 0 ? binding.container : binding.host;
  return `port ${binding.container}: host port ${host} on ${binding.interface} is already bound by another port entry`;
}

export const PORT_COLLISION_FIX =
  'give one of them a different host port; 0.0.0.0 already covers every interface';

/**
 * The bindings one layer leaves once its own entries are applied in order
 * (the last binding of a container port wins; a remove drops it), each with
 * the index of the entry that made it.
 */
export function layerPortBindings(
  ports: readonly RawPort[],
): { binding: PortBinding; index: number }[] {
  let out: { binding: PortBinding; index: number }[] = [];
  ports.forEach((p, index) => {
    if (p.container === undefined) return;
    out = out.filter((e) => e.binding.container !== p.container);
    if (p.remove === true) return;
    out.push({
      binding: {
        container: p.container,
        host: p.host ?? 0,
        interface: p.interface ?? DEFAULT_INTERFACE,
      },
      index,
    });
  });
  return out;
}

export function checkPortCollisions(layer: RawLayer): Finding[] {
  const effective = layerPortBindings(layer.ports ?? []);
  const bindings = effective.map((e) => e.binding);
  return portCollisions(bindings).map(([, b]) => {
    const entry = effective[b];
    return finding(
      'config.port-collision',
      ['ports', entry?.index ?? 0],
      entry ? portCollisionMessage(entry.binding) : 'port collision',
      PORT_COLLISION_FIX,
    );
  });
}
