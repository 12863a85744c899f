// Rules for [[volumes]] entries and their seeds.

import { CONTROL, isAbsolute, isContainedRelative, isHostPath, VOLUME_NAME } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer, RawVolume } from '../schema.js';
import { enumFinding, finding, missing, q, removalExtras, type Finding } from './finding.js';

function checkSeed(volume: RawVolume, path: PathSegment[]): Finding[] {
  const seed = volume.seed;
  if (seed === undefined) return [];
  const seedPath = [...path, 'seed'];
  if (volume.scope === 'machine') {
    return [
      finding(
        'config.volume-seed-on-machine',
        seedPath,
        `volume ${q(volume.name ?? '')}: a machine-scoped volume cannot be seeded`,
        'remove [seed], or make the volume scope = "project"',
      ),
    ];
  }
  if (volume.role !== 'state') {
    return [
      finding(
        'config.volume-seed-not-state',
        seedPath,
        `volume ${q(volume.name ?? '')}: only state volumes can be seeded`,
        'remove [seed], or set role = "state"',
      ),
    ];
  }
  const invalid = (message: string, key?: string): Finding[] => [
    finding(
      'config.volume-seed-invalid',
      key === undefined ? seedPath : [...seedPath, key],
      `volume ${q(volume.name ?? '')}: ${message}`,
      'seed with host = "~/dir", or literal = "…" plus a relative path = "file"',
    ),
  ];
  if ((seed.host === undefined) === (seed.literal === undefined)) {
    return invalid('a seed sets exactly one of host and literal');
  }
  if (seed.host !== undefined) {
    if (seed.path !== undefined) return invalid('path goes with literal, not host', 'path');
    return isHostPath(seed.host) ? [] : invalid('seed host must be ~/… or absolute', 'host');
  }
  if (seed.path === undefined || !isContainedRelative(seed.path)) {
    return invalid('a literal seed needs a relative path inside the volume', 'path');
  }
  return [];
}

function checkVolume(volume: RawVolume, i: number): Finding[] {
  const path: PathSegment[] = ['volumes', i];
  const name = volume.name;
  if (name === undefined) return [missing(path, 'name', 'a volume')];
  if (name.startsWith('!')) {
    const out = removalExtras(path, volume, 'name', 'volume');
    return VOLUME_NAME.test(name.slice(1)) ? out : [...out, volumeNameFinding(path, name)];
  }
  const out: Finding[] = [];
  if (!VOLUME_NAME.test(name)) out.push(volumeNameFinding(path, name));
  if (volume.role === undefined) out.push(missing(path, 'role', `volume ${q(name)}`));
  else
    out.push(
      ...enumFinding('config.volume-role-invalid', [...path, 'role'], 'volume role', volume.role, [
        'cache',
        'state',
      ]),
    );
  if (volume.target === undefined) out.push(missing(path, 'target', `volume ${q(name)}`));
  else if (
    !isAbsolute(volume.target) ||
    volume.target.includes(',') ||
    CONTROL.test(volume.target)
  ) {
    out.push(
      finding(
        'config.volume-target-not-absolute',
        [...path, 'target'],
        `volume ${q(name)}: target ${q(volume.target)} must be an absolute path with no comma`,
        'write target = "/path/in/box"',
      ),
    );
  }
  if (volume.scope !== undefined) {
    out.push(
      ...enumFinding(
        'config.volume-scope-invalid',
        [...path, 'scope'],
        'volume scope',
        volume.scope,
        ['project', 'machine'],
      ),
    );
  }
  if (volume.sharing !== undefined) {
    out.push(
      ...enumFinding(
        'config.volume-sharing-invalid',
        [...path, 'sharing'],
        'volume sharing',
        volume.sharing,
        ['shared', 'exclusive'],
      ),
    );
  }
  if (volume.scope === 'machine' && volume.sharing === 'exclusive') {
    out.push(
      finding(
        'config.volume-exclusive-on-machine',
        [...path, 'sharing'],
        `volume ${q(name)}: a machine-scoped volume cannot be exclusive`,
        'use sharing = "shared", or scope = "project"',
      ),
    );
  }
  out.push(...checkSeed(volume, path));
  return out;
}

function volumeNameFinding(path: PathSegment[], name: string): Finding {
  return finding(
    'config.volume-name-invalid',
    [...path, 'name'],
    `volume name ${q(name)} invalid`,
    'use letters, digits, ".", "_" and "-"',
  );
}

export function checkVolumes(layer: RawLayer): Finding[] {
  const out = (layer.volumes ?? []).flatMap(checkVolume);
  const seen = new Set<string>();
  (layer.volumes ?? []).forEach((volume, i) => {
    const name = volume.name;
    if (name === undefined || name.startsWith('!')) return;
    if (seen.has(name)) {
      out.push(
        finding(
          'config.volume-duplicate',
          ['volumes', i, 'name'],
          `volume ${q(name)} is declared twice in this file`,
          'keep one declaration',
        ),
      );
    }
    seen.add(name);
  });
  return out;
}
