// Rules for [[mounts]] entries.

import { CONTROL, isAbsolute, isHostPath } from '../grammar.js';
import type { PathSegment } from '../locate.js';
import type { RawLayer, RawMount } from '../schema.js';
import { finding, missing, q, removalExtras, type Finding } from './finding.js';

function checkMount(mount: RawMount, i: number): Finding[] {
  const path: PathSegment[] = ['mounts', i];
  const target = mount.target;
  if (target?.startsWith('!')) {
    const out = removalExtras(path, mount, 'target', 'mount');
    if (!isAbsolute(target.slice(1))) {
      out.push(
        finding(
          'config.mount-target-not-absolute',
          [...path, 'target'],
          `mount removal ${q(target)} must name an absolute target`,
          'write target = "!/path/in/box"',
        ),
      );
    }
    return out;
  }
  const out: Finding[] = [];
  if (mount.host === undefined) out.push(missing(path, 'host', 'a mount'));
  else if (!isHostPath(mount.host) || mount.host.includes(',') || CONTROL.test(mount.host)) {
    out.push(
      finding(
        'config.mount-host-invalid',
        [...path, 'host'],
        `mount host ${q(mount.host)} must be ~/… or an absolute path, with no comma`,
        'write host = "~/path" or host = "/absolute/path"',
      ),
    );
  }
  if (target === undefined) out.push(missing(path, 'target', 'a mount'));
  else if (!isAbsolute(target)) {
    out.push(
      finding(
        'config.mount-target-not-absolute',
        [...path, 'target'],
        `mount target ${q(target)} must be an absolute path in the box`,
        'write target = "/path/in/box"',
      ),
    );
  } else if (target.includes(',') || CONTROL.test(target)) {
    out.push(
      finding(
        'config.mount-target-invalid',
        [...path, 'target'],
        `mount target ${q(target)} must not contain a comma or control characters`,
        'rename the target path',
      ),
    );
  }
  if (mount.mode !== undefined && mount.mode !== 'ro' && mount.mode !== 'rw') {
    out.push(
      finding(
        'config.mount-mode-invalid',
        [...path, 'mode'],
        `mount mode ${q(mount.mode)} invalid (want ro|rw)`,
        'set mode = "ro" (the default) or "rw"',
      ),
    );
  }
  return out;
}

export function checkMounts(layer: RawLayer): Finding[] {
  return (layer.mounts ?? []).flatMap(checkMount);
}
