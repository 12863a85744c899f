// The IO half of docker's read-only questions over its API socket
// (adr/0040): finding the socket the docker CLI would ask, and one bounded
// GET on it. Every failure (no socket, refused, slow, oversize, not UTF-8)
// is `null`, never an error: the caller then asks the CLI, which says what
// is wrong in its own words.

import { realpathSync } from 'node:fs';
import path from 'node:path';

import { apiRoute, securityOptionsOf, type ApiRoute } from './docker-api-shape.js';
import { executableId, readConfig, socketId } from './facts-cache.js';
import { dockerConfigFile } from './facts-key.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A reply larger than this is not read: the CLI answers instead. */
export const API_MAX_BYTES = 4 * 1024 * 1024;
/** A daemon that has not answered by then is left to the CLI. */
export const API_TIMEOUT_MS = 3000;

/**
 * A native executable whose real name is `docker`: another program behind
 * the name (podman linked as docker, a snap launcher) keeps the CLI.
 */
function nativeDocker(cliPath: string): boolean {
  try {
    return path.basename(realpathSync(cliPath)) === 'docker' && executableId(cliPath) !== null;
  } catch {
    return false;
  }
}

/** Where byre may ask docker's API for the CLI at `cliPath`, now (a few stats and one small read). */
export function findApiRoute(cliPath: string, env: Env): ApiRoute {
  const configFile = dockerConfigFile(env);
  if (configFile === null) return { kind: 'cli', why: 'no home for config.json' };
  return apiRoute(env, readConfig(configFile), nativeDocker(cliPath), (p) => socketId(p) !== null);
}

export interface ApiReply {
  status: number;
  body: string;
}

export interface ApiGetOptions {
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

/** One GET over the unix socket at `socketPath`; null on any failure. */
export async function apiGet(
  socketPath: string,
  urlPath: string,
  options: ApiGetOptions = {},
): Promise<ApiReply | null> {
  const maxBytes = options.maxBytes ?? API_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? API_TIMEOUT_MS;
  const signal = options.signal;
  // Loaded here, not at the top: a command whose engine answers from
  // adr/0038's cache never opens the socket, and node:http costs ~1.7 ms.
  const { request } = await import('node:http');
  if (signal?.aborted === true) return null;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (reply: ApiReply | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      if (reply === null) req.destroy();
      resolve(reply);
    };
    const abort = (): void => finish(null);
    const req = request(
      {
        socketPath,
        path: urlPath,
        method: 'GET',
        headers: { Host: 'docker', Accept: 'application/json' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish(null);
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', () => finish(null));
        res.on('aborted', () => finish(null));
        res.on('end', () => {
          if (!res.complete) return finish(null);
          let body: string;
          try {
            body = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
              Buffer.concat(chunks),
            );
          } catch {
            return finish(null);
          }
          finish({ status: res.statusCode ?? 0, body });
        });
      },
    );
    const timer = setTimeout(() => finish(null), timeoutMs);
    signal?.addEventListener('abort', abort);
    req.on('error', () => finish(null));
    req.end();
  });
}

/**
 * Docker's SecurityOptions, printed as `docker info --format '{{json
 * .SecurityOptions}}'` prints them, from the socket the CLI at `cliPath`
 * would ask; null (ask the CLI) when there is no such route or the reply is
 * anything but a plain answer. An answer also says the daemon answers, which
 * is what `auto` asks.
 */
export async function apiSecurityOptions(
  cliPath: string,
  env: Env,
  timeoutMs: number,
): Promise<string | null> {
  const route = findApiRoute(cliPath, env);
  if (route.kind !== 'socket') return null;
  const reply = await apiGet(route.path, '/info', {
    timeoutMs: Math.min(timeoutMs, API_TIMEOUT_MS),
  });
  return reply === null ? null : securityOptionsOf(reply.status, reply.body);
}
