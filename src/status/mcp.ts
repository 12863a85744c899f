// The MCP rows' facts: for each server of the effective set (status/wiring.ts),
// whether each env var it consumes is set in the box, whether the hosts a
// server needs can be reached at all under the box's network, the extra hosts
// it declares, and when what it reaches is unknown. Pure.

import type { McpSpec } from '../config/types.js';
import { parseEgressEntry } from '../config/egress-entry.js';
import { CHASSIS_ENV } from '../gen/run-argv.js';
import { mcpEgress, parseRecordedEgress } from '../gen/allowlist.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { StatusData } from './data-schema.js';
import { ALLOWLIST_POSTURE, DENYLIST_POSTURE } from './network.js';

type McpRow = StatusData['mcp_servers'][number];
type EnvFact = McpRow['env'][number];

/** `${VAR}` references in header values: expanded from the box env at launch. */
function headerVars(headers: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const value of Object.values(headers)) {
    for (const m of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      const name = m[1] ?? '';
      if (!out.includes(name)) out.push(name);
    }
  }
  return out;
}

/** The env names a server consumes: its `env` list, then header variables. */
function consumedEnv(spec: Pick<McpSpec, 'env' | 'headers'>): string[] {
  const out = [...spec.env];
  for (const v of headerVars(spec.headers)) if (!out.includes(v)) out.push(v);
  return out;
}

interface EnvSources {
  hostEnv: StatusData['host_env'];
  credentials: StatusData['credentials'];
  /** `[env]` keys: baked into the image. */
  configEnv: ReadonlySet<string>;
  skills: readonly ResolvedSkill[];
  /**
   * The running box's `-e` keys from its verified launch record, or null when
   * the page describes the next launch: an env_from_host or skill value the
   * config provides now reached a running box only if it was passed at launch.
   */
  boxEnvKeys: ReadonlySet<string> | null;
}

/** A `-e` provider the running box did not get, or one it got that config no longer names. */
function atLaunch(key: string, provider: string | null, src: EnvSources): EnvFact | null {
  if (src.boxEnvKeys === null) return null;
  const passed = src.boxEnvKeys.has(key);
  if (provider !== null && !passed && src.configEnv.has(key)) {
    return { key, provided_by: '[env]', missing: null };
  }
  if (provider !== null && !passed) {
    return {
      key,
      provided_by: null,
      missing: `not passed to this box at launch (${provider} sets it now: the next develop passes it)`,
    };
  }
  if (provider === null && passed && !src.configEnv.has(key)) {
    return {
      key,
      provided_by: "the box's launch env (the next develop would not pass it)",
      missing: null,
    };
  }
  return null;
}

/**
 * Who sets `key` in the box, in the order the box sees it: a credential is
 * exported by the launcher over everything; a delivered env_from_host value
 * and a skill's env arrive as `-e` (host beats skill) and override the
 * image's baked `[env]`. When nothing does, say why.
 */
function envFact(key: string, src: EnvSources): EnvFact {
  const credential = src.credentials.find((c) => c.key === key && c.state !== 'overridden');
  if (credential?.state === 'not_delivered') {
    return { key, provided_by: null, missing: 'its credential was NOT delivered to this box' };
  }
  if (credential !== undefined) {
    return {
      key,
      provided_by: `${credential.kind ?? 'credential'} credential (${credential.layer})`,
      missing: null,
    };
  }
  if ((CHASSIS_ENV as readonly string[]).includes(key)) {
    return { key, provided_by: 'byre (every box)', missing: null };
  }
  const host = src.hostEnv.find((e) => e.key === key);
  const skill = src.skills.find((s) => Object.hasOwn(s.runtime.env, key));
  const passedBy =
    host?.state === 'delivered'
      ? `env_from_host ${host.source}`
      : skill !== undefined
        ? `skill ${skill.id}`
        : null;
  // The box's -e set overrides the image's baked [env]: a running box is asked first.
  const launched = atLaunch(key, passedBy, src);
  if (launched !== null) return launched;
  if (passedBy !== null) return { key, provided_by: passedBy, missing: null };
  if (src.configEnv.has(key)) return { key, provided_by: '[env]', missing: null };
  if (host?.state === 'empty') {
    return {
      key,
      provided_by: null,
      missing: `env_from_host ${host.source} is empty on this host`,
    };
  }
  return {
    key,
    provided_by: null,
    missing: 'nothing sets it; add it to env_from_host or [env]',
  };
}

/** Why the firewall stops one host a server needs (`what` names it), or null when it does not. */
function hostShut(
  what: string,
  target: { host: string; port: number },
  network: StatusData['network'],
): string | null {
  const { host, port } = target;
  const closure = network.closed.find((c) => {
    const closed = parseRecordedEgress(c.entry.replace(/^!/, ''));
    return closed.host === host && (closed.port === null || closed.port === port);
  });
  if (network.posture === ALLOWLIST_POSTURE) {
    const open = network.egress.some(
      (e) => e.host === host && e.port === port && e.closed_by === null,
    );
    if (open) return null;
    return closure === undefined
      ? `${what} is not in the allowlist`
      : `${what} is closed by ${closure.source}'s '${closure.entry}' under the allowlist`;
  }
  if (network.posture === DENYLIST_POSTURE && closure !== undefined) {
    return `${what} is blocked by ${closure.source}'s '${closure.entry}'`;
  }
  return null;
}

/**
 * Why a server cannot work here: a host it needs — a remote server's own
 * endpoint, or a host it declares in `egress` (a stdio server's API) — is
 * shut by the box's firewall. Every shut host is named.
 */
function reachShut(
  spec: Pick<McpSpec, 'url' | 'egress'>,
  network: StatusData['network'],
): string | null {
  const endpoint = spec.url === undefined ? [] : mcpEgress({ url: spec.url, egress: [] });
  const needs = [
    ...endpoint.map((text) => ({ what: `its endpoint ${text}`, text })),
    ...spec.egress.flatMap((raw) => {
      const parsed = parseEgressEntry(raw);
      if (!parsed.ok || parsed.closure || parsed.entry.port === null) return [];
      const text = `${parsed.entry.host}:${parsed.entry.port}`;
      return endpoint.includes(text) ? [] : [{ what: `its egress ${text}`, text }];
    }),
  ];
  const reasons = needs.flatMap(({ what, text }) => {
    const { host, port } = parseRecordedEgress(text);
    const why = port === null ? null : hostShut(what, { host, port }, network);
    return why === null ? [] : [why];
  });
  return reasons.length === 0 ? null : reasons.join('; ');
}

/**
 * A local server that declares no egress, under an allowlist: byre cannot
 * tell what it reaches, and only allowlisted hosts leave the box. On an open
 * network (or a denylist) it reaches what it needs, so nothing is said.
 */
function outboundUnknown(
  spec: Pick<McpSpec, 'url' | 'egress'>,
  network: StatusData['network'],
): string | null {
  if (spec.url !== undefined || spec.egress.length > 0) return null;
  if (network.posture !== ALLOWLIST_POSTURE) return null;
  return `under ${ALLOWLIST_POSTURE} only allowlisted hosts leave the box, and this server declares none; if it needs the network, declare its hosts in its egress`;
}

export function mcpFacts(
  declared: readonly { spec: McpSpec; source: string }[],
  network: StatusData['network'],
  env: EnvSources,
): McpRow[] {
  return declared.map(({ spec, source }) => {
    const shut = reachShut(spec, network);
    return {
      name: spec.name,
      transport: spec.url !== undefined ? ('url' as const) : ('command' as const),
      target: spec.url ?? (spec.command ?? []).join(' '),
      env: consumedEnv(spec).map((key) => envFact(key, env)),
      operational: shut === null,
      not_operational: shut,
      egress: [...spec.egress],
      outbound_unknown: outboundUnknown(spec, network),
      source,
    };
  });
}
