// The edge process (src/gen/chassis/byre-edge.cjs, adr/0070) on loopback:
// the script runs under node as its own process, fed by the one encoder
// (src/credentials/edge-input.ts), between a client and a fixture HTTPS
// upstream with its own CA that echoes what it receives (so what reached it
// is read from its own log, `seen`: the edge masks the value in the echo). Certificates are
// minted with the host's openssl in a temp dir. Root only (the edge drops
// from root to 65534 and refuses to run when it cannot); nothing leaves
// loopback: upstream connections go to 127.0.0.1 by the edge's test flag.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeTempDir, removeTempDir } from '../../test/support/temp.js';
import type { Presentation } from '../config/inject.js';
import { encodeEdgeInput } from '../credentials/edge-input.js';
import { parseEdgeEvents } from '../status/injection.js';

const EDGE = fileURLToPath(new URL('./chassis/byre-edge.cjs', import.meta.url));
const isRoot = process.getuid?.() === 0;

/** A loopback address of the edge's own, away from 127.0.0.1 where the fixtures listen. */
const EDGE_ADDR = `127.31.${10 + Math.floor(Math.random() * 200)}.${2 + Math.floor(Math.random() * 250)}`;

const SECRET = {
  header: `sk-hdr-${Math.random().toString(36).slice(2)}`,
  bearer: `tok-brr-${Math.random().toString(36).slice(2)}`,
  basic: `tok-bsc-${Math.random().toString(36).slice(2)}`,
  bad: `tok-bad-${Math.random().toString(36).slice(2)}`,
};
const ALL_SECRETS = Object.values(SECRET);

// ---------------------------------------------------------------------------
// Certificates.

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** An EC P-256 CA in dir/<name>.{key,crt}. */
function mintCa(dir: string, name: string): string {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  return readFileSync(path.join(dir, `${name}.crt`), 'utf8');
}

/** A leaf for `host` signed by CA `ca`: { cert, key } PEM. */
function mintLeaf(dir: string, ca: string, host: string): { cert: string; key: string } {
  const stem = `${ca}-${host}`;
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${host}`,
    '-keyout',
    `${stem}.key`,
    '-out',
    `${stem}.csr`,
  ]);
  const ext = path.join(dir, `${stem}.ext`);
  execFileSync('sh', ['-c', `printf 'subjectAltName=DNS:%s\\n' "$1" > "$2"`, 'sh', host, ext]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${stem}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    ext,
    '-out',
    `${stem}.crt`,
  ]);
  return {
    cert: readFileSync(path.join(dir, `${stem}.crt`), 'utf8'),
    key: readFileSync(path.join(dir, `${stem}.key`), 'utf8'),
  };
}

// ---------------------------------------------------------------------------
// Fixture upstream: echoes the request's raw headers as JSON.

interface Seen {
  host: string;
  url: string;
  rawHeaders: string[];
}

function listenOn(server: http.Server | https.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: http.Server | https.Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (server === undefined || !server.listening) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A free TCP port on `host` (bound and released). */
async function freePort(host: string): Promise<number> {
  const s = http.createServer();
  const port = await listenOn(s, host);
  await close(s);
  return port;
}

// ---------------------------------------------------------------------------
// The edge.

interface Edge {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();

/**
 * The edge as its image runs it: restored from a startup snapshot node built
 * from the script (adr/0078), the script's arguments after `--`.
 */
function buildSnapshot(dir: string): string {
  const blob = path.join(dir, 'byre-edge.blob');
  execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', EDGE], {
    cwd: dir,
    stdio: 'ignore',
  });
  return blob;
}

function startEdge(
  args: string[],
  as?: { uid: number; gid: number },
  env: NodeJS.ProcessEnv = process.env,
  snapshot?: string,
): Edge {
  const script =
    snapshot === undefined ? [EDGE] : ['--no-warnings', '--snapshot-blob', snapshot, '--'];
  const child = spawn(process.execPath, [...script, '--address', EDGE_ADDR, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
    ...as,
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once host:port accepts a connection (the edge has bound its listeners). */
async function waitForConnect(host: string, port: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await connects(host, port)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`nothing listened on ${host}:${port}`);
}

/** Resolves once `pred(stdout)` holds; rejects if the edge exits first. */
function waitFor(edge: Edge, pred: (out: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (pred(edge.stdout())) {
        edge.child.stdout?.off('data', check);
        resolve();
      }
    };
    edge.child.stdout?.on('data', check);
    void edge.exited.then((code) => reject(new Error(`edge exited ${code}: ${edge.stderr()}`)));
    check();
  });
}

// ---------------------------------------------------------------------------
// Client.

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function collect(res: http.IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    res.on('error', reject);
  });
}

describe.skipIf(!isRoot)('the edge process on loopback (root: it drops to 65534)', () => {
  let dir = '';
  let edgeCa = '';
  let fixtureCa = '';
  let fixture: https.Server | undefined;
  let badFixture: https.Server | undefined;
  let port = 0;
  let badPort = 0;
  let plainPort = 0;
  const seen: Seen[] = [];
  let edge: Edge | undefined;

  const running = (): Edge => {
    if (edge === undefined) throw new Error('the edge did not start');
    return edge;
  };

  beforeAll(async () => {
    dir = makeTempDir('edge');
    edgeCa = mintCa(dir, 'edge-ca');
    fixtureCa = mintCa(dir, 'fixture-ca');
    mintCa(dir, 'rogue-ca');
    const names = ['api.fixture.test', 'bearer.fixture.test', 'basic.fixture.test'];
    const upstreamLeaves = new Map(
      [...names, 'other.fixture.test'].map((n) => [n, mintLeaf(dir, 'fixture-ca', n)]),
    );
    fixture = https.createServer({
      SNICallback: (name, cb) => {
        const leaf = upstreamLeaves.get(name);
        if (leaf === undefined) return cb(new Error('no such fixture name'));
        cb(null, tls.createSecureContext(leaf));
      },
    });
    const echo = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      const entry = {
        host: (req.socket as unknown as { servername: string }).servername,
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
      };
      seen.push(entry);
      req.resume();
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'https://elsewhere.fixture.test/landing' });
        return void res.end();
      }
      const value = SECRET.header;
      if (req.url === '/split') {
        // The value in two writes, apart in time: two chunks at the edge.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(`before ${value.slice(0, 5)}`);
        return void setTimeout(() => res.end(`${value.slice(5)} after`), 50);
      }
      if (req.url === '/prefix') {
        // Ends in the value's first bytes, never completed: passed as is.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('tail ');
        return void setTimeout(() => res.end(value.slice(0, 5)), 50);
      }
      if (req.url === '/in-header') {
        res.writeHead(200, `OK ${value}`, { 'x-echo': `key=${value};`, 'content-length': 0 });
        return void res.end();
      }
      if (req.url === '/gzip') {
        const body = gzipSync(JSON.stringify(entry));
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': body.length });
        return void res.end(body);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(entry));
    };
    fixture.on('request', echo);
    fixture.on('upgrade', (req: http.IncomingMessage, socket: Socket) => {
      seen.push({ host: 'upgrade', url: req.url ?? '', rawHeaders: req.rawHeaders });
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nx-echo: ${SECRET.header}\r\n\r\n`,
      );
      socket.on('data', (d) => socket.write(d));
    });
    // The unverifiable upstream: a name the edge injects, a leaf from a CA it does not trust.
    const rogue = mintLeaf(dir, 'rogue-ca', 'bad.fixture.test');
    badFixture = https.createServer(rogue, echo);
    port = await listenOn(fixture, '127.0.0.1');
    badPort = await listenOn(badFixture, '127.0.0.1');
    plainPort = await freePort(EDGE_ADDR);

    const leaf = (n: string): { cert: string; key: string } => mintLeaf(dir, 'edge-ca', n);
    const route = (name: string, p: number, presentation: Presentation, value: string) => ({
      host: { name, port: p },
      presentation,
      value,
      ...leaf(name),
    });
    const input = encodeEdgeInput({
      routes: [
        route('api.fixture.test', port, { kind: 'header', name: 'X-Api-Key' }, SECRET.header),
        route('bearer.fixture.test', port, { kind: 'bearer' }, SECRET.bearer),
        route('basic.fixture.test', port, { kind: 'basic', user: 'x-access-token' }, SECRET.basic),
        route('bad.fixture.test', badPort, { kind: 'header', name: 'x-api-key' }, SECRET.bad),
      ],
      upstreamCa: fixtureCa,
    });
    if (!input.ok) throw new Error(input.problem);
    // The environment may not turn verification off: the unverifiable
    // upstream below is still refused. This edge runs from a snapshot, as in
    // its image; the cases that start their own run the script directly.
    edge = startEdge(
      [
        '--port',
        String(port),
        '--port',
        String(badPort),
        '--plain-port',
        String(plainPort),
        '--upstream-address',
        '127.0.0.1',
      ],
      undefined,
      { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' },
      buildSnapshot(dir),
    );
    // Held open, as byre holds it for the session: its end ends the edge.
    edge.child.stdin?.write(input.text);
    await waitFor(edge, (o) => o.includes('byre-edge 1 ready\n'));
  });

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await close(fixture);
    await close(badFixture);
    if (dir !== '') removeTempDir(dir);
  });

  /** A request to the edge for `name` (SNI and, unless given, Host). */
  function viaEdge(
    name: string,
    opts: { path?: string; headers?: http.OutgoingHttpHeaders; port?: number } = {},
  ): Promise<Reply> {
    const p = opts.port ?? port;
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: EDGE_ADDR,
          port: p,
          servername: name,
          ca: edgeCa,
          path: opts.path ?? '/echo',
          headers: { host: `${name}:${p}`, ...opts.headers },
          agent: false,
        },
        (res) => void collect(res).then(resolve, reject),
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** The headers the fixture last received, from its own log. */
  const received = (): string[] => {
    const last = seen.at(-1);
    if (last === undefined) throw new Error('the fixture received nothing');
    return last.rawHeaders;
  };
  const valuesOf = (raw: string[], name: string): string[] =>
    raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);

  it('presents a header credential, replacing what the client sent under that name', async () => {
    const r = await viaEdge('api.fixture.test', {
      headers: { 'x-api-key': 'byre-edge-sentinel', 'proxy-authorization': 'Basic eDp5' },
    });
    expect(r.status).toBe(200);
    const raw = received();
    expect(valuesOf(raw, 'x-api-key')).toEqual([SECRET.header]);
    expect(valuesOf(raw, 'proxy-authorization')).toEqual([]);
  });

  it('presents bearer, replacing every Authorization the client sent', async () => {
    // Two Authorization lines: the sentinel and a forged second one.
    const forged: Record<string, string[]> = {
      authorization: ['Bearer byre-edge-sentinel', 'Basic Zm9yZ2Vk'],
    };
    await viaEdge('bearer.fixture.test', { headers: forged });
    expect(valuesOf(received(), 'authorization')).toEqual([`Bearer ${SECRET.bearer}`]);
  });

  it('presents basic as user:value', async () => {
    await viaEdge('basic.fixture.test');
    const token = Buffer.from(`x-access-token:${SECRET.basic}`).toString('base64');
    expect(valuesOf(received(), 'authorization')).toEqual([`Basic ${token}`]);
  });

  it('keeps a client connection alive across requests', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: edgeCa });
    const sockets = new Set<unknown>();
    try {
      for (let i = 0; i < 3; i += 1) {
        const r = await new Promise<Reply>((resolve, reject) => {
          const req = https.request(
            {
              host: EDGE_ADDR,
              port,
              servername: 'api.fixture.test',
              path: `/ka${i}`,
              headers: { host: `api.fixture.test:${port}` },
              agent,
            },
            (res) => void collect(res).then(resolve, reject),
          );
          req.on('socket', (s) => sockets.add(s));
          req.on('error', reject);
          req.end();
        });
        expect(r.status).toBe(200);
        expect(valuesOf(received(), 'x-api-key')).toEqual([SECRET.header]);
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('refuses a name it does not inject at the handshake (unknown-host): nothing reaches the upstream', async () => {
    const before = seen.length;
    await expect(viaEdge('other.fixture.test')).rejects.toThrow();
    await waitFor(running(), (o) => o.includes(' unknown-host other.fixture.test\n'));
    expect(seen.length).toBe(before);
  });

  it('refuses a TLS client that sends no server name (unknown-host -)', async () => {
    await expect(
      new Promise((resolve, reject) => {
        const req = https.request(
          { host: EDGE_ADDR, port, ca: edgeCa, servername: '', agent: false, path: '/' },
          resolve,
        );
        req.on('error', reject);
        req.end();
      }),
    ).rejects.toThrow();
    await waitFor(running(), (o) => / unknown-host -\n/.test(o));
  });

  it('refuses a Host that is not the TLS name, and the absolute form (host-mismatch)', async () => {
    const before = seen.length;
    const other = await viaEdge('api.fixture.test', {
      headers: { host: `other.fixture.test:${port}` },
    });
    expect(other.status).toBe(403);
    const absolute = await viaEdge('api.fixture.test', {
      path: `https://api.fixture.test:${port}/echo`,
    });
    expect(absolute.status).toBe(403);
    expect(seen.length).toBe(before);
    await waitFor(
      running(),
      (o) => o.split('\n').filter((l) => l.endsWith(' host-mismatch api.fixture.test')).length >= 2,
    );
  });

  it('refuses plain HTTP on its plain port (plain-http) and forwards nothing', async () => {
    const before = seen.length;
    const r = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        {
          host: EDGE_ADDR,
          port: plainPort,
          path: '/',
          headers: { host: 'api.fixture.test', 'x-api-key': 'byre-edge-sentinel' },
          agent: false,
        },
        (res) => void collect(res).then(resolve, reject),
      );
      req.on('error', reject);
      req.end();
    });
    expect(r.status).toBe(403);
    expect(seen.length).toBe(before);
    await waitFor(running(), (o) => o.includes(' plain-http api.fixture.test\n'));
  });

  it('escapes and bounds a hostile name in its event line', async () => {
    const r = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        {
          host: EDGE_ADDR,
          port: plainPort,
          path: '/',
          headers: { host: `Odd!\u00e9${'%'.repeat(400)}` },
          agent: false,
        },
        (res) => void collect(res).then(resolve, reject),
      );
      req.on('error', reject);
      req.end();
    });
    expect(r.status).toBe(403);
    await waitFor(running(), (o) => o.includes(' plain-http odd\\033\\195\\169\\037'));
    const line = running()
      .stdout()
      .split('\n')
      .find((l) => l.includes(' plain-http odd'));
    expect(line?.length).toBeLessThanOrEqual(600);
  });

  it('sends nothing to an upstream whose certificate does not verify (502, upstream-unverified), whatever NODE_TLS_REJECT_UNAUTHORIZED says', async () => {
    const before = seen.length;
    const r = await viaEdge('bad.fixture.test', { port: badPort });
    expect(r.status).toBe(502);
    expect(seen.length).toBe(before);
    await waitFor(running(), (o) => o.includes(' upstream-unverified bad.fixture.test\n'));
  });

  describe('a response never carries the value back to the box', () => {
    const masked = (v: string): string => '*'.repeat(v.length);

    it('masks every form of it in an echo, byte for byte (reflected-secret)', async () => {
      const r = await viaEdge('api.fixture.test', {
        headers: { 'accept-encoding': 'gzip, br' },
      });
      expect(r.status).toBe(200);
      expect(r.body).not.toContain(SECRET.header);
      // Same length: the JSON still parses, with the value masked where it was.
      const echoed = JSON.parse(r.body) as Seen;
      expect(valuesOf(echoed.rawHeaders, 'x-api-key')).toEqual([masked(SECRET.header)]);
      // Asked for unencoded, whatever the box asked.
      expect(valuesOf(received(), 'accept-encoding')).toEqual(['identity']);
      await waitFor(running(), (o) => o.includes(' reflected-secret api.fixture.test\n'));
    });

    it('masks the header as presented whole, not only the value inside it', async () => {
      const r = await viaEdge('bearer.fixture.test');
      const echoed = JSON.parse(r.body) as Seen;
      expect(valuesOf(echoed.rawHeaders, 'authorization')).toEqual([
        masked(`Bearer ${SECRET.bearer}`),
      ]);
    });

    it("masks basic's token and the value inside it", async () => {
      const r = await viaEdge('basic.fixture.test');
      const token = Buffer.from(`x-access-token:${SECRET.basic}`).toString('base64');
      expect(r.body).not.toContain(token);
      const echoed = JSON.parse(r.body) as Seen;
      // The header as presented is a form itself: masked whole.
      expect(valuesOf(echoed.rawHeaders, 'authorization')).toEqual([masked(`Basic ${token}`)]);
    });

    it('masks it across two chunks, and passes a tail that only begins it', async () => {
      const split = await viaEdge('api.fixture.test', { path: '/split' });
      expect(split.body).toBe(`before ${masked(SECRET.header)} after`);
      const prefix = await viaEdge('api.fixture.test', { path: '/prefix' });
      expect(prefix.body).toBe(`tail ${SECRET.header.slice(0, 5)}`);
    });

    it('masks it in the status line and header values', async () => {
      const r = await new Promise<{ status: string; echo: string }>((resolve, reject) => {
        const req = https.request(
          {
            host: EDGE_ADDR,
            port,
            servername: 'api.fixture.test',
            ca: edgeCa,
            path: '/in-header',
            headers: { host: `api.fixture.test:${port}` },
            agent: false,
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusMessage ?? '', echo: String(res.headers['x-echo']) });
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(r.status).toBe(`OK ${masked(SECRET.header)}`);
      expect(r.echo).toBe(`key=${masked(SECRET.header)};`);
    });

    it('answers 502 for a body in a coding it cannot check (encoded-response)', async () => {
      const r = await viaEdge('api.fixture.test', { path: '/gzip' });
      expect(r.status).toBe(502);
      expect(r.body).not.toContain(SECRET.header);
      await waitFor(running(), (o) => o.includes(' encoded-response api.fixture.test\n'));
    });
  });

  it('passes a redirect back, never following it', async () => {
    const before = seen.length;
    const r = await viaEdge('api.fixture.test', { path: '/redirect' });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('https://elsewhere.fixture.test/landing');
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/redirect']);
  });

  it('injects into an Upgrade request and tunnels the upgraded stream', async () => {
    const { said, echoed } = await new Promise<{ said: string; echoed: string }>(
      (resolve, reject) => {
        const req = https.request({
          host: EDGE_ADDR,
          port,
          servername: 'api.fixture.test',
          ca: edgeCa,
          path: '/ws',
          agent: false,
          headers: {
            host: `api.fixture.test:${port}`,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'x-api-key': 'byre-edge-sentinel',
            'sec-websocket-extensions': 'permessage-deflate',
          },
        });
        req.on('upgrade', (res, socket: Socket) => {
          // The fixture echoes every byte: what the box sends comes back.
          const sent = `ping ${SECRET.header} pong`;
          let got = '';
          socket.on('data', (d: Buffer) => {
            got += d.toString('utf8');
            if (got.length < sent.length) return;
            socket.destroy();
            resolve({ said: String(res.headers['x-echo']), echoed: got });
          });
          socket.write(sent);
        });
        req.on('response', () => reject(new Error('no upgrade')));
        req.on('error', reject);
        req.end();
      },
    );
    const head = seen.find((s) => s.host === 'upgrade')?.rawHeaders ?? [];
    expect(valuesOf(head, 'x-api-key')).toEqual([SECRET.header]);
    expect(valuesOf(head, 'upgrade')).toEqual(['websocket']);
    // No compression is asked for: the edge checks the bytes coming back.
    expect(valuesOf(head, 'sec-websocket-extensions')).toEqual([]);
    const masked = '*'.repeat(SECRET.header.length);
    expect(said).toBe(masked);
    expect(echoed).toBe(`ping ${masked} pong`);
  });

  it('runs as uid and gid 65534 with no value in its argv, environment or events', () => {
    const pid = running().child.pid;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(/^Uid:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$/m.exec(status)?.slice(1)).toEqual([
      '65534',
      '65534',
      '65534',
      '65534',
    ]);
    expect(/^Gid:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$/m.exec(status)?.slice(1)).toEqual([
      '65534',
      '65534',
      '65534',
      '65534',
    ]);
    expect(/^Groups:[ \t]*(.*)$/m.exec(status)?.[1]?.trim()).toBe('');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    const out = running().stdout() + running().stderr();
    for (const secret of ALL_SECRETS) {
      expect(cmdline).not.toContain(secret);
      expect(environ).not.toContain(secret);
      expect(out).not.toContain(secret);
    }
    // Status's reader takes every refusal line whole.
    const lines = running().stdout().trimEnd().split('\n');
    const events = parseEdgeEvents(running().stdout());
    expect(events.refused.reduce((n, e) => n + e.count, 0)).toBe(lines.length - 1);
    expect(new Set(events.refused.map((e) => e.reason))).toEqual(
      new Set([
        'plain-http',
        'unknown-host',
        'host-mismatch',
        'upstream-unverified',
        'reflected-secret',
        'encoded-response',
      ]),
    );
    for (const line of lines) {
      expect(line).toMatch(
        /^byre-edge 1 (ready|refused [0-9]+ (plain-http|unknown-host|host-mismatch|upstream-unverified|reflected-secret|encoded-response) (-|([a-z0-9._-]|\\[0-9]{3})+))$/,
      );
    }
  });

  it('ends at once, exit 0, on SIGTERM (as a container PID 1 it has no default action)', async () => {
    const plain = await freePort(EDGE_ADDR);
    const e = startEdge([
      '--port',
      String(await freePort(EDGE_ADDR)),
      '--plain-port',
      String(plain),
    ]);
    // Listening and waiting for its input (the state a helper is removed in):
    // its plain port answers once it listens, after its handlers are set.
    const answers = (): Promise<boolean> =>
      new Promise((resolve) => {
        const socket = net.connect(plain, EDGE_ADDR);
        socket
          .once('connect', () => {
            socket.end();
            resolve(true);
          })
          .once('error', () => resolve(false));
        socket.once('close', () => socket.destroy());
        setTimeout(() => socket.destroy(), 1000);
      });
    while (!(await answers())) await new Promise((r) => setTimeout(r, 20));
    e.child.kill('SIGTERM');
    expect(await e.exited).toBe(0);
  });

  it('exits, 0, once its stdin ends after the end line (the session over, or byre gone), and not before', async () => {
    const p = await freePort(EDGE_ADDR);
    const input = encodeEdgeInput({
      routes: [
        {
          host: { name: 'gone.fixture.test', port: p },
          presentation: { kind: 'bearer' },
          value: 'not-a-secret',
          ...mintLeaf(dir, 'edge-ca', 'gone.fixture.test'),
        },
      ],
    });
    if (!input.ok) throw new Error(input.problem);
    const e = startEdge(['--port', String(p), '--plain-port', String(await freePort(EDGE_ADDR))]);
    e.child.stdin?.write(input.text);
    await waitFor(e, (o) => o.includes('byre-edge 1 ready\n'));
    // Configured, stdin still open: it serves on.
    await new Promise((r) => setTimeout(r, 300));
    expect(e.child.exitCode).toBeNull();
    e.child.stdin?.end();
    expect(await e.exited).toBe(0);
  });

  it('opens its gate port (the box’s edge gate, adr/0084) only once its routes are read, with its ready line', async () => {
    const p = await freePort(EDGE_ADDR);
    const gate = await freePort(EDGE_ADDR);
    const input = encodeEdgeInput({
      routes: [
        {
          host: { name: 'gate.fixture.test', port: p },
          presentation: { kind: 'bearer' },
          value: 'not-a-secret',
          ...mintLeaf(dir, 'edge-ca', 'gate.fixture.test'),
        },
      ],
    });
    if (!input.ok) throw new Error(input.problem);
    const plain = await freePort(EDGE_ADDR);
    const e = startEdge([
      '--port',
      String(p),
      '--plain-port',
      String(plain),
      '--gate-port',
      String(gate),
    ]);
    // Listening (its plain port is bound last), not yet told its routes: the gate is shut.
    await waitForConnect(EDGE_ADDR, plain);
    expect(await connects(EDGE_ADDR, gate)).toBe(false);
    e.child.stdin?.write(input.text);
    await waitFor(e, (o) => o.includes('byre-edge 1 ready\n'));
    expect(await connects(EDGE_ADDR, gate)).toBe(true);
    e.child.stdin?.end();
    expect(await e.exited).toBe(0);
  });

  it('refuses to run on when it cannot drop to 65534 (started unprivileged), before reading input', async () => {
    const p = await freePort(EDGE_ADDR);
    const e = startEdge(['--port', String(p), '--plain-port', String(await freePort(EDGE_ADDR))], {
      uid: 4242,
      gid: 4242,
    });
    e.child.stdin?.end();
    expect(await e.exited).toBe(3);
    expect(e.stdout()).toBe('');
    expect(e.stderr()).toContain('refusing to run');
  });

  describe('input it refuses', () => {
    async function refusedInput(text: (port: number) => string): Promise<Edge> {
      const p = await freePort(EDGE_ADDR);
      const e = startEdge(['--port', String(p), '--plain-port', String(await freePort(EDGE_ADDR))]);
      e.child.stdin?.end(text(p));
      return e;
    }

    it('exits non-zero on a line that is not its format, quoting none of it', async () => {
      const e = await refusedInput(() => `{"byre-edge":1,"route":"${SECRET.header}"\n`);
      expect(await e.exited).toBe(2);
      expect(e.stdout()).toBe('');
      expect(e.stderr()).not.toContain(SECRET.header);
    });

    it('exits non-zero when stdin ends before the end line', async () => {
      const leaf = mintLeaf(dir, 'edge-ca', 'api.fixture.test');
      const e = await refusedInput((p) => {
        const good = encodeEdgeInput({
          routes: [
            {
              host: { name: 'api.fixture.test', port: p },
              presentation: { kind: 'bearer' },
              value: SECRET.bearer,
              ...leaf,
            },
          ],
        });
        if (!good.ok) throw new Error(good.problem);
        // The route line alone: no end line before EOF.
        return `${good.text.split('\n')[0] ?? ''}\n`;
      });
      expect(await e.exited).toBe(2);
      expect(e.stdout()).toBe('');
      expect(e.stderr()).not.toContain(SECRET.bearer);
    });
  });
});
