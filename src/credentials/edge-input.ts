// The edge's stdin (adr/0070): the one place that writes what the edge
// process (src/gen/chassis/byre-edge.cjs) reads — one JSON object a line, a
// route per injected host:port with the header it presents, the forms of
// the value a response must not carry back, and the leaf for its name, then
// an end line. Pure. The value is in the text it
// returns and nowhere else: no problem text ever quotes it.
//
//   {"byre-edge":1,"route":{"host":"api.x.com","port":443,
//     "header":{"name":"x-api-key","value":"…"},"conceal":["…"],
//     "cert":"<PEM>","key":"<PEM>"}}
//   {"byre-edge":1,"upstreamCa":"<PEM>"}      tests only: a CA trusted upstream
//   {"byre-edge":1,"end":true}

import type { InjectHost, Presentation } from '../config/inject.js';
import { concealedForms, presentCredential } from './presentation.js';

/** The version both ends speak; the edge refuses any other. */
const EDGE_INPUT_VERSION = 1;

interface EdgeInputRoute {
  host: InjectHost;
  presentation: Presentation;
  /** The credential itself. */
  value: string;
  /** The leaf for host.name, PEM, and its private key, PEM. */
  cert: string;
  key: string;
}

interface EdgeInput {
  routes: readonly EdgeInputRoute[];
  /** A CA the edge trusts upstream besides the system roots: tests' fixtures only, never the box's CA. */
  upstreamCa?: string;
}

type EncodeResult = { ok: true; text: string } | { ok: false; problem: string };

const PEM = /^-----BEGIN [A-Z0-9 ]+-----\r?\n[\s\S]*-----END [A-Z0-9 ]+-----\r?\n?$/;

/** The edge's whole input, or why it cannot be written (never quoting a value). */
export function encodeEdgeInput(input: EdgeInput): EncodeResult {
  if (input.routes.length === 0) return { ok: false, problem: 'the edge has no route to serve' };
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const r of input.routes) {
    const where = `${r.host.name}:${r.host.port}`;
    if (seen.has(where)) return { ok: false, problem: `${where} is given twice` };
    seen.add(where);
    if (!PEM.test(r.cert) || !PEM.test(r.key)) {
      return { ok: false, problem: `the leaf for ${r.host.name} is not PEM` };
    }
    const presented = presentCredential(r.presentation, r.value);
    if (!presented.ok) return { ok: false, problem: `${where}: ${presented.problem}` };
    const route = {
      host: r.host.name,
      port: r.host.port,
      header: presented.header,
      conceal: concealedForms(r.presentation, r.value),
      cert: r.cert,
      key: r.key,
    };
    lines.push(JSON.stringify({ 'byre-edge': EDGE_INPUT_VERSION, route }));
  }
  if (input.upstreamCa !== undefined) {
    if (!PEM.test(input.upstreamCa)) return { ok: false, problem: 'the upstream CA is not PEM' };
    lines.push(JSON.stringify({ 'byre-edge': EDGE_INPUT_VERSION, upstreamCa: input.upstreamCa }));
  }
  lines.push(JSON.stringify({ 'byre-edge': EDGE_INPUT_VERSION, end: true }));
  return { ok: true, text: `${lines.join('\n')}\n` };
}
