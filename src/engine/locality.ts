// Whether the engine sees this host's files as byre does, for the bind proof
// (adr/0045): a device and inode byre reads here mean the same object to the
// engine only when the engine runs on this kernel. Pure: the IO side
// (locality-facts.ts) reads the client's name, the environment and docker's
// context. The answer leans local: a proof against an engine that is in fact
// elsewhere fails closed and says so; a proof skipped against a local engine
// would lose the guarantee without a sound.

import type { EngineName } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The variable a user sets to say the engine runs elsewhere when nothing else shows it. */
const REMOTE_ENGINE_ENV = 'BYRE_REMOTE_ENGINE';

interface LocalityFacts {
  platform: NodeJS.Platform;
  engine: EngineName;
  /** The engine CLI's real file name (`docker`, `podman`, `podman-remote`). */
  client: string;
  env: Env;
  /**
   * docker: the context the CLI would use when it is not `default`, with
   * its endpoint (null when its metadata could not be read); null otherwise.
   */
  dockerContext: { name: string; host: string | null } | null;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/** Why an endpoint URL is another machine's (or a VM's) engine; null when it may be this host's. */
function endpointElsewhere(url: string, what: string): string | null {
  const unix = /^unix:\/\/(\/.*)$/.exec(url);
  if (unix !== null) {
    return (unix[1] ?? '').includes('/.docker/desktop/')
      ? `${what} is Docker Desktop's socket, and its engine runs in a VM`
      : null;
  }
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)/i.exec(url);
  const scheme = m?.[1]?.toLowerCase() ?? '';
  const authority = (m?.[2] ?? '').replace(/^[^@]*@/, '');
  if (scheme === 'tcp' && LOOPBACK.test(authority)) return null;
  return `${what} ${scheme === '' ? 'is not a local socket' : `names ${scheme}://…`}, another machine's engine`;
}

/**
 * Why the engine's view of host files is not this host's (a VM, another
 * machine), or null when it may be this host's and the proof applies.
 */
export function engineElsewhere(f: LocalityFacts): string | null {
  if ((f.env[REMOTE_ENGINE_ENV] ?? '') !== '') return `${REMOTE_ENGINE_ENV} is set`;
  if (f.platform !== 'linux') return `byre runs on ${f.platform}, where the engine runs in a VM`;
  if (f.engine === 'podman') {
    if (f.client.includes('remote')) return `the podman client is ${f.client}`;
    const host = f.env['CONTAINER_HOST'] ?? '';
    if (host !== '') return endpointElsewhere(host, 'CONTAINER_HOST');
    if ((f.env['CONTAINER_CONNECTION'] ?? '') !== '') {
      return 'CONTAINER_CONNECTION names a podman connection (another machine or a VM)';
    }
    return null;
  }
  const host = f.env['DOCKER_HOST'] ?? '';
  if (host !== '') return endpointElsewhere(host, 'DOCKER_HOST');
  const ctx = f.dockerContext;
  if (ctx === null || ctx.host === null) return null;
  return endpointElsewhere(ctx.host, `the docker context "${ctx.name}"`);
}
