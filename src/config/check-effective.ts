// Rules that only show once layers combine: two layers binding the same box
// path or the same host port. Pure; each issue is located in the file of the
// later entry, which is the one a user would change.

import type { ConfigIssue } from '../errors.js';
import { indexKeys, type KeyIndex, type PathSegment } from './locate.js';
import { locateFinding } from './parse.js';
import { normalizeTarget } from './grammar.js';
import {
  PORT_COLLISION_FIX,
  portCollisionMessage,
  portCollisions,
  TARGET_COLLISION_FIX,
  targetCollisionMessage,
  targetCollisions,
  type TargetClaim,
} from './rules/index.js';
import type { RawLayer } from './schema.js';
import type { EffectiveConfig, LayerRef } from './types.js';

export interface CheckedLayer {
  ref: LayerRef;
  raw: RawLayer;
  /** The file text, when there is one, to locate issues by line and column. */
  text?: string;
}

function sameRef(a: LayerRef, b: LayerRef): boolean {
  return a === b || (a.kind === b.kind && a.name === b.name && a.path === b.path);
}

function fileLabel(ref: LayerRef): string {
  return ref.path ?? `${ref.kind}:${ref.name}`;
}

/** Locates entries of one layer by their identity in its raw table. */
function locator(layers: readonly CheckedLayer[]) {
  const indexes = new Map<CheckedLayer, KeyIndex>();
  return (
    from: LayerRef,
    path: (raw: RawLayer) => PathSegment[],
    rule: string,
    message: string,
    fix: string,
  ): ConfigIssue => {
    const layer = layers.find((l) => sameRef(l.ref, from));
    const keyPath = layer ? path(layer.raw) : [];
    let index: KeyIndex = new Map();
    if (layer?.text !== undefined) {
      index = indexes.get(layer) ?? indexKeys(layer.text);
      indexes.set(layer, index);
    }
    return locateFinding({ rule, path: keyPath, message, fix }, fileLabel(from), index);
  };
}

/** Cross-layer collisions in a merged config; empty when the config is coherent. */
export function checkEffective(
  config: EffectiveConfig,
  layers: readonly CheckedLayer[],
): ConfigIssue[] {
  const locate = locator(layers);
  const issues: ConfigIssue[] = [];

  const claims: { claim: TargetClaim; from: LayerRef; path: (raw: RawLayer) => PathSegment[] }[] =
    [];
  for (const mount of config.mounts) {
    if (mount.value.disabled) continue;
    const target = normalizeTarget(mount.value.target);
    claims.push({
      claim: { kind: 'mount', label: `mount ${JSON.stringify(mount.value.target)}`, target },
      from: mount.from,
      path: (raw) => [
        'mounts',
        (raw.mounts ?? []).findIndex((m) => normalizeTarget(m.target ?? '') === target),
        'target',
      ],
    });
  }
  for (const volume of config.volumes) {
    const name = volume.value.name;
    claims.push({
      claim: {
        kind: 'volume',
        label: `volume ${JSON.stringify(name)}`,
        target: volume.value.target,
      },
      from: volume.from,
      path: (raw) => ['volumes', (raw.volumes ?? []).findIndex((v) => v.name === name), 'target'],
    });
  }
  for (const [a, b] of targetCollisions(claims.map((c) => c.claim))) {
    const first = claims[a];
    const second = claims[b];
    if (!first || !second) continue;
    issues.push(
      locate(
        second.from,
        second.path,
        'config.target-collision',
        targetCollisionMessage(first.claim, second.claim),
        TARGET_COLLISION_FIX,
      ),
    );
  }

  const ports = config.ports;
  for (const [, b] of portCollisions(ports.map((p) => p.value))) {
    const port = ports[b];
    if (!port) continue;
    const { container, host } = port.value;
    issues.push(
      locate(
        port.from,
        (raw) => [
          'ports',
          (raw.ports ?? []).findIndex((p) => p.container === container && (p.host ?? 0) === host),
        ],
        'config.port-collision',
        portCollisionMessage(port.value),
        PORT_COLLISION_FIX,
      ),
    );
  }
  return issues;
}
