// The launch banner develop prints on stderr before the box starts: what the
// box is exposed to, in one line, and its network posture. Pure.

import type { EffectiveConfig } from '../config/types.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function exposureLines(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  hostEnv: readonly HostEnvEntry[],
): string[] {
  const mounts = [...config.mounts.map((m) => m.value), ...skills.flatMap((s) => s.runtime.mounts)];
  const disabled = mounts.filter((m) => m.disabled).length;
  const active = mounts.length - disabled;
  const delivered = hostEnv.filter((e) => e.state === 'delivered').length;
  const mountText = `${plural(active, 'host mount')}${disabled > 0 ? ` (+${disabled} disabled)` : ''}`;
  const posture = skills.find((s) => s.runtime.networkPosture !== null);
  return [
    `byre: exposure: /workspace rw · ${mountText} · ${plural(config.ports.length, 'port')} · ${plural(delivered, 'env var')}`,
    posture === undefined
      ? 'byre: network open'
      : `byre: network ${posture.runtime.networkPosture ?? ''}  (skill: ${posture.id})`,
  ];
}
