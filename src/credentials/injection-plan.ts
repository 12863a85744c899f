// What a launch does for credentials injected at the edge (adr/0070), as
// data: the routes the edge serves, the box's sentinels and host entries, the
// trust variables, and what an ejected box is told instead. Pure: no value
// is read here (the edge gets values on its stdin, never from this plan).

import {
  formatInjectHost,
  type InjectHost,
  type Injection,
  type Presentation,
} from '../config/inject.js';
import { EDGE_ADDRESS, EDGE_TRUST_ENV } from '../gen/box-layout.js';

/**
 * What the box's variable holds instead of the value: agents that refuse to
 * start without their key start, and a request carrying it is worth nothing
 * anywhere but through the edge, which replaces it.
 */
export const INJECTION_SENTINEL = 'byre-edge-sentinel';

/** The edge also listens here on :80, only to refuse plain HTTP visibly. */
export const EDGE_PLAIN_HTTP_PORT = 80;

/** One host the edge terminates TLS for, and the credential it presents there. */
interface EdgeRoute {
  host: InjectHost;
  key: string;
  presentation: Presentation;
}

interface InjectionPlan {
  /** Sorted by host name, then port. */
  routes: EdgeRoute[];
  /** The box's variables: each injected key holds the sentinel. */
  boxEnv: Record<string, string>;
  /** `--add-host NAME:ADDRESS` values, one per injected name, sorted. */
  hostEntries: string[];
  /** The ports the edge listens on at EDGE_ADDRESS, sorted (80 refuses plain HTTP). */
  listenPorts: number[];
  /** `name:port` of every route, sorted: where the edge itself connects (a wall admits its user there). */
  upstreams: string[];
  /** Unset (empty) when nothing is injected: the image then carries no CA. */
  trustEnv: Record<string, string>;
}

function byHost(a: EdgeRoute, b: EdgeRoute): number {
  if (a.host.name !== b.host.name) return a.host.name < b.host.name ? -1 : 1;
  return a.host.port - b.host.port;
}

/** The plan for a cascade's effective injections (conflicts already refused). */
export function planInjection(
  injections: readonly Pick<Injection, 'key' | 'rules'>[],
): InjectionPlan {
  const routes = injections
    .flatMap((inj) =>
      inj.rules.flatMap((rule) =>
        rule.hosts.map((host) => ({ host, key: inj.key, presentation: rule.presentation })),
      ),
    )
    .sort(byHost);
  const names = [...new Set(routes.map((r) => r.host.name))];
  const ports = new Set(routes.map((r) => r.host.port));
  if (routes.length > 0) ports.add(EDGE_PLAIN_HTTP_PORT);
  return {
    routes,
    boxEnv: Object.fromEntries(injections.map((i) => [i.key, INJECTION_SENTINEL])),
    hostEntries: names.map((n) => `${n}:${EDGE_ADDRESS}`),
    listenPorts: [...ports].sort((a, b) => a - b),
    upstreams: [...new Set(routes.map((r) => `${r.host.name}:${r.host.port}`))],
    trustEnv: routes.length > 0 ? { ...EDGE_TRUST_ENV } : {},
  };
}

/**
 * What `byre dockerrun` and an ejected box say for each injected key: the
 * edge is not carried, so the box gets no value at all (not even the
 * sentinel, which would only fail later and less legibly).
 */
export function ejectedInjectionLines(injections: readonly Injection[]): string[] {
  return injections.map((inj) => {
    const hosts = inj.rules.flatMap((r) => r.hosts.map(formatInjectHost)).join(', ');
    return `# ${inj.key}: injected at the edge for ${hosts} by byre develop; not carried here — this box gets no ${inj.key} (add -e ${inj.key} yourself to hand the box the secret)`;
  });
}
