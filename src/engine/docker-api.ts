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
import { getRequest, MAX_HEADER_BYTES, parseReply } from './http-reply.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A reply larger than this is not read: the CLI answers instead. */
const API_MAX_BYTES = 4 * 1024 * 1024;
/** A daemon that has not answered by then is left to the CLI. */
const API_TIMEOUT_MS = 3000;

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

interface ApiReply {
  status: number;
  body: string;
}

interface ApiGetOptions {
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
  const request = getRequest(urlPath);
  if (request === null || options.signal?.aborted === true) return null;
  // The framing (chunk lines, the header block) is bounded apart from the body.
  const raw = await exchange(socketPath, request, {
    timeoutMs: options.timeoutMs ?? API_TIMEOUT_MS,
    maxBytes: maxBytes + MAX_HEADER_BYTES + Math.ceil(maxBytes / 8),
    signal: options.signal,
  });
  const reply = raw === null ? null : parseReply(raw, maxBytes);
  if (reply === null) return null;
  let body: string;
  try {
    body = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(reply.body);
  } catch {
    return null;
  }
  return { status: reply.status, body };
}

interface ExchangeOptions {
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/** The one call of bun's own socket API byre makes; absent under node. */
interface BunSocket {
  write(data: string): number;
  end(): void;
  terminate(): void;
}
interface BunRuntime {
  connect(options: {
    unix: string;
    socket: {
      open(s: BunSocket): void;
      data(s: BunSocket, chunk: Uint8Array): void;
      drain(s: BunSocket): void;
      end(s: BunSocket): void;
      close(s: BunSocket): void;
      error(s: BunSocket, e: Error): void;
      connectError(s: BunSocket, e: Error): void;
    };
  }): Promise<BunSocket>;
}

/**
 * Writes `request` to the socket and resolves to every byte the peer sent
 * until it closed, or null: refused, an error, over `maxBytes`, slower than
 * the bound, or aborted. In the compiled binary this is bun's own socket:
 * `node:net` there costs ~2 ms to load and ~3 ms more to the first byte
 * (and `node:http` ~5 ms to load) against ~1 ms for the whole exchange
 * (adr/0040). Under node (the unit tier) it is `node:net`.
 */
async function exchange(
  socketPath: string,
  request: string,
  options: ExchangeOptions,
): Promise<Buffer | null> {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  const net = bun === undefined ? await import('node:net') : null;
  if (options.signal?.aborted === true) return null;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let close = (): void => undefined;
    const finish = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      close();
      resolve(ok ? Buffer.concat(chunks, size) : null);
    };
    const abort = (): void => finish(false);
    const take = (chunk: Uint8Array): void => {
      size += chunk.length;
      if (size > options.maxBytes) return finish(false);
      // A copy: bun may reuse the buffer it lends the callback.
      chunks.push(Buffer.from(chunk));
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs);
    options.signal?.addEventListener('abort', abort);
    if (bun !== undefined) {
      let unsent = request;
      const send = (s: BunSocket): void => {
        const n = s.write(unsent);
        // Writes are ASCII, so bytes written are characters written.
        unsent = n > 0 ? unsent.slice(n) : unsent;
      };
      bun
        .connect({
          unix: socketPath,
          socket: {
            open(s) {
              close = () => s.terminate();
              if (settled) s.terminate();
              else send(s);
            },
            data: (_s, chunk) => take(chunk),
            drain(s) {
              if (unsent !== '') send(s);
            },
            end: () => finish(unsent === ''),
            close: () => finish(unsent === ''),
            error: () => finish(false),
            connectError: () => finish(false),
          },
        })
        .catch(() => finish(false));
    } else if (net !== null) {
      const socket = net.createConnection(socketPath);
      close = () => socket.destroy();
      socket.on('connect', () => socket.write(request));
      socket.on('data', take);
      socket.on('end', () => finish(true));
      socket.on('close', () => finish(true));
      socket.on('error', () => finish(false));
    }
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
