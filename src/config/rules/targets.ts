// Two mounts or volumes binding the same path in the box.

import { normalizeTarget } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';
import { finding, q, type Finding } from './finding.js';

export interface TargetClaim {
  kind: 'mount' | 'volume';
  label: string;
  target: string;
}

/**
 * The label a mount claim carries. A disabled mount still claims its target:
 * switching it back on must not turn a coherent config into a colliding one.
 */
export function mountClaimLabel(target: string, disabled: boolean): string {
  return `${disabled ? 'disabled mount' : 'mount'} ${q(target)}`;
}

/** Pairs of claim indexes that bind the same path in the box. */
export function targetCollisions(claims: readonly TargetClaim[]): [number, number][] {
  const first = new Map<string, number>();
  const pairs: [number, number][] = [];
  claims.forEach((claim, i) => {
    const key = normalizeTarget(claim.target);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else pairs.push([earlier, i]);
  });
  return pairs;
}

export function targetCollisionMessage(a: TargetClaim, b: TargetClaim): string {
  return `${b.label} and ${a.label} both bind ${normalizeTarget(b.target)}`;
}

export const TARGET_COLLISION_FIX = 'give one of them a different target, or remove it';

export function checkTargetCollisions(layer: RawLayer): Finding[] {
  const claims: { claim: TargetClaim; path: PathSegment[] }[] = [];
  (layer.mounts ?? []).forEach((m, i) => {
    if (m.target === undefined || m.target.startsWith('!')) return;
    claims.push({
      claim: {
        kind: 'mount',
        label: mountClaimLabel(m.target, m.disabled === true),
        target: m.target,
      },
      path: ['mounts', i, 'target'],
    });
  });
  (layer.volumes ?? []).forEach((v, i) => {
    if (v.target === undefined || v.name?.startsWith('!') === true) return;
    claims.push({
      claim: { kind: 'volume', label: `volume ${q(v.name ?? '')}`, target: v.target },
      path: ['volumes', i, 'target'],
    });
  });
  return targetCollisions(claims.map((c) => c.claim)).map(([a, b]) => {
    const first = claims[a];
    const second = claims[b];
    return finding(
      'config.target-collision',
      second?.path ?? [],
      first && second ? targetCollisionMessage(first.claim, second.claim) : 'target collision',
      TARGET_COLLISION_FIX,
    );
  });
}
