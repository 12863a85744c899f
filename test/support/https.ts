// A local https server for fetch tests: a fresh self-signed certificate for
// 127.0.0.1 (openssl), listening on a free port for the enclosing describe,
// closed afterwards. Callers pass the certificate as the fetcher's extra CA.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { afterAll, beforeAll } from 'vitest';

import { useSharedTempDir } from './temp.js';

export interface HttpsServer {
  /** `https://127.0.0.1:<port>`; read it in hooks and tests. */
  readonly base: string;
  /** The server's certificate (PEM), to trust as a CA. */
  readonly ca: string;
}

export function useHttpsServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): HttpsServer {
  const tls = useSharedTempDir('tls');
  let server: Server | undefined;
  const state = { base: '', ca: '' };
  beforeAll(async () => {
    const dir = tls.path;
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    state.ca = readFileSync(cert, 'utf8');
    server = createServer({ key: readFileSync(key), cert: state.ca }, handle);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    state.base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) =>
      server === undefined ? resolve() : server.close(() => resolve()),
    );
  });
  return {
    get base() {
      return state.base;
    },
    get ca() {
      return state.ca;
    },
  };
}
