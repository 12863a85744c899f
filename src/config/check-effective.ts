// Rules that only show once layers combine: two layers binding the same box
// path or the same host port, two files injecting credentials for one host. Pure; each issue is located in the file of the
// later entry, which is the one a user would change.

import type { ConfigIssue, Location } from '../errors.js';
import type { ContainmentRefusal } from '../project/containment.js';
import { indexKeys, type KeyIndex, type PathSegment } from './locate.js';
import { locateFinding } from './parse.js';
import { expandHostPath, normalizeTarget } from './grammar.js';
import { injectionConflicts } from './inject.js';
import {
  layerPortBindings,
  mountClaimLabel,
  PORT_COLLISION_FIX,
  portCollisionMessage,
  portCollisions,
  TARGET_COLLISION_FIX,
  targetCollisionMessage,
  targetCollisions,
  type TargetClaim,
} from './rules/index.js';
import type { RawLayer } from './schema.js';
import { q } from './rules/finding.js';
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

/** Finds where a layer's entry sits: the key path of it in that layer's raw table. */
export type PathIn = (raw: RawLayer) => PathSegment[];

/** Where a layer's entry is declared: file, line, column and key. */
export type ValueLocation = (from: LayerRef, path: PathIn) => Location;

/** Turns (layer, key path, problem) into an issue located by file, line, column and key. */
type LayerLocator = (
  from: LayerRef,
  path: PathIn,
  rule: string,
  message: string,
  fix: string,
) => ConfigIssue;

/** Locates entries of one layer by their identity in its raw table. */
export function valueLocation(layers: readonly CheckedLayer[]): ValueLocation {
  const indexes = new Map<CheckedLayer, KeyIndex>();
  return (from, path) => {
    const layer = layers.find((l) => sameRef(l.ref, from));
    const keyPath = layer ? path(layer.raw) : [];
    let index: KeyIndex = new Map();
    if (layer?.text !== undefined) {
      index = indexes.get(layer) ?? indexKeys(layer.text);
      indexes.set(layer, index);
    }
    return locateFinding({ rule: '', path: keyPath, message: '' }, fileLabel(from), index).location;
  };
}

export function layerLocator(where: ValueLocation): LayerLocator {
  return (from, path, rule, message, fix) => ({ rule, message, location: where(from, path), fix });
}

/** Where a merged mount was declared in its layer: the entry whose target it is. */
export function mountPath(target: string, key: 'host' | 'target'): PathIn {
  const wanted = normalizeTarget(target);
  return (raw) => {
    const mounts = raw.mounts ?? [];
    let index = -1;
    mounts.forEach((m, i) => {
      if (normalizeTarget(m.target ?? '') === wanted) index = i;
    });
    return ['mounts', index, key];
  };
}

/**
 * Enabled mounts whose host path does not exist, located at the `host` that
 * declared them: the engine would refuse them at launch with only its own
 * words. A disabled mount may name a missing path. `exists` is the caller's
 * IO (the path is already expanded against the user's home); adr/0022.
 */
export function checkMountHosts(
  config: EffectiveConfig,
  locate: LayerLocator,
  home: string,
  exists: (hostPath: string) => boolean,
): ConfigIssue[] {
  return config.mounts.flatMap(({ value: mount, from }) => {
    if (mount.disabled) return [];
    const expanded = expandHostPath(mount.host, home);
    if (expanded === null || exists(expanded)) return [];
    const shown = expanded === mount.host ? q(mount.host) : `${q(mount.host)} (${expanded})`;
    return [
      locate(
        from,
        mountPath(mount.target, 'host'),
        'config.mount-host-missing',
        `mount host ${shown} does not exist, so the box cannot bind it at ${mount.target}`,
        'create it, correct host, or set disabled = true to keep the entry without the bind',
      ),
    ];
  });
}

/**
 * Containment refusals (adr/0018) of the mounts and volume seeds a config
 * declares, located at the entry's `host` or `seed` in the layer that declared
 * it; one a skill brings is located at `file`. A refusal about the project
 * directory itself, or a path no declaration names, is not a config matter
 * and is left out.
 */
export function containmentIssues(
  config: EffectiveConfig,
  refusals: readonly ContainmentRefusal[],
  locate: LayerLocator,
  file: string,
): ConfigIssue[] {
  return refusals.flatMap((r) => {
    const declared = r.path?.declared;
    if (declared === undefined) return [];
    const at = (from: LayerRef | undefined, path: PathIn): ConfigIssue =>
      from === undefined
        ? { rule: r.rule, message: r.message, location: { file }, fix: r.remedy }
        : locate(from, path, r.rule, r.message, r.remedy);
    if ('mount' in declared) {
      const target = normalizeTarget(declared.mount);
      const mount = config.mounts.find((m) => normalizeTarget(m.value.target) === target);
      return [at(mount?.from, mountPath(declared.mount, 'host'))];
    }
    const volume = config.volumes.find((v) => v.value.name === declared.volume);
    return [
      at(volume?.from, (raw) => [
        'volumes',
        (raw.volumes ?? []).findIndex((v) => v.name === declared.volume),
        'seed',
      ]),
    ];
  });
}

/** Cross-layer collisions in a merged config; empty when the config is coherent. */
export function checkEffective(
  config: EffectiveConfig,
  layers: readonly CheckedLayer[],
): ConfigIssue[] {
  const locate = layerLocator(valueLocation(layers));
  const issues: ConfigIssue[] = [];

  const claims: { claim: TargetClaim; from: LayerRef; path: PathIn }[] = [];
  for (const mount of config.mounts) {
    const target = normalizeTarget(mount.value.target);
    claims.push({
      claim: {
        kind: 'mount',
        label: mountClaimLabel(mount.value.target, mount.value.disabled),
        target,
      },
      from: mount.from,
      path: mountPath(mount.value.target, 'target'),
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
          layerPortBindings(raw.ports ?? []).find(
            (e) => e.binding.container === container && e.binding.host === host,
          )?.index ?? -1,
        ],
        'config.port-collision',
        portCollisionMessage(port.value),
        PORT_COLLISION_FIX,
      ),
    );
  }

  // Two files' injections claiming one host: located in the later key's file (adr/0070).
  for (const f of injectionConflicts(config.injections)) {
    const key = f.path[1];
    const from = config.injections.find((i) => i.key === key)?.from;
    if (from === undefined) continue;
    issues.push(locate(from, () => f.path, f.rule, f.message, f.fix ?? ''));
  }
  return issues;
}
