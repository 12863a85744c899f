// The exposure summary: how much of the host one box reaches, in counts, read
// off the grant facts status shows. develop's banner and the config editor's
// header both print it, so neither can disagree with `byre status`. Pure.

import type { GrantFacts } from './model.js';
import { ALLOWLIST_POSTURE } from './network.js';
import { networkValue, plural } from './rows.js';

export interface ExposureSummary {
  /** Enabled host mounts (config, skills and worktree binds, and raw run_args binds). */
  hostMounts: number;
  /** Of those, the binds raw run_args make. */
  rawMounts: number;
  /** Mounts kept in the config but binding nothing. */
  disabledMounts: number;
  /** Published ports, raw run_args publishes included. */
  ports: number;
  rawPorts: number;
  /** Host env values that cross into the box. */
  envVars: number;
  /** Sealed credentials delivered onto the session tmpfs. */
  credentials: number;
  /** The Network row of status, verbatim. */
  network: string;
  /**
   * Hosts the allowlist opens (closed ones excluded); null without an
   * allowlist, where no egress entry is a grant and a count would read as one.
   */
  egress: number | null;
}

export function exposureSummary(facts: GrantFacts): ExposureSummary {
  const disabled = facts.binds.filter((b) => b.disabled).length;
  const rawMounts = facts.raw_run_args.filter((r) => r.mount !== null).length;
  const rawPorts = facts.raw_run_args.filter((r) => r.port !== null).length;
  return {
    hostMounts: facts.binds.length - disabled + rawMounts,
    rawMounts,
    disabledMounts: disabled,
    ports: facts.ports.length + rawPorts,
    rawPorts,
    envVars: facts.host_env.filter((e) => e.state === 'delivered').length,
    credentials: facts.credentials.filter((c) => c.state !== 'overridden').length,
    network: networkValue(facts.network),
    egress:
      facts.network.posture === ALLOWLIST_POSTURE
        ? facts.network.egress.filter((e) => e.closed_by === null).length
        : null,
  };
}

/** `/workspace rw`, the mounts, ports and env vars: the banner's exposure line, as parts. */
export function exposureParts(s: ExposureSummary): string[] {
  const raw = (n: number): string => (n > 0 ? ` (${n} via run_args)` : '');
  const mounts = `${plural(s.hostMounts, 'host mount')}${raw(s.rawMounts)}${s.disabledMounts > 0 ? ` (+${s.disabledMounts} disabled)` : ''}`;
  return [
    '/workspace rw',
    mounts,
    `${plural(s.ports, 'port')}${raw(s.rawPorts)}`,
    plural(s.envVars, 'env var'),
    ...(s.credentials === 0 ? [] : [plural(s.credentials, 'credential')]),
  ];
}
