// The grammar of a credential injected at the edge (adr/0070): the
// `injected:` row in env_from_host and the `[[inject.KEY]]` rules beside it in
// the same file, which say for which host(s) and how the edge presents it.
// Pure text in, typed values and located findings out; also the canonical
// binding sealed with the value and develop's check of it. The layer shape
// (schema.ts), the layer rules (rules/index.ts), the merge (merge.ts) and the
// cross-file check (check-effective.ts) are built from it.
// Over 500 lines: the grammar, its rules and the sealed binding share one reading of a rule and its host and presentation checks.
//
//   [env_from_host]
//   GITHUB_TOKEN = "injected:<key id>:<base64 age file>"
//   [[inject.GITHUB_TOKEN]]
//   hosts = ["api.github.com"]
//   bearer = true
//   [[inject.GITHUB_TOKEN]]
//   hosts = ["github.com"]
//   basic = "x-access-token"

import { isCanonicalIPv4 } from './address.js';
import { CONTROL, ENV_KEY, HEADER_NAME } from './grammar.js';
import type { PathSegment } from './locate.js';
import { INJECT_SHAPE, type RawInjectRule } from './inject-shape.js';
import { finding, q, type Finding } from './rules/finding.js';
import type { ShapeValue } from './shape.js';
import type { InjectHost, InjectRule, Injection, LayerRef, Presentation } from './types.js';

/** The source prefix of a row the box never receives: the edge presents it. */
const INJECTED_PREFIX = 'injected:';

export function isInjectedSource(source: string): boolean {
  return source.startsWith(INJECTED_PREFIX);
}

type RawInject = ShapeValue<typeof INJECT_SHAPE>;

export type { InjectHost, InjectRule, Injection, Presentation } from './types.js';

/** What a file's own keys look like to these rules (a RawLayer is one). */
interface InjectLayer {
  env_from_host?: Record<string, string> | undefined;
  inject?: RawInject | undefined;
}

const DEFAULT_INJECT_PORT = 443;
const MAX_HOST_LENGTH = 253;
const MAX_BASIC_USER = 256;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Header names the edge never sets from config: the ones that frame or route
 * the message (a value there would change what the request is, or where it
 * goes), and the proxy's own credentials.
 */
const EDGE_OWNED_HEADERS: readonly string[] = [
  'connection',
  'content-length',
  'host',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** `name[:port]`: a lowercase DNS name with a dot, no wildcard, no address; null when it is not. */
export function parseInjectHost(raw: string): InjectHost | null {
  const colon = raw.lastIndexOf(':');
  const nameText = colon < 0 ? raw : raw.slice(0, colon);
  let port = DEFAULT_INJECT_PORT;
  if (colon >= 0) {
    const portText = raw.slice(colon + 1);
    if (!/^[0-9]{1,5}$/.test(portText)) return null;
    port = Number(portText);
    if (port < 1 || port > 65535) return null;
  }
  const name = nameText.toLowerCase();
  if (name.length === 0 || name.length > MAX_HOST_LENGTH) return null;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (isCanonicalIPv4(name) || /^[0-9.]+$/.test(name)) return null;
  return { name, port };
}

/** How byre writes a host back: the port only when it is not 443. */
export function formatInjectHost(host: InjectHost): string {
  return host.port === DEFAULT_INJECT_PORT ? host.name : `${host.name}:${host.port}`;
}

/** Why a header name cannot carry a credential, or null. */
function headerNameProblem(name: string): string | null {
  if (!HEADER_NAME.test(name))
    return "not an HTTP header name (a token: letters, digits, !#$%&'*+.^_`|~-)";
  if (EDGE_OWNED_HEADERS.includes(name.toLowerCase())) {
    return 'frames or routes the request, so the edge never sets it';
  }
  return null;
}

/** Why a Basic user cannot be used, or null (RFC 7617: no colon, no control character). */
function basicUserProblem(user: string): string | null {
  if (user === '') return 'is empty';
  if (user.includes(':')) return 'holds a colon, which Basic auth uses to end the user';
  if (CONTROL.test(user)) return 'holds a control character';
  if (user.length > MAX_BASIC_USER) return `is longer than ${MAX_BASIC_USER} characters`;
  return null;
}

const PRESENTATION_FIX = 'write exactly one of header = "NAME", bearer = true, basic = "USER"';

function presentationOf(
  rule: RawInjectRule,
  path: PathSegment[],
): { presentation: Presentation | null; findings: Finding[] } {
  const set = (['header', 'bearer', 'basic'] as const).filter((k) => rule[k] !== undefined);
  if (set.length !== 1) {
    const what = set.length === 0 ? 'says not how to present it' : `sets ${set.join(' and ')}`;
    return {
      presentation: null,
      findings: [
        finding('config.inject-presentation', path, `an inject rule ${what}`, PRESENTATION_FIX),
      ],
    };
  }
  const fail = (key: string, message: string, fix: string) => ({
    presentation: null,
    findings: [finding('config.inject-presentation', [...path, key], message, fix)],
  });
  if (rule.header !== undefined) {
    const problem = headerNameProblem(rule.header);
    if (problem !== null) {
      return fail(
        'header',
        `inject header ${q(rule.header)}: ${problem}`,
        'name the header the service reads the key from',
      );
    }
    return { presentation: { kind: 'header', name: rule.header.toLowerCase() }, findings: [] };
  }
  if (rule.bearer !== undefined) {
    if (!rule.bearer) return fail('bearer', 'bearer = false presents nothing', PRESENTATION_FIX);
    return { presentation: { kind: 'bearer' }, findings: [] };
  }
  const user = rule.basic as string;
  const problem = basicUserProblem(user);
  if (problem !== null) {
    return fail(
      'basic',
      `inject basic user ${q(user)} ${problem}`,
      'write the user the service expects (GitHub: x-access-token)',
    );
  }
  return { presentation: { kind: 'basic', user }, findings: [] };
}

function hostsOf(
  rule: RawInjectRule,
  path: PathSegment[],
): { hosts: InjectHost[]; findings: Finding[] } {
  if (rule.hosts === undefined) {
    return {
      hosts: [],
      findings: [
        finding(
          'config.missing-key',
          [...path, 'hosts'],
          'an inject rule needs hosts',
          'add hosts = ["api.example.com"]',
        ),
      ],
    };
  }
  if (rule.hosts.length === 0) {
    return {
      hosts: [],
      findings: [
        finding(
          'config.inject-hosts-empty',
          [...path, 'hosts'],
          'an inject rule names no host',
          'add the host(s) the credential is for, or remove the rule',
        ),
      ],
    };
  }
  const hosts: InjectHost[] = [];
  const findings: Finding[] = [];
  rule.hosts.forEach((raw, i) => {
    const host = parseInjectHost(raw);
    if (host === null) {
      findings.push(
        finding(
          'config.inject-host-invalid',
          [...path, 'hosts', i],
          `inject host ${q(raw)}: not a host name`,
          'write a DNS name (api.example.com) or name:port; no scheme, path, wildcard or address',
        ),
      );
    } else {
      hosts.push(host);
    }
  });
  return { hosts, findings };
}

/** One file's rules for one key, parsed; findings located at `inject.KEY[i]…`. */
export function parseInjectRules(
  key: string,
  rules: readonly RawInjectRule[],
): { rules: InjectRule[]; findings: Finding[] } {
  const out: InjectRule[] = [];
  const findings: Finding[] = [];
  rules.forEach((rule, i) => {
    const path: PathSegment[] = ['inject', key, i];
    const hosts = hostsOf(rule, path);
    const pres = presentationOf(rule, path);
    findings.push(...hosts.findings, ...pres.findings);
    if (pres.presentation !== null && hosts.findings.length === 0) {
      out.push({ hosts: hosts.hosts, presentation: pres.presentation });
    }
  });
  return { rules: out, findings };
}

function hostKey(host: InjectHost): string {
  return `${host.name}:${host.port}`;
}

/** A host named twice (in one key's rules or across keys) is refused at its second mention. */
function duplicateHosts(
  parsed: ReadonlyMap<string, { raw: readonly RawInjectRule[]; rules: InjectRule[] }>,
): Finding[] {
  const seen = new Map<string, string>();
  const findings: Finding[] = [];
  for (const [key, { raw }] of parsed) {
    raw.forEach((rule, i) =>
      (rule.hosts ?? []).forEach((text, j) => {
        const host = parseInjectHost(text);
        if (host === null) return;
        const earlier = seen.get(hostKey(host));
        if (earlier === undefined) {
          seen.set(hostKey(host), key);
          return;
        }
        findings.push(
          finding(
            'config.inject-host-twice',
            ['inject', key, i, 'hosts', j],
            `inject host ${formatInjectHost(host)} is already given ${earlier === key ? `by another rule of ${key}` : earlier}`,
            'the edge presents one credential, one way, per host: keep one rule for it',
          ),
        );
      }),
    );
  }
  return findings;
}

/**
 * Every rule for a file's own keys (adr/0070): each `[[inject.KEY]]` sits
 * beside an `injected:` row for KEY in the same file, each such row has
 * rules, and every rule is well formed. Findings carry paths the locator
 * turns into file:line:key.
 */
export function checkInjections(layer: InjectLayer): Finding[] {
  const rows = layer.env_from_host ?? {};
  const inject = layer.inject ?? {};
  const findings: Finding[] = [];
  const parsed = new Map<string, { raw: readonly RawInjectRule[]; rules: InjectRule[] }>();
  for (const key of Object.keys(inject).sort()) {
    const raw = inject[key] ?? [];
    if (!ENV_KEY.test(key) || key.startsWith('BYRE_')) {
      findings.push(
        finding(
          'config.env-key-invalid',
          ['inject', key],
          `inject key ${q(key)}: not a credential name byre can give the box`,
          'use the variable name of the credential (letters, digits, "_"; not BYRE_…)',
        ),
      );
      continue;
    }
    const source = rows[key];
    if (source === undefined || !isInjectedSource(source)) {
      findings.push(
        finding(
          'config.inject-no-row',
          ['inject', key],
          `inject ${key}: this file has no injected credential row for ${key}`,
          `run \`byre credential add ${key} --inject HOST …\` for this file, or remove the rules`,
        ),
      );
    }
    if (raw.length === 0) {
      findings.push(
        finding(
          'config.inject-hosts-empty',
          ['inject', key],
          `inject ${key} has no rule`,
          'add a rule, or remove the key',
        ),
      );
      continue;
    }
    const one = parseInjectRules(key, raw);
    findings.push(...one.findings);
    parsed.set(key, { raw, rules: one.rules });
  }
  for (const key of Object.keys(rows).sort()) {
    if (isInjectedSource(rows[key] as string) && inject[key] === undefined) {
      findings.push(
        finding(
          'config.inject-undeclared',
          ['env_from_host', key],
          `env_from_host ${key} is injected at the edge, but this file says not for which host`,
          `run \`byre credential add ${key} --inject HOST …\` again, or remove the row`,
        ),
      );
    }
  }
  return [...findings, ...duplicateHosts(parsed)];
}

interface LayerInjections {
  ref: LayerRef;
  layer: InjectLayer;
}

/**
 * The injections of a cascade (lowest layer first), as the env_from_host
 * merge decides them: a key is injected when the highest layer that names it
 * names it with an `injected:` row, and no `[env]` key of that name wins
 * (`overriddenByEnv`). Its rules are that same file's: rules never mix
 * across files (each is sealed with its row, adr/0070). Call after every
 * file passed checkInjections; a file that did not is skipped by the caller.
 */
export function effectiveInjections(
  layers: readonly LayerInjections[],
  overriddenByEnv: (key: string) => boolean = () => false,
): Injection[] {
  const winner = new Map<string, LayerInjections>();
  for (const l of layers)
    for (const key of Object.keys(l.layer.env_from_host ?? {})) winner.set(key, l);
  return [...winner.entries()]
    .filter(
      ([key, l]) => isInjectedSource(l.layer.env_from_host?.[key] ?? '') && !overriddenByEnv(key),
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, l]) => ({
      key,
      rules: parseInjectRules(key, l.layer.inject?.[key] ?? []).rules,
      from: l.ref,
    }));
}

/** A host two effective injections both claim: the later key's file is where to fix it. */
export function injectionConflicts(injections: readonly Injection[]): Finding[] {
  const seen = new Map<string, string>();
  const out: Finding[] = [];
  for (const inj of injections) {
    inj.rules.forEach((rule, i) =>
      rule.hosts.forEach((host, j) => {
        const earlier = seen.get(hostKey(host));
        if (earlier === undefined) {
          seen.set(hostKey(host), inj.key);
        } else if (earlier !== inj.key) {
          out.push(
            finding(
              'config.inject-host-twice',
              ['inject', inj.key, i, 'hosts', j],
              `inject host ${formatInjectHost(host)} is already given ${earlier} (by another file)`,
              'the edge presents one credential per host: remove the rule from one of the files',
            ),
          );
        }
      }),
    );
  }
  return out;
}

function presentationText(p: Presentation): string {
  switch (p.kind) {
    case 'header':
      return `header ${p.name}`;
    case 'bearer':
      return 'bearer';
    case 'basic':
      return `basic ${p.user}`;
  }
}

function comparePairs(a: readonly [string, string], b: readonly [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/**
 * The canonical text of a key's rules, sealed into its row's frame with the
 * value (adr/0070): the edge uses the rules it opened, and develop refuses a
 * row whose sealed rules differ from the file's, so a file edited to send the
 * secret elsewhere opens nothing. Canonical: `JSON.stringify` (no spaces) of
 * one array of `["name:port", presentation]` pairs — the name lowercased, the
 * port always written, the presentation `header NAME` (lowercased), `bearer`
 * or `basic USER` — sorted by host, then presentation, in code-unit order.
 * Equal rule sets give equal bytes whatever their order in the file; this is
 * the one function that writes it, and parseInjectionBinding accepts only
 * what it writes.
 */
export function injectionBinding(rules: readonly InjectRule[]): string {
  const pairs = rules
    .flatMap((r) => r.hosts.map((h) => [hostKey(h), presentationText(r.presentation)] as const))
    .sort(comparePairs);
  return JSON.stringify(pairs);
}

function parsePresentation(text: string): Presentation | null {
  if (text === 'bearer') return { kind: 'bearer' };
  if (text.startsWith('header ')) {
    const name = text.slice('header '.length);
    return headerNameProblem(name) === null && name === name.toLowerCase()
      ? { kind: 'header', name }
      : null;
  }
  if (text.startsWith('basic ')) {
    const user = text.slice('basic '.length);
    return basicUserProblem(user) === null ? { kind: 'basic', user } : null;
  }
  return null;
}

/**
 * The rules a sealed binding line names (one rule per host), or null unless
 * the line is exactly what injectionBinding writes for a non-empty rule set
 * naming each host once: anything else was not sealed by byre, and is refused
 * rather than read generously.
 */
export function parseInjectionBinding(line: string): InjectRule[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const rules: InjectRule[] = [];
  const hosts = new Set<string>();
  for (const pair of parsed as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return null;
    const [hostText, presText] = pair as unknown[];
    if (typeof hostText !== 'string' || typeof presText !== 'string') return null;
    const host = parseInjectHost(hostText);
    const presentation = parsePresentation(presText);
    if (host === null || presentation === null || hosts.has(hostKey(host))) return null;
    hosts.add(hostKey(host));
    rules.push({ hosts: [host], presentation });
  }
  return injectionBinding(rules) === line ? rules : null;
}

/** The binding's pairs as `host:port presentation` lines, for a refusal that says what moved. */
function bindingPairs(binding: string): string[] {
  return (parseInjectionBinding(binding) ?? []).flatMap((r) =>
    r.hosts.map((h) => `${hostKey(h)} ${presentationText(r.presentation)}`),
  );
}

/**
 * develop's check of an opened injected row (adr/0070): the rules sealed with
 * the value must be exactly the file's rules for that key, in any order. Any
 * difference — a host added or removed, a port, a presentation — is
 * `credential.binding-changed` at `inject.KEY`, naming what differs; the
 * sealed value is never an argument, so no refusal can quote it.
 */
export function bindingFindings(
  key: string,
  sealedBinding: string,
  rules: readonly InjectRule[],
): Finding[] {
  const current = injectionBinding(rules);
  if (current === sealedBinding) return [];
  const sealed = bindingPairs(sealedBinding);
  const now = bindingPairs(current);
  const added = now.filter((p) => !sealed.includes(p));
  const removed = sealed.filter((p) => !now.includes(p));
  const parts = [
    ...(added.length === 0 ? [] : [`not sealed: ${added.join(', ')}`]),
    ...(removed.length === 0 ? [] : [`sealed but gone: ${removed.join(', ')}`]),
  ];
  return [
    finding(
      'credential.binding-changed',
      ['inject', key],
      `inject ${key}: the rules differ from those sealed with its value (${parts.length === 0 ? 'they differ' : parts.join('; ')}); widening where a secret goes needs the passphrase`,
      `restore the rules, or seal them with the value again: byre credential add ${key} --inject HOST …`,
    ),
  ];
}
