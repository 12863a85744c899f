import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createRawServer, type Socket } from 'node:net';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { EngineError } from '../errors.js';
import { apiGet, findApiRoute } from './docker-api.js';
import { detectEngine } from './detect.js';
import { createEngine } from './runner.js';
import type { EngineFacts } from './types.js';

// A real HTTP server on a real unix socket in a temp dir stands for the
// daemon. The engine CLI is a copy of `false` (native, so the API may be
// used; asked, it fails): an EngineError shows the CLI was asked instead.

const FALSE = ['/usr/bin/false', '/bin/false'].find((p) => existsSync(p)) ?? '/bin/false';

let root: string;
let sock: string;
let cli: string;
let home: string;
const servers: Server[] = [];

useTempDir('docker-api', (tmp) => {
  root = tmp;
  sock = path.join(root, 'd.sock');
  home = path.join(root, 'home');
  mkdirSync(home);
  cli = path.join(root, 'bin', 'docker');
  mkdirSync(path.dirname(cli));
  copyFileSync(FALSE, cli);
});

afterEach(async () => {
  for (const s of servers.splice(0)) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function daemon(handler: Handler, at: string = sock): Promise<IncomingMessage[]> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at, resolve));
  return seen;
}

const json =
  (status: number, body: string): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(body);
  };

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  HOME: home,
  DOCKER_HOST: `unix://${sock}`,
  ...extra,
});

const facts = (p: string = cli): EngineFacts => ({
  name: 'docker',
  path: p,
  rootless: false,
  keepId: false,
  version: '',
  warnings: [],
});

const ID = 'c'.repeat(64);
const LIST = JSON.stringify([
  { Id: ID, Labels: { 'byre.project': 'p', 'byre.workdir': 'w\t\u001b[2J', 'byre.launch': 'L' } },
]);
const QUERY = { labels: { 'byre.project': 'p' }, all: false };
const KEYS = ['byre.workdir', 'byre.client', 'byre.launch'];

describe('apiGet: one bounded GET over a unix socket', () => {
  it('returns the status and the whole body, and sends the path as given', async () => {
    const seen = await daemon(json(200, LIST));
    expect(await apiGet(sock, '/containers/json?all=1')).toEqual({ status: 200, body: LIST });
    expect(seen[0]?.url).toBe('/containers/json?all=1');
    expect(seen[0]?.method).toBe('GET');
  });

  it.each([404, 500, 503])('passes status %i through', async (status) => {
    await daemon(json(status, '{"message":"x"}'));
    expect((await apiGet(sock, '/x'))?.status).toBe(status);
  });

  it('a chunked body arrives whole', async () => {
    await daemon((_req, res) => {
      res.writeHead(200);
      res.write('[{"Id":');
      setTimeout(() => res.end(`"${ID}"}]`), 20);
    });
    expect((await apiGet(sock, '/x'))?.body).toBe(`[{"Id":"${ID}"}]`);
  });

  it('a body over the cap is dropped', async () => {
    await daemon(json(200, 'x'.repeat(2048)));
    expect(await apiGet(sock, '/x', { maxBytes: 1024 })).toBeNull();
    expect((await apiGet(sock, '/x', { maxBytes: 4096 }))?.body).toHaveLength(2048);
  });

  it('a daemon slower than the bound is dropped', async () => {
    await daemon((_req, res) => {
      setTimeout(() => res.end('[]'), 2000).unref();
    });
    expect(await apiGet(sock, '/x', { timeoutMs: 100 })).toBeNull();
  });

  it('a body that stops short is dropped', async () => {
    await daemon((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('[');
      setTimeout(() => res.destroy(), 20);
    });
    expect(await apiGet(sock, '/x')).toBeNull();
  });

  it('bytes that are not UTF-8 (or a BOM) are dropped', async () => {
    await daemon((req, res) => {
      res.writeHead(200);
      res.end(req.url === '/bom' ? Buffer.from('\ufeff[]') : Buffer.from([0x5b, 0xe2, 0x82, 0x5d]));
    });
    expect(await apiGet(sock, '/x')).toBeNull();
    expect((await apiGet(sock, '/bom'))?.body).toBe('\ufeff[]');
  });

  it('no listener, or no socket at all, is null', async () => {
    writeFileSync(path.join(root, 'file'), '');
    expect(await apiGet(path.join(root, 'nothing.sock'), '/x')).toBeNull();
    expect(await apiGet(path.join(root, 'file'), '/x')).toBeNull();
  });

  it('an aborted signal ends the request', async () => {
    await daemon((_req, res) => {
      setTimeout(() => res.end('[]'), 2000).unref();
    });
    const cancel = new AbortController();
    const pending = apiGet(sock, '/x', { signal: cancel.signal });
    setTimeout(() => cancel.abort(), 20);
    expect(await pending).toBeNull();
    expect(await apiGet(sock, '/x', { signal: AbortSignal.abort() })).toBeNull();
  });
});

// A daemon that writes exactly the given bytes (in pieces, a few ms apart)
// and then closes, unless told to keep the connection open.
const raws: ReturnType<typeof createRawServer>[] = [];
afterEach(async () => {
  await Promise.all(raws.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function rawDaemon(
  at: string,
  pieces: (string | Buffer)[],
  options: { keepOpen?: boolean } = {},
): Promise<string[]> {
  const requests: string[] = [];
  const open: Socket[] = [];
  const server = createRawServer((socket) => {
    open.push(socket);
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (!got.endsWith('\r\n\r\n')) return;
      requests.push(got);
      let i = 0;
      const next = (): void => {
        const piece = pieces[i++];
        if (piece !== undefined) {
          socket.write(piece);
          setTimeout(next, 5).unref();
        } else if (options.keepOpen !== true) socket.end();
      };
      next();
    });
    socket.on('error', () => undefined);
  });
  raws.push(server);
  server.on('close', () => open.forEach((s) => s.destroy()));
  await new Promise<void>((resolve) => server.listen(at, resolve));
  return requests;
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';
/** Each case: what the daemon writes, and the reply apiGet must give (null: ask the CLI). */
const FRAMED: [string, (string | Buffer)[], { status: number; body: string } | null][] = [
  ['Content-Length', [`${OK}Content-Length: 2\r\n\r\n`, '[]'], { status: 200, body: '[]' }],
  [
    'chunked, in pieces',
    [`${OK}Transfer-Encoding: chunked\r\n\r\n7\r\n[{"`, 'Id":\r\n', '6\r\n"x"}]\n\r\n0\r\n\r\n'],
    { status: 200, body: '[{"Id":"x"}]\n' },
  ],
  [
    'close-delimited (HTTP/1.0)',
    ['HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[', ']'],
    { status: 200, body: '[]' },
  ],
  [
    'a 404 with its message',
    ['HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\n\r\n{"message":"x"}'],
    { status: 404, body: '{"message":"x"}' },
  ],
  ['a folded header', [`${OK}X: 1\r\n y\r\nContent-Length: 2\r\n\r\n[]`], null],
  ['two framings', [`${OK}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`], null],
  ['a chunked body cut short', [`${OK}Transfer-Encoding: chunked\r\n\r\n5\r\n[]`], null],
  ['a body longer than its length', [`${OK}Content-Length: 1\r\n\r\n[]`], null],
  ['not UTF-8', [`${OK}Content-Length: 3\r\n\r\n`, Buffer.from([0x5b, 0xc3, 0x5d])], null],
  ['no reply at all', [], null],
];

describe('apiGet reads every framing, and doubts the rest', () => {
  it.each(FRAMED)('%s', async (_what, pieces, want) => {
    const requests = await rawDaemon(sock, pieces);
    expect(await apiGet(sock, '/containers/json?all=1')).toEqual(want);
    expect(requests).toEqual([
      'GET /containers/json?all=1 HTTP/1.1\r\nHost: docker\r\n' +
        'Accept: application/json\r\nConnection: close\r\n\r\n',
    ]);
  });

  it('a daemon that keeps the connection open is left to the CLI at the bound', async () => {
    await rawDaemon(sock, [`${OK}Content-Length: 2\r\n\r\n[]`], { keepOpen: true });
    expect(await apiGet(sock, '/x', { timeoutMs: 200 })).toBeNull();
  });

  it('a path that is not one request line is never sent', async () => {
    const requests = await rawDaemon(sock, [`${OK}Content-Length: 2\r\n\r\n[]`]);
    expect(await apiGet(sock, '/a b\r\nX: y')).toBeNull();
    expect(requests).toEqual([]);
  });

  it('under bun (the socket the compiled binary uses), the same replies', async () => {
    // One bun child asks every case's daemon, each on its own socket.
    const asks = await Promise.all(
      FRAMED.map(async ([, pieces], i) => {
        const at = path.join(root, `f${i}.sock`);
        await rawDaemon(at, pieces);
        return [at, '/containers/json?all=1', {}];
      }),
    );
    const slow = path.join(root, 'slow.sock');
    await rawDaemon(slow, [`${OK}Content-Length: 2\r\n\r\n[]`], { keepOpen: true });
    asks.push(
      [slow, '/x', { timeoutMs: 200 }],
      [slow, '/x', { timeoutMs: 60_000, abortAfterMs: 50 }],
    );
    const big = path.join(root, 'big.sock');
    await rawDaemon(big, [`${OK}Content-Length: 2048\r\n\r\n`, 'x'.repeat(2048)]);
    asks.push([big, '/x', { maxBytes: 1024 }], [big, '/x', { maxBytes: 2048 }]);
    asks.push([path.join(root, 'none.sock'), '/x', {}]);
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        path.resolve('node_modules/.bin/bun'),
        [path.resolve('test/support/api-get-probe.ts'), JSON.stringify(asks)],
        (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
      );
    });
    expect(JSON.parse(out)).toEqual([
      ...FRAMED.map(([, , want]) => want),
      null,
      null,
      null,
      { status: 200, body: 'x'.repeat(2048) },
      null,
    ]);
  });
});

describe('findApiRoute: the socket the docker CLI would ask', () => {
  it('a native CLI and a live socket', async () => {
    await daemon(json(200, '[]'));
    expect(findApiRoute(cli, env())).toEqual({ kind: 'socket', path: sock });
  });

  it('a script CLI keeps the CLI', async () => {
    await daemon(json(200, '[]'));
    const script = path.join(root, 'bin', 'shim');
    writeFileSync(script, '#!/bin/sh\nexec podman "$@"\n');
    chmodSync(script, 0o755);
    expect(findApiRoute(script, env()).kind).toBe('cli');
  });

  it('a native CLI by another real name (podman linked as docker) keeps the CLI', async () => {
    await daemon(json(200, '[]'));
    const other = path.join(root, 'bin', 'podman');
    copyFileSync(FALSE, other);
    const link = path.join(root, 'link-bin');
    mkdirSync(link);
    symlinkSync(other, path.join(link, 'docker'));
    expect(findApiRoute(other, env()).kind).toBe('cli');
    expect(findApiRoute(path.join(link, 'docker'), env()).kind).toBe('cli');
    symlinkSync(cli, path.join(link, 'dock'));
    expect(findApiRoute(path.join(link, 'dock'), env())).toEqual({ kind: 'socket', path: sock });
  });

  it('a socket path that is a link, or missing, keeps the CLI', async () => {
    await daemon(json(200, '[]'));
    const link = path.join(root, 'link.sock');
    symlinkSync(sock, link);
    expect(findApiRoute(cli, env({ DOCKER_HOST: `unix://${link}` })).kind).toBe('cli');
    expect(findApiRoute(cli, env({ DOCKER_HOST: `unix://${root}/none.sock` })).kind).toBe('cli');
  });

  it('config.json naming a context, or unreadable, keeps the CLI', async () => {
    await daemon(json(200, '[]'));
    const noHost = { HOME: home };
    mkdirSync(path.join(home, '.docker'));
    const config = path.join(home, '.docker', 'config.json');
    writeFileSync(config, '{"currentContext":"remote"}');
    expect(findApiRoute(cli, noHost).kind).toBe('cli');
    rmSync(config);
    mkdirSync(config);
    expect(findApiRoute(cli, env()).kind).toBe('cli');
  });
});

describe('the docker engine asks the API, and the CLI whenever in doubt', () => {
  it('ps and psLabels answer from the socket with the filters the CLI sends', async () => {
    const seen = await daemon(json(200, LIST));
    const engine = createEngine(facts(), { env: env() });
    expect(await engine.psLabels(QUERY, KEYS)).toEqual([
      { id: ID, labels: { 'byre.workdir': 'w\t\u001b[2J', 'byre.launch': 'L' } },
    ]);
    expect(await engine.ps({ ...QUERY, all: true })).toEqual([ID]);
    const urls = seen.map((r) => new URL(r.url ?? '', 'http://d'));
    expect(urls.map((u) => u.searchParams.get('all'))).toEqual([null, '1']);
    expect(urls.map((u) => JSON.parse(u.searchParams.get('filters') ?? ''))).toEqual([
      { label: { 'byre.project=p': true } },
      { label: { 'byre.project=p': true } },
    ]);
  });

  it('inspectContainers answers each ref, leaving out what the daemon does not have', async () => {
    await daemon((req, res) => {
      if (req.url === `/containers/${ID}/json`) {
        json(
          200,
          JSON.stringify({
            Id: ID,
            State: { Running: true },
            Config: { Labels: { a: 'b' }, Env: ['X=1'] },
          }),
        )(req, res);
      } else json(404, '{"message":"No such container: gone"}')(req, res);
    });
    const engine = createEngine(facts(), { env: env() });
    expect(await engine.inspectContainers(['gone', ID])).toEqual([
      { id: ID, running: true, labels: { a: 'b' }, env: { X: '1' } },
    ]);
    expect(await engine.inspectContainers([])).toEqual([]);
  });

  it.each<[string, Handler]>([
    ['a server error', json(500, '{"message":"boom"}')],
    ['garbage JSON', json(200, '[{"Id":')],
    ['an unknown shape', json(200, '{"containers":[]}')],
    ['a label that is not a string', json(200, `[{"Id":"${ID}","Labels":{"a":true}}]`)],
    ['an oversize reply', json(200, `[${'{"Id":"x"},'.repeat(500_000)}{"Id":"x"}]`)],
  ])('%s: the CLI is asked', async (_what, handler) => {
    await daemon(handler);
    const engine = createEngine(facts(), { env: env() });
    await expect(engine.psLabels(QUERY, KEYS)).rejects.toBeInstanceOf(EngineError);
    await expect(engine.inspectContainers([ID])).rejects.toBeInstanceOf(EngineError);
  });

  it('a refused socket: the CLI is asked', async () => {
    // What a dead daemon leaves: a socket with no listener behind it.
    execFileSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(sock)}, () => process.exit(0))`,
    ]);
    expect(findApiRoute(cli, env())).toEqual({ kind: 'socket', path: sock });
    const engine = createEngine(facts(), { env: env() });
    await expect(engine.psLabels(QUERY, KEYS)).rejects.toBeInstanceOf(EngineError);
  });

  it.each<[string, Record<string, string>]>([
    ['TLS', { DOCKER_TLS_VERIFY: '1' }],
    ['a pinned API version', { DOCKER_API_VERSION: '1.40' }],
    ['a tcp host', { DOCKER_HOST: 'tcp://127.0.0.1:1' }],
  ])('%s: the CLI is asked and the socket is not', async (_what, extra) => {
    const seen = await daemon(json(200, LIST));
    const engine = createEngine(facts(), { env: env(extra) });
    await expect(engine.psLabels(QUERY, KEYS)).rejects.toBeInstanceOf(EngineError);
    expect(seen).toHaveLength(0);
  });

  it('a script CLI answers itself even with a good socket', async () => {
    const seen = await daemon(json(200, LIST));
    const script = path.join(root, 'bin', 'script-docker');
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' '["${'d'.repeat(64)}","w","",""]'\n`);
    chmodSync(script, 0o755);
    const engine = createEngine(facts(script), { env: env() });
    expect(await engine.psLabels(QUERY, KEYS)).toEqual([
      { id: 'd'.repeat(64), labels: { 'byre.workdir': 'w' } },
    ]);
    expect(seen).toHaveLength(0);
  });

  it('podman never asks a socket', async () => {
    const seen = await daemon(json(200, LIST));
    const engine = createEngine({ ...facts(), name: 'podman' }, { env: env() });
    await expect(engine.psLabels(QUERY, KEYS)).rejects.toBeInstanceOf(EngineError);
    expect(seen).toHaveLength(0);
  });
});

describe('detection asks the socket for `info`, and the CLI whenever in doubt', () => {
  const detectEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...env(extra),
    PATH: path.dirname(cli),
  });
  const INFO = '{"ID":"x","SecurityOptions":["name=seccomp,profile=default","name=rootless"]}';

  it('docker named: rootlessness from GET /info, no CLI run', async () => {
    const seen = await daemon(json(200, INFO));
    const found = await detectEngine('docker', [], detectEnv());
    expect([found.name, found.path, found.rootless]).toEqual(['docker', cli, true]);
    expect(seen.map((r) => r.url)).toEqual(['/info']);
  });

  it('auto: a daemon answering on the socket is docker answering', async () => {
    await daemon(json(200, '{"SecurityOptions":[]}'));
    const found = await detectEngine('auto', [], detectEnv());
    expect([found.name, found.rootless]).toEqual(['docker', false]);
  });

  it('an odd reply asks the CLI, whose failure is the answer', async () => {
    await daemon(json(500, '{"message":"boom"}'));
    await expect(detectEngine('docker', [], detectEnv())).rejects.toBeInstanceOf(EngineError);
  });

  it('doctor (version asked) and the stub-engine probe ask the CLI even with a good socket', async () => {
    const seen = await daemon(json(200, INFO));
    await expect(detectEngine('docker', [], detectEnv(), { version: true })).rejects.toBeInstanceOf(
      EngineError,
    );
    await expect(
      detectEngine('docker', [], detectEnv(), { alwaysProbeRootless: true }),
    ).rejects.toBeInstanceOf(EngineError);
    expect(seen).toEqual([]);
  });

  it('no route (TLS set): the CLI is asked, not the socket', async () => {
    const seen = await daemon(json(200, INFO));
    await expect(
      detectEngine('docker', [], detectEnv({ DOCKER_TLS_VERIFY: '1' })),
    ).rejects.toBeInstanceOf(EngineError);
    expect(seen).toEqual([]);
  });
});
