// The pure half of asking docker's read-only questions over its API socket
// (adr/0040): whether the docker CLI would talk to that very socket, the
// request paths, and the replies turned into exactly what the CLI path's
// parsers make of the CLI's output. Anything unexpected is `null`: the
// caller then asks the CLI, which stays the authority.

import {
  FULL_CONTAINER_ID,
  type ContainerFacts,
  type LabelledContainer,
  type PsQuery,
} from './types.js';
import { dockerEndpoint, type DockerConfigText } from './facts-key.js';
import { envOf, labelRow, stringRecordOf } from './output.js';

type Env = Readonly<Record<string, string | undefined>>;

export type ApiRoute = { kind: 'socket'; path: string } | { kind: 'cli'; why: string };

/**
 * Variables that change how the docker CLI talks to its daemon (TLS, a
 * pinned API version, extra headers): with any of them set byre asks the CLI.
 */
const CLIENT_VARS = [
  'DOCKER_TLS',
  'DOCKER_TLS_VERIFY',
  'DOCKER_CERT_PATH',
  'DOCKER_API_VERSION',
  'DOCKER_CUSTOM_HEADERS',
];

/**
 * The socket to ask instead of the docker CLI, when the CLI would ask that
 * socket and nothing else about the request: a native executable whose real
 * name is `docker` (a script or a link may be another engine), the endpoint resolved as the CLI resolves it
 * (adr/0038) to a local unix socket, a readable config without extra HTTP
 * headers, and no TLS or API-version variables. `socketIsSocket` is whether
 * the path, not followed, is a socket now.
 */
export function apiRoute(
  env: Env,
  config: DockerConfigText,
  nativeCli: boolean,
  socketIsSocket: (path: string) => boolean,
): ApiRoute {
  if (!nativeCli) return { kind: 'cli', why: 'docker is not a native executable named docker' };
  const set = CLIENT_VARS.find((v) => (env[v] ?? '') !== '');
  if (set !== undefined) return { kind: 'cli', why: `${set} is set` };
  if (config.kind === 'unreadable') return { kind: 'cli', why: 'config.json unreadable' };
  if (config.kind === 'ok' && !plainConfig(config.text)) {
    return { kind: 'cli', why: 'config.json sets HTTP headers or is not an object' };
  }
  const endpoint = dockerEndpoint(env, config);
  if (endpoint.kind !== 'unix') return { kind: 'cli', why: endpoint.why };
  if (!socketIsSocket(endpoint.path))
    return { kind: 'cli', why: `${endpoint.path} is not a socket` };
  return { kind: 'socket', path: endpoint.path };
}

/** A JSON object without `HttpHeaders` (which the CLI would send with every request). */
function plainConfig(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return !Object.keys(value).some((k) => fold(k) === 'httpheaders');
}

/** `GET /containers/json` with the filters the CLI's `ps --filter label=… --filter volume=…` sends. */
export function containerListPath(query: PsQuery): string {
  const label: Record<string, boolean> = {};
  for (const k of Object.keys(query.labels).sort()) label[`${k}=${query.labels[k] ?? ''}`] = true;
  for (const k of [...(query.hasLabels ?? [])].sort()) label[k] = true;
  const params = new URLSearchParams();
  if (query.all) params.set('all', '1');
  const filters = {
    ...(Object.keys(label).length > 0 ? { label } : {}),
    ...(query.volume === undefined ? {} : { volume: { [query.volume]: true } }),
  };
  if (Object.keys(filters).length > 0) params.set('filters', JSON.stringify(filters));
  const qs = params.toString();
  return qs === '' ? '/containers/json' : `/containers/json?${qs}`;
}

/** A container id or name the daemon takes verbatim in a path; anything else stays with the CLI. */
const PLAIN_REF = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/;

/** `GET /containers/<ref>/json`, or null for a ref that is not plainly an id or name. */
export function containerInspectPath(ref: string): string | null {
  return PLAIN_REF.test(ref) ? `/containers/${ref}/json` : null;
}

/** One container of a list reply: its id and all its labels. */
interface ListedContainer {
  id: string;
  labels: Record<string, string>;
}

/** A `/containers/json` reply, or null for any shape the CLI would not have printed the same way. */
export function parseContainerList(body: string): ListedContainer[] | null {
  const value = parseReply(body);
  if (!Array.isArray(value)) return null;
  const out: ListedContainer[] = [];
  for (const item of value) {
    const id = field(item, 'Id');
    const labels = field(item, 'Labels');
    if (typeof id !== 'string' || labels === INVALID) return null;
    const record = recordOrNull(labels);
    if (record === null) return null;
    out.push({ id, labels: record });
  }
  return out;
}

/**
 * `ps -q --no-trunc`'s lines from a list reply; null when an id is not a
 * full hex id (the CLI's line splitting would read such an id differently).
 */
export function idsOf(list: readonly ListedContainer[]): string[] | null {
  const ids = list.map((c) => c.id);
  return ids.every((id) => FULL_CONTAINER_ID.test(id)) ? ids : null;
}

/** psLabels' rows from a list reply, built by the same code as the CLI path's. */
export function labelRowsOf(
  list: readonly ListedContainer[],
  keys: readonly string[],
): LabelledContainer[] {
  return list.map((c) =>
    labelRow(
      c.id,
      keys.map((k) => (Object.hasOwn(c.labels, k) ? (c.labels[k] ?? '') : '')),
      keys,
    ),
  );
}

/** A `/containers/<ref>/json` reply as ContainerFacts, or null for an unexpected shape. */
function parseContainerInspect(body: string): ContainerFacts | null {
  const value = parseReply(body);
  const id = field(value, 'Id');
  const state = field(value, 'State');
  const config = field(value, 'Config');
  const running = field(state, 'Running');
  const labels = field(config, 'Labels');
  const env = field(config, 'Env');
  if (typeof id !== 'string' || typeof running !== 'boolean') return null;
  if (labels === INVALID || env === INVALID) return null;
  const record = recordOrNull(labels);
  if (record === null) return null;
  if (env !== undefined && env !== null) {
    if (!Array.isArray(env) || !env.every((e) => typeof e === 'string')) return null;
  }
  return { id, running, labels: record, env: envOf(env ?? null) };
}

/**
 * `container inspect`'s facts from one reply per ref, in ref order: a
 * "No such container" is left out as the CLI leaves it out; any other
 * failure or odd reply is null (ask the CLI).
 */
export function containerFactsOf(
  replies: readonly ({ status: number; body: string } | null)[],
): ContainerFacts[] | null {
  const out: ContainerFacts[] = [];
  for (const reply of replies) {
    if (reply === null) return null;
    if (isNoSuchContainer(reply.status, reply.body)) continue;
    const one = reply.status === 200 ? parseContainerInspect(reply.body) : null;
    if (one === null) return null;
    out.push(one);
  }
  return out;
}

/** A 404 whose message is the daemon's "No such container": the CLI's not-found, skipped. */
function isNoSuchContainer(status: number, body: string): boolean {
  if (status !== 404) return false;
  const message = field(parseReply(body), 'message');
  return typeof message === 'string' && /^No such container: /.test(message);
}

/**
 * `GET /info`'s SecurityOptions as `docker info --format '{{json
 * .SecurityOptions}}'` prints them (a JSON list of strings), or null for a
 * failure or any other shape: the CLI is asked then.
 */
export function securityOptionsOf(status: number, body: string): string | null {
  if (status !== 200) return null;
  const options = field(parseReply(body), 'SecurityOptions');
  if (!Array.isArray(options) || !options.every((o) => typeof o === 'string')) return null;
  return JSON.stringify(options);
}

const INVALID = Symbol('invalid');

/**
 * JSON that Go and JavaScript read alike: no escaped surrogate (Go turns a
 * lone one into U+FFFD; the daemon's encoder never writes one), else null.
 */
function parseReply(body: string): unknown {
  if (/\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}/.test(body)) return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/**
 * `object[name]` as Go's decoder would fill a struct field: undefined when
 * absent, INVALID when `object` is not an object or another key matches the
 * name case-insensitively (Go would take whichever came last).
 */
function field(object: unknown, name: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return INVALID;
  const want = fold(name);
  for (const k of Object.keys(object)) if (k !== name && fold(k) === want) return INVALID;
  return Object.hasOwn(object, name) ? (object as Record<string, unknown>)[name] : undefined;
}

/** Go's case folding for the ASCII names read here (ſ folds to s, the Kelvin sign to k). */
function fold(key: string): string {
  return key
    .toLowerCase()
    .replace(/ſ/g, 's')
    .replace(/\u212a/g, 'k');
}

/** A label map (absent and null are empty), through the CLI path's own reader; null when not one. */
function recordOrNull(value: unknown): Record<string, string> | null {
  try {
    return stringRecordOf(value ?? null, 'labels');
  } catch {
    return null;
  }
}
