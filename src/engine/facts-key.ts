// The keys of the engine probe cache (adr/0038), as pure decisions over what
// the IO side read: which daemon the docker CLI would ask, and the digest
// that names one probe answer. Anything byre cannot pin down from env and
// files alone (a tcp:// or ssh:// host, a named context) has no key, so it
// is never cached.

import { createHash } from 'node:crypto';

type Env = Readonly<Record<string, string | undefined>>;

/** The probes whose answers may be remembered. */
export type CachedProbe = 'docker-info' | 'podman-version';

/** A file's identity as stat tells it; a replaced, rewritten or re-created file differs. */
export interface FileId {
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
  birthtimeNs: string;
}

type DockerEndpoint = { kind: 'unix'; path: string } | { kind: 'unkeyed'; why: string };

/** What the IO side found at the docker CLI's config.json. */
export type DockerConfigText =
  { kind: 'missing' } | { kind: 'ok'; text: string } | { kind: 'unreadable' };

/** The daemon socket docker uses when nothing says otherwise. */
const DOCKER_DEFAULT_SOCKET = '/var/run/docker.sock';

/** Where the docker CLI reads its config.json: $DOCKER_CONFIG, else ~/.docker; null without a home. */
export function dockerConfigFile(env: Env): string | null {
  const dir = env['DOCKER_CONFIG'];
  if (dir !== undefined && dir !== '') return `${dir.replace(/\/+$/, '')}/config.json`;
  const home = env['HOME'];
  return home === undefined || home === ''
    ? null
    : `${home.replace(/\/+$/, '')}/.docker/config.json`;
}

/**
 * Which daemon `docker` would ask, resolved the way the CLI resolves it
 * (DOCKER_HOST, then DOCKER_CONTEXT, then config.json's currentContext, then
 * the default socket), when that is a local unix socket byre can identify.
 * Any named context or non-unix host is unkeyed: its endpoint lives in files
 * and settings byre does not read.
 */
export function dockerEndpoint(env: Env, config: DockerConfigText): DockerEndpoint {
  const host = env['DOCKER_HOST'];
  if (host !== undefined && host !== '') {
    const m = /^unix:\/\/(\/.+)$/.exec(host);
    return m?.[1] === undefined
      ? { kind: 'unkeyed', why: 'DOCKER_HOST is not a local unix socket' }
      : { kind: 'unix', path: m[1] };
  }
  const context = env['DOCKER_CONTEXT'];
  if (context !== undefined && context !== '' && context !== 'default') {
    return { kind: 'unkeyed', why: 'DOCKER_CONTEXT names a context' };
  }
  if (context === undefined || context === '') {
    if (config.kind === 'unreadable') return { kind: 'unkeyed', why: 'config.json unreadable' };
    if (config.kind === 'ok') {
      const current = currentContext(config.text);
      if (current === undefined) return { kind: 'unkeyed', why: 'config.json unparseable' };
      if (current !== null && current !== '' && current !== 'default') {
        return { kind: 'unkeyed', why: 'config.json names a context' };
      }
    }
  }
  return { kind: 'unix', path: DOCKER_DEFAULT_SOCKET };
}

/** config.json's currentContext: a string, null when absent, undefined when the file is not a JSON object. */
export function currentContext(text: string): string | null | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const current = (value as Record<string, unknown>)['currentContext'];
  if (current === undefined || current === null) return null;
  return typeof current === 'string' ? current : undefined;
}

/** The env vars a docker or podman client reads to choose its daemon or its config, verbatim. */
export function engineEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined) continue;
    if (
      /^(DOCKER|CONTAINER|CONTAINERS)_/.test(name) ||
      ['HOME', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME'].includes(name)
    ) {
      out[name] = value;
    }
  }
  return out;
}

interface KeyParts {
  probe: CachedProbe;
  uid: number;
  /** The engine CLI byre runs, and its identity. */
  engine: { path: string; id: FileId };
  /** docker-info: the socket the daemon listens on, and its identity. */
  socket?: { path: string; id: FileId };
  /** docker-info: what engineEnv kept. */
  env?: Record<string, string>;
}

/** The sha256 (hex) naming one probe answer. Every part is in it; a change in any misses. */
export function probeKey(parts: KeyParts): string {
  const id = (f: FileId): string[] => [f.dev, f.ino, f.size, f.mtimeNs, f.ctimeNs, f.birthtimeNs];
  const material = JSON.stringify([
    'byre-engine-facts',
    1,
    parts.probe,
    parts.uid,
    parts.engine.path,
    id(parts.engine.id),
    parts.socket === undefined ? null : [parts.socket.path, id(parts.socket.id)],
    parts.env === undefined ? null : Object.entries(parts.env),
  ]);
  return createHash('sha256').update(material, 'utf8').digest('hex');
}

/** The cache file's text for one answer. Pure. */
export function encodeEntry(key: string, answer: string): string {
  return `byre-engine-facts 1\n${key}\n${answer}\n`;
}

/** The answer stored under `key`, or null (another key, another format, a malformed file). Pure. */
export function decodeEntry(text: string, key: string): string | null {
  const lines = text.split('\n');
  if (lines.length !== 4 || lines[0] !== 'byre-engine-facts 1' || lines[3] !== '') return null;
  if (lines[1] !== key) return null;
  return lines[2] ?? null;
}

/** A well-formed answer for each probe: `rootless=true|false`, or a version `x.y.z`. Pure. */
export function validAnswer(probe: CachedProbe, answer: string): boolean {
  return probe === 'docker-info'
    ? answer === 'rootless=true' || answer === 'rootless=false'
    : /^\d{1,6}\.\d{1,6}\.\d{1,6}$/.test(answer);
}
