// Reads what engine/locality.ts decides over: the engine client's real name,
// and the endpoint of the docker context the CLI would use (its metadata
// file, `<config dir>/contexts/meta/<sha256 of the name>/meta.json`). A few
// small synchronous reads; anything unreadable leaves the answer local, so
// the proof runs and fails closed rather than being skipped.

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';

import { readRegularFile } from '../host/read-regular.js';
import { readConfig } from './facts-cache.js';
import { currentContext, dockerConfigFile } from './facts-key.js';
import { engineElsewhere } from './locality.js';
import type { EngineFacts } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

const META_MAX_BYTES = 64 * 1024;

function clientName(cliPath: string): string {
  try {
    return path.basename(realpathSync(cliPath));
  } catch {
    return path.basename(cliPath);
  }
}

/** The Endpoints.docker.Host of a context's metadata, or null when it cannot be read. */
function contextHost(configFile: string, name: string): string | null {
  const digest = createHash('sha256').update(name).digest('hex');
  const meta = path.join(path.dirname(configFile), 'contexts', 'meta', digest, 'meta.json');
  try {
    const read = readRegularFile(meta, META_MAX_BYTES);
    if (read.kind !== 'ok') return null;
    const value = JSON.parse(read.bytes.toString('utf8')) as {
      Endpoints?: { docker?: { Host?: unknown } };
    };
    const host = value.Endpoints?.docker?.Host;
    return typeof host === 'string' ? host : null;
  } catch {
    return null;
  }
}

/** The named docker context the CLI would use (not `default`), or null. */
function dockerContext(env: Env): { name: string; host: string | null } | null {
  const configFile = dockerConfigFile(env);
  const fromEnv = env['DOCKER_CONTEXT'] ?? '';
  let name = fromEnv;
  if (name === '' && configFile !== null) {
    const config = readConfig(configFile);
    name = config.kind === 'ok' ? (currentContext(config.text) ?? '') : '';
  }
  if (name === '' || name === 'default') return null;
  return { name, host: configFile === null ? null : contextHost(configFile, name) };
}

/** Why this engine does not see this host's files as byre does, or null (adr/0045). */
export function engineElsewhereNow(
  facts: Pick<EngineFacts, 'name' | 'path'>,
  env: Env,
): string | null {
  return engineElsewhere({
    platform: process.platform,
    engine: facts.name,
    client: clientName(facts.path),
    env,
    dockerContext:
      facts.name === 'docker' && (env['DOCKER_HOST'] ?? '') === '' ? dockerContext(env) : null,
  });
}
