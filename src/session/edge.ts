// The edge's part of a launch (adr/0070), with the wall or without. Under
// the setup lock: the project's CA and a leaf per injected name (minted when
// missing, expiring or for other names), the box's host entries and
// injected keys, and the edge's stdin with the values. Before the box's
// create (src/session/credentials.ts): the edge helper, whose network
// namespace the box joins; the box's launcher waits at its edge gate for
// the edge to be ready, then sets each injected key to the sentinel
// (adr/0084). Behind a wall, the wall's hook is told the injected
// `name:port`s (the wall's plan, src/session/wall.ts): its resolver forwards
// them, and only the edge's user may connect to their answers.

import type { Injection } from '../config/types.js';
import type { EdgeSet } from '../credentials/edge-ca.js';
import { encodeEdgeInput } from '../credentials/edge-input.js';
import { ensureEdgeSet } from '../credentials/edge-store.js';
import { EDGE_PLAIN_HTTP_PORT, planInjection } from '../credentials/injection-plan.js';
import type { EdgeCredential } from '../credentials/open.js';
import { ByreError } from '../errors.js';
import { edgeOwnedRunArgs } from '../gen/run-args-scan.js';
import { escapeTerminal } from '../output/escape.js';
type Env = Readonly<Record<string, string | undefined>>;

/** What the launch carries for the edge; null when nothing is injected. */
export interface EdgeLaunch {
  /** The project CA's certificate, baked into the image (its key is long gone). */
  caPem: string;
  /** `--add-host NAME:ADDRESS`, one per injected name: the box reaches them at the edge. */
  hostEntries: string[];
  /** The TLS ports the edge is told to listen on (it listens on :80 itself, to refuse plain HTTP visibly). */
  ports: number[];
  /** `name:port` of every injected host: where the edge connects, which a wall admits for it alone. */
  upstreams: string[];
  /** The edge's whole stdin: the values. Written to the helper's stdin and nowhere else. */
  input: string;
  /** The injected keys: the box's variables hold the sentinel instead (adr/0084). */
  keys: string[];
  /** Tests only (BYRE_EDGE_UPSTREAM): where the edge connects instead of resolving the name. */
  upstreamAddress?: string;
}

function edgeFailed(message: string): ByreError {
  return new ByreError(message, {
    rule: 'edge.input',
    remedy: 'nothing was started; check the inject rules with byre credential list',
  });
}

/**
 * What of the edge's helper the injections decide before any value is
 * opened (its create argv's part, adr/0080): the box's host entries, the
 * TLS ports it listens on (:80 it listens on of its own accord, to refuse
 * plain HTTP) and the test-only upstream address.
 */
export function edgeShape(
  injections: readonly Pick<Injection, 'key' | 'rules'>[],
  env: Env,
): Pick<EdgeLaunch, 'hostEntries' | 'ports' | 'upstreams' | 'upstreamAddress'> {
  const plan = planInjection(injections);
  const upstreamAddress = (env['BYRE_EDGE_UPSTREAM'] ?? '').trim();
  return {
    hostEntries: plan.hostEntries,
    ports: plan.listenPorts.filter((p) => p !== EDGE_PLAIN_HTTP_PORT),
    upstreams: plan.upstreams,
    ...(upstreamAddress === '' ? {} : { upstreamAddress }),
  };
}

/** The names the edge serves for these injections, and the project's set for them (minted when it must be). */
async function projectEdgeSet(
  dir: string,
  label: string,
  injections: readonly Pick<Injection, 'key' | 'rules'>[],
): Promise<{ plan: ReturnType<typeof planInjection>; set: EdgeSet }> {
  const plan = planInjection(injections);
  const names = [...new Set(plan.routes.map((r) => r.host.name))];
  const { set } = await ensureEdgeSet(dir, names, label);
  return { plan, set };
}

/**
 * The CA certificate an image of this config bakes (rebuild and worktree
 * build the image develop runs); undefined when nothing is injected.
 */
export async function projectEdgeCa(
  dir: string,
  label: string,
  injections: readonly Injection[],
): Promise<string | undefined> {
  if (injections.length === 0) return undefined;
  return (await projectEdgeSet(dir, label, injections)).set.caPem;
}

/**
 * The edge's half of the launch, minting the project's set when it must.
 * `dir` is the project's edge store; `label` names its CA (the project id).
 * `env` may name a test-only upstream (BYRE_EDGE_UPSTREAM, an address, and
 * BYRE_EDGE_UPSTREAM_CA, a PEM the edge also trusts upstream).
 */
export async function prepareEdge(
  dir: string,
  label: string,
  credentials: readonly EdgeCredential[],
  env: Env,
): Promise<EdgeLaunch | null> {
  if (credentials.length === 0) return null;
  const { plan, set } = await projectEdgeSet(dir, label, credentials);
  const values = new Map(credentials.map((c) => [c.key, c.value]));
  const routes = [];
  for (const r of plan.routes) {
    const leaf = set.leaves.find((l) => l.name === r.host.name);
    if (leaf === undefined)
      throw edgeFailed(`the project's edge set has no leaf for ${r.host.name}`);
    let value: string;
    try {
      value = new TextDecoder('utf-8', { fatal: true }).decode(values.get(r.key));
    } catch {
      throw edgeFailed(`${r.key}: its value is not UTF-8 text, which a header cannot carry`);
    }
    routes.push({
      host: r.host,
      presentation: r.presentation,
      value,
      cert: leaf.certPem,
      key: leaf.keyPem,
    });
  }
  const upstreamCa = (env['BYRE_EDGE_UPSTREAM_CA'] ?? '').trim();
  const encoded = encodeEdgeInput({
    routes,
    ...(upstreamCa === '' ? {} : { upstreamCa: `${upstreamCa}\n` }),
  });
  if (!encoded.ok) throw edgeFailed(`the edge's input: ${encoded.problem}`);
  return {
    caPem: set.caPem,
    ...edgeShape(credentials, env),
    input: encoded.text,
    keys: credentials.map((c) => c.key),
  };
}

/**
 * Refuse raw run_args an injecting box cannot carry: the box runs in its
 * edge's network namespace (and, under keep-id, its user namespace), so
 * what they set is the edge's, and the engines refuse it on the box or let
 * it undo the join (adr/0079). Each entry is named with who set it.
 */
export function refuseEdgeOwnedRunArgs(tokens: readonly { value: string; source: string }[]): void {
  const owned = edgeOwnedRunArgs(tokens.map((t) => t.value));
  if (owned.length === 0) return;
  throw new ByreError(
    'run_args set the network of a box that injects credentials, which it takes from its edge:',
    {
      rule: 'edge.run-args',
      details: owned.map(
        (a) => `${escapeTerminal(a.argv.join(' '))} (${tokens[a.start]?.source ?? 'run_args'})`,
      ),
      remedy:
        'remove them from run_args (published ports belong in `ports`), or deliver that credential instead of injecting it (byre credential list shows the rows)',
    },
  );
}
