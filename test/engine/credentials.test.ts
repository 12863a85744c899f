// Encrypted env_from_host rows on real engines (adr/0012), through the built
// binary: a wrong passphrase creates nothing; the right one delivers the
// planted values over the credential channel, where the agent process sees
// them, and nowhere else: not the image history, the launch record, inspect,
// any host process's command line during the launch, byre's output or the
// store. The same box injects a third credential at the edge (adr/0070): it
// holds only the sentinel, and a request to the injected name reaches a
// fixture HTTPS server on this machine (the edge told its address and CA,
// test-only) carrying the real value. One project and one box per flavour
// (root docker and podman, and rootless podman, whose keep-id ownership is
// the point); the tests of a flavour run in order and share them. Last, the
// same project behind byre/firewall: the edge finds the fixture through the
// wall's resolver (a DNS server in this process), and only the edge's user
// may connect to its answer; the box's own connect to it is refused.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createIdentity, sealInjected, sealValue } from '../../src/credentials/seal.js';
import { edgeHelperName } from '../../src/network/edge.js';
import { withSetupLock } from '../../src/host/lock.js';
import { containerName, LABEL } from '../../src/gen/names.js';
import { wallHelperName } from '../../src/network/netns.js';
import { fixtureCerts } from '../support/edge-fixture.mjs';
import { flavorsUnderTest } from './engines.js';
import { fixtureDns } from './fixture-dns.js';
import {
  engineCli,
  engineCliAsync,
  installTestAgent,
  runByre,
  runningBox,
  testScope,
  waitFor,
  type BackgroundSession,
  type TestProject,
} from './harness.js';

const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');
const scope = testScope('all');

const PASSPHRASE = 'correct horse battery staple';
const SECRET = `byre-planted-${randomBytes(8).toString('hex')}`;
const FILE_SECRET = `{"planted":"${randomBytes(8).toString('hex')}"}\n`;
/** Injected at the edge: only the edge and the fixture ever hold it. */
const EDGE_SECRET = `byre-injected-${randomBytes(8).toString('hex')}`;
const INJECTED = 'api.fixture.test';
/** A file the config's own Dockerfile line makes in the box's image. */
const CONFIG_MARK = '/byre-config-line';
const forms = (value: string): string[] => [value, Buffer.from(value).toString('base64')];
const PLANTED = [
  ...forms(SECRET),
  ...forms(FILE_SECRET),
  FILE_SECRET.trim(),
  ...forms(EDGE_SECRET),
];

function expectClean(what: string, text: string): void {
  for (const form of PLANTED) {
    if (text.includes(form)) throw new Error(`${what} contains a planted credential value`);
  }
}

/** This machine's first non-loopback IPv4: every flavour's box reaches the host there. */
function hostAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  if (address === undefined) throw new Error('no non-loopback IPv4 address on this machine');
  return address;
}

/** A TCP port free on this machine now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The fixture on the host: its requests as parsed lines, and its stop. */
interface Fixture {
  port: number;
  ca: string;
  requests(): { url: string; headers: Record<string, string> }[];
  stop(): void;
}

async function startFixture(dir: string): Promise<Fixture> {
  const ca = fixtureCerts(dir, [INJECTED]);
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(dir, 'server.mjs'), String(port), dir, hostAddress()],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor('the fixture', () => (out.startsWith('fixture ready') ? true : null), 10_000);
  return {
    port,
    ca,
    requests: () =>
      out
        .split('\n')
        .slice(1)
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { url: string; headers: Record<string, string> }),
    stop: () => child.kill('SIGKILL'),
  };
}

async function credentialConfig(edgePort: number): Promise<string> {
  // A low scrypt work factor keeps the tier fast; the format is the same.
  const { table, identity } = await createIdentity(PASSPHRASE, 10);
  const env = await sealValue(
    identity.recipient,
    'encrypted',
    'API_KEY',
    new TextEncoder().encode(SECRET),
  );
  const file = await sealValue(
    identity.recipient,
    'encrypted-file',
    'SERVICE_JSON',
    new TextEncoder().encode(FILE_SECRET),
  );
  const injected = await sealInjected(
    identity.recipient,
    'EDGE_KEY',
    [{ hosts: [{ name: INJECTED, port: edgePort }], presentation: { kind: 'bearer' } }],
    new TextEncoder().encode(EDGE_SECRET),
  );
  return [
    'agent = "testagent"',
    // A config line shapes the box's image; it never reaches the edge's.
    `dockerfile_post = ["RUN touch ${CONFIG_MARK}"]`,
    '',
    '[env_from_host]',
    `API_KEY = "${env}"`,
    `SERVICE_JSON = "${file}"`,
    `EDGE_KEY = "${injected}"`,
    '',
    '[[inject.EDGE_KEY]]',
    `hosts = ["${INJECTED}:${edgePort}"]`,
    'bearer = true',
    '',
    '[credentials]',
    `recipient = "${table.recipient}"`,
    `identity = "${table.identity}"`,
    '',
  ].join('\n');
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/**
 * A bash script that GETs `url` from inside the box and prints the raw
 * response: https through `openssl s_client`, which verifies the server's
 * name and chain against the box's system store (the edge layer puts the
 * project CA there, and its `ca-certificates` brings openssl), plain http
 * through bash's /dev/tcp. The box has no other client: the edge brings no
 * node into it (adr/0077), and installing one would cost each of this
 * file's image builds an apt-get.
 */
function boxGetScript(url: string, bearer: string | null): string {
  const u = new URL(url);
  const https = u.protocol === 'https:';
  const port = u.port === '' ? (https ? '443' : '80') : u.port;
  const auth = bearer === null ? '' : `Authorization: Bearer ${bearer}\r\n`;
  const request = `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n${auth}Connection: close\r\n\r\n`;
  const send = `printf '%s' '${request}'`;
  return https
    ? `${send} | openssl s_client -quiet -verify_return_error -verify_hostname ${u.hostname} -servername ${u.hostname} -connect ${u.hostname}:${port} 2>/dev/null || echo "s_client exited $?"`
    : `exec 3<>/dev/tcp/${u.hostname}/${port} && ${send} >&3 && cat <&3`;
}

/** A raw HTTP/1.1 response as `<status> <body>`, trimmed; `failed <what came>` when it is not one. */
function statusAndBody(raw: string): string {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1];
  if (status === undefined) return `failed ${raw.trim().slice(0, 300)}`;
  const at = raw.indexOf('\r\n\r\n');
  return `${status} ${at < 0 ? '' : raw.slice(at + 4).trim()}`;
}

/** Every engine object the project owns. */
function projectObjects(project: TestProject): string[] {
  return [
    ...lines(engineCli(project, ['ps', '-aq', '--filter', `label=byre.project=${project.id}`])),
    ...lines(engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).filter((i) =>
      i.includes(project.id),
    ),
    ...lines(engineCli(project, ['volume', 'ls', '-q'])).filter((v) => v.includes(project.id)),
  ];
}

// The sampler runs in its own process: the test's engine calls block this one.
// It reads the values to look for on stdin, never from its own argv.
const SAMPLER = `
const fs = require('node:fs');
let needles = [];
let leaks = new Set();
let sawReceiver = false;
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  needles = JSON.parse(input).map((n) => Buffer.from(n));
  process.stdout.write('ready\\n');
  const round = () => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(pid) || Number(pid) === process.pid) continue;
      let c;
      try { c = fs.readFileSync('/proc/' + pid + '/cmdline'); } catch { continue; }
      if (c.includes('byre-credentials')) sawReceiver = true;
      if (needles.some((n) => c.includes(n))) leaks.add(pid + ' ' + c.toString().slice(0, 80));
    }
    setImmediate(round);
  };
  round();
});
process.on('SIGTERM', () => {
  process.stdout.write(JSON.stringify({ leaks: [...leaks], sawReceiver }) + '\\n');
  process.exit(0);
});
`;

/** Every host process command line that carries a planted value, sampled until stopped. */
async function sampleCmdlines(): Promise<{
  stop(): Promise<{ leaks: string[]; sawReceiver: boolean }>;
}> {
  const child = spawn(process.execPath, ['-e', SAMPLER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(JSON.stringify(PLANTED));
  await waitFor('the sampler', () => (out.startsWith('ready') ? true : null), 10_000);
  return {
    async stop() {
      const closed = new Promise((r) => child.on('close', r));
      child.kill('SIGTERM');
      await closed;
      return JSON.parse(out.split('\n')[1] ?? '{}') as { leaks: string[]; sawReceiver: boolean };
    },
  };
}

/** What the wall and the edge of `box` said, for a failed request's message. */
async function wallDiagnosis(project: TestProject, box: string, seen: string[]): Promise<string> {
  const name = engineCli(project, ['inspect', '-f', '{{.Name}}', box]).trim().replace(/^\//, '');
  const asks = [
    ['logs', wallHelperName(name)],
    ['exec', wallHelperName(name), 'nft', 'list', 'ruleset'],
    ['logs', edgeHelperName(name)],
  ];
  let said = `the fixture DNS saw: ${JSON.stringify(seen)}`;
  for (const ask of asks) {
    said += `\n--- ${ask.join(' ')}\n${await engineCliAsync(project, ask).catch(String)}`;
  }
  return said;
}

/** The box's processes as this machine numbers them (`top`: docker's `pid`, podman's `hpid`). */
function boxHostPids(project: TestProject, box: string): number[] {
  const field = project.flavor.engine === 'docker' ? ['-eo', 'pid'] : ['hpid'];
  return engineCli(project, ['top', box, ...field])
    .split('\n')
    .slice(1)
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * Whether a process's readable memory holds `needle`: every readable
 * mapping of /proc/<pid>/maps read through /proc/<pid>/mem (root reads
 * another user's), in chunks that overlap by the needle's length.
 */
function memoryHolds(pid: number, needle: string): boolean {
  const want = Buffer.from(needle);
  const CHUNK = 16 << 20;
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) (r)/.exec(line);
      if (m === null || line.endsWith('[vsyscall]') || line.endsWith('[vvar]')) continue;
      const end = Number.parseInt(m[2] ?? '0', 16);
      for (let at = Number.parseInt(m[1] ?? '0', 16); at < end; at += CHUNK - want.length) {
        const buf = Buffer.alloc(Math.min(CHUNK, end - at));
        let got = 0;
        try {
          got = readSync(fd, buf, 0, buf.length, at);
        } catch {
          break; // a mapping the kernel will not read (a guard page, device memory)
        }
        if (buf.subarray(0, got).includes(want)) return true;
        if (at + buf.length >= end) break;
      }
    }
  } finally {
    closeSync(fd);
  }
  return false;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    return e.isFile() ? [p] : [];
  });
}

describe.skipIf(flavors.length === 0).each(flavors)('credentials on $label', (flavor) => {
  /** The box's edge helper, by the box's container name. */
  const edgeHelperOf = (id: string): string =>
    edgeHelperName(
      engineCli(project, ['inspect', '-f', '{{.Name}}', id]).trim().replace(/^\//, ''),
    );
  let project: TestProject;
  let session: BackgroundSession | null = null;
  let box = '';
  let dir = '';
  let fixture: Fixture;
  /** The edge is told where the fixture is and whose CA it has (test-only). */
  let edgeEnv: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'byretest-edge-fixture-'));
    chmodSync(dir, 0o755);
    fixture = await startFixture(dir);
    edgeEnv = { BYRE_EDGE_UPSTREAM: hostAddress(), BYRE_EDGE_UPSTREAM_CA: fixture.ca };
    project = scope.project(flavor);
    installTestAgent(project);
    project.writeConfig(await credentialConfig(fixture.port));
  });

  afterAll(() => {
    fixture.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a wrong passphrase fails before any container, volume or image exists', () => {
    const r = runByre(project, ['develop', '--passphrase-fd', '3'], { fd3: 'wrong\n' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the passphrase does not open this identity');
    expect(r.stderr).toContain('credentials.identity');
    expect(projectObjects(project)).toEqual([]);
  });

  it('dockerrun says credentials are not carried, and carries no value', () => {
    const r = runByre(project, ['dockerrun']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('credentials (API_KEY, SERVICE_JSON) are not carried');
    expect(r.stdout).toContain('--tmpfs /run/byre/credentials:');
    expectClean('dockerrun', r.stdout + r.stderr);
  });

  it('delivers over the channel: no host command line ever carries a value', async () => {
    const sampler = await sampleCmdlines();
    session = scope.start(project, ['develop', '--passphrase-fd', '3'], {
      fd3: `${PASSPHRASE}\n`,
      env: edgeEnv,
    });
    let ended = false;
    void session.exited.then(() => (ended = true));
    try {
      box = await waitFor(
        'the box',
        () => {
          // A develop that ended before its box ran says why.
          if (ended) throw new Error(`develop ended first:\n${session?.stderr() ?? ''}`);
          return runningBox(project);
        },
        500_000,
      );
      // Delivered once the agent process (the box's PID 1) carries the key.
      await waitFor('the agent to hold its credentials', () => {
        if (ended) throw new Error(`develop ended first:\n${session?.stderr() ?? ''}`);
        try {
          const env = engineCli(project, ['exec', box, 'cat', '/proc/1/environ']);
          return env.includes('SERVICE_JSON=') ? true : null;
        } catch {
          return null;
        }
      });
    } finally {
      const { leaks, sawReceiver } = await sampler.stop();
      expect(leaks).toEqual([]);
      // The sampler ran while the receiver did, so the check above can fail
      // (unless develop ended first, which the error above says).
      if (!ended) expect(sawReceiver).toBe(true);
    }
  });

  it('the agent process sees the values; the file is 0600, the box user’s, on a tmpfs', () => {
    const environ = engineCli(project, ['exec', box, 'cat', '/proc/1/environ']).split('\0');
    expect(environ).toContain(`API_KEY=${SECRET}`);
    expect(environ).toContain('SERVICE_JSON=/run/byre/credentials/file/SERVICE_JSON');
    const probe = engineCli(project, [
      'exec',
      box,
      'sh',
      '-c',
      'stat -c "%a %u" /run/byre/credentials/file/SERVICE_JSON; id -u; grep " /run/byre/credentials " /proc/mounts; cat /run/byre/credentials/file/SERVICE_JSON',
    ]).split('\n');
    const [mode, owner] = (probe[0] ?? '').split(' ');
    expect(mode).toBe('600');
    expect(owner).toBe(probe[1]);
    expect(probe[2]).toMatch(/^tmpfs \/run\/byre\/credentials tmpfs .*\bnoexec\b/);
    expect(probe.slice(3).join('\n')).toBe(FILE_SECRET);
  });

  it('an injected key: the box holds the sentinel, and the edge presents the value to the injected name only', async () => {
    const environ = engineCli(project, ['exec', box, 'cat', '/proc/1/environ']).split('\0');
    expect(environ).toContain('EDGE_KEY=byre-edge-sentinel');
    const fetch = (url: string): string =>
      statusAndBody(
        engineCli(project, ['exec', box, 'bash', '-c', boxGetScript(url, 'byre-edge-sentinel')]),
      );
    // The system store trusts the project CA, which the edge layer put there.
    expect(fetch(`https://${INJECTED}:${fixture.port}/through-the-edge`)).toBe('200 ok');
    // The fixture's lines arrive once this process reads its pipe again.
    const seen = await waitFor(
      'the fixture to log the request',
      () => fixture.requests().find((r) => r.url === '/through-the-edge') ?? null,
      10_000,
    );
    expect(seen.headers['authorization']).toBe(`Bearer ${EDGE_SECRET}`);
    // Plain HTTP to the injected name is refused by the edge, and carries nothing upstream.
    expect(fetch(`http://${INJECTED}/plain`)).toMatch(/^403 /);
    await new Promise((r) => setTimeout(r, 200));
    expect(fixture.requests().map((r) => r.url)).toEqual(['/through-the-edge']);
    // A host that reflects the request shows the box the value masked, never the value.
    const echoed = fetch(`https://${INJECTED}:${fixture.port}/echo`);
    expect(echoed).toMatch(/^200 \{/);
    expect(echoed).not.toContain(EDGE_SECRET);
    expect(echoed).toContain(`"authorization":"${'*'.repeat(`Bearer ${EDGE_SECRET}`.length)}"`);
    // The edge runs beside the box, outside it.
    const helper = edgeHelperOf(box);
    expect(engineCli(project, ['inspect', '-f', '{{.State.Running}}', helper]).trim()).toBe('true');
    expectClean('the edge helper’s inspect', engineCli(project, ['inspect', helper]));
    // On byre's own image (adr/0077), which no config line shapes: the
    // config's file is in the box and not beside the edge's node.
    const imageOf = (ref: string): string =>
      engineCli(project, ['image', 'inspect', '-f', '{{.Id}}', ref]).trim();
    const edgeImage = imageOf(`byre-${project.id}-edge`);
    expect(engineCli(project, ['inspect', '-f', '{{.Image}}', helper]).trim()).toBe(edgeImage);
    expect(edgeImage).not.toBe(engineCli(project, ['inspect', '-f', '{{.Image}}', box]).trim());
    const has = (container: string): string =>
      engineCli(project, [
        'exec',
        '-u',
        '0',
        container,
        'sh',
        '-c',
        `test -e ${CONFIG_MARK} && echo yes || echo no`,
      ]).trim();
    expect(has(box)).toBe('yes');
    expect(has(helper)).toBe('no');
  });

  it("an injected value is in no box process's memory, the agent's included", () => {
    const pids = boxHostPids(project, box);
    expect(pids.length).toBeGreaterThan(0);
    // The dump sees what a box holds: the delivered value is in the agent's environment.
    expect(pids.some((pid) => memoryHolds(pid, SECRET))).toBe(true);
    for (const pid of pids) {
      for (const form of forms(EDGE_SECRET)) expect(memoryHolds(pid, form)).toBe(false);
    }
  });

  it('no value in inspect, the image, the launch record, the store or status', async () => {
    expectClean('inspect', engineCli(project, ['inspect', box]));
    const image = lines(
      engineCli(project, ['images', '--format', '{{.Repository}}:{{.Tag}}']),
    ).find((i) => i.includes(project.id));
    expect(image).toBeDefined();
    expectClean('image history', engineCli(project, ['history', '--no-trunc', image ?? '']));
    expectClean('image inspect', engineCli(project, ['image', 'inspect', image ?? '']));

    const launches = path.join(project.store, 'launches');
    const records = readdirSync(launches).filter((f) => f.endsWith('.toml'));
    expect(records).toHaveLength(1);
    const record = readFileSync(path.join(launches, records[0] ?? ''), 'utf8');
    expect(record).toContain('credential_keys = ["API_KEY", "SERVICE_JSON"]');
    for (const file of filesUnder(project.home)) {
      if (statSync(file).size < 4 * 1024 * 1024) expectClean(file, readFileSync(file, 'latin1'));
    }

    // The receipt is written once the engine's exec has returned, which can
    // come well after the gate opened (podman's exec teardown under load):
    // status says "delivered" only from then on.
    const status = await waitFor('status to find the delivery receipt', () => {
      const r = runByre(project, ['status']);
      return r.stdout.includes('API_KEY <- encrypted  (project; delivered)') ? r : null;
    });
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('API_KEY <- encrypted  (project; delivered)');
    expect(status.stdout).toContain('SERVICE_JSON <- encrypted-file  (project; delivered)');
    expect(status.stdout).toContain('delivered to this box over the credential channel');
    // The edge: up for this box, with the plain-HTTP request it refused and
    // the echo it masked beside the wall's rows.
    const flat = status.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('Edge: up for the running box: it alone holds the injected values');
    // Newest first, or by name within one second: either order.
    const refused = /(\d+) requests? refused at the edge \(([^)]*)\)/.exec(flat);
    expect(refused?.[1]).toBe('2');
    expect(refused?.[2]?.split(', ').sort()).toEqual([
      `plain-http ${INJECTED}`,
      `reflected-secret ${INJECTED}`,
    ]);
    expect(flat).toContain(
      `EDGE_KEY -> injected at the edge for ${INJECTED}:${fixture.port}; the box holds a sentinel`,
    );
    const data = runByre(project, ['status', '--data']);
    expectClean('status', status.stdout + status.stderr + data.stdout + data.stderr);
  });

  it('byre’s own output never carries a value, through to the session’s end', async () => {
    const s = session;
    expect(s).not.toBeNull();
    const helper = edgeHelperOf(box);
    const code = await s?.end();
    expect(code).toBe(0);
    // The edge went with the session, and the box after it.
    expect(() => engineCli(project, ['inspect', helper])).toThrow();
    expect(() => engineCli(project, ['inspect', box])).toThrow();
    expect(s?.stderr()).toContain('· 2 credentials');
    expectClean('byre output', (s?.stdout() ?? '') + (s?.stderr() ?? ''));
  });

  it("behind the wall: the edge alone reaches the injected name, as the wall's resolver answers it; the box's own connect is refused", async () => {
    const host = hostAddress();
    // Bound to that address, so its answers come from where the wall's resolver asked.
    const dns = await fixtureDns(host);
    dns.answers.set(INJECTED, host);
    project.writeConfig(`skills = ["firewall"]\n${await credentialConfig(fixture.port)}`);
    // Another launch's setup lock held: the edge image is current (the
    // launch above built it), so the edge is made and runs before the lock
    // is had, and the launch adopts it (adr/0080).
    let free = (): void => undefined;
    let taken = (): void => undefined;
    const got = new Promise<void>((resolve) => (taken = resolve));
    const held = withSetupLock(
      { dir: project.store, lock: path.join(project.store, 'lock') },
      () => {
        taken();
        return new Promise<void>((resolve) => (free = resolve));
      },
    );
    await got;
    const walled = scope.start(project, ['develop', '--passphrase-fd', '3'], {
      fd3: `${PASSPHRASE}\n`,
      // The fixture's CA only: the edge resolves the name, through the wall.
      env: { BYRE_EDGE_UPSTREAM_CA: fixture.ca, BYRE_WALL_UPSTREAM: `${host}#${dns.port}` },
    });
    let ended = false;
    void walled.exited.then(() => (ended = true));
    const said = (): string => `develop ended first:\n${walled.stderr()}`;
    let early = '';
    try {
      early = await waitFor('the edge, running while the lock is held', () => {
        if (ended) throw new Error(said());
        const helpers = engineCli(project, [
          'ps',
          '-q',
          '--no-trunc',
          '--filter',
          `label=${LABEL.edge}=${containerName(project.id)}`,
        ]).trim();
        return helpers === '' ? null : helpers;
      });
    } finally {
      free();
      await held;
    }
    try {
      const id = await waitFor(
        'the walled box',
        () => {
          if (ended) throw new Error(said());
          return runningBox(project);
        },
        500_000,
      );
      await waitFor('the sentinel, delivered once the edge and the wall are up', () => {
        if (ended) throw new Error(said());
        try {
          const env = engineCli(project, ['exec', id, 'cat', '/proc/1/environ']);
          return env.includes('EDGE_KEY=byre-edge-sentinel') ? true : null;
        } catch {
          return null;
        }
      });
      const before = fixture.requests().length;
      // Asynchronously: the wall's upstream is a DNS server in this process.
      const fetched = statusAndBody(
        await engineCliAsync(project, [
          'exec',
          id,
          'bash',
          '-c',
          boxGetScript(`https://${INJECTED}:${fixture.port}/behind-the-wall`, null),
        ]),
      );
      if (fetched !== '200 ok') {
        throw new Error(`${fetched}\n${await wallDiagnosis(project, id, dns.seen)}`);
      }
      expect(fetched, walled.stderr()).toBe('200 ok');
      const seen = await waitFor(
        'the fixture to log the walled request',
        () =>
          fixture
            .requests()
            .slice(before)
            .find((r) => r.url === '/behind-the-wall') ?? null,
        10_000,
      );
      expect(seen.headers['authorization']).toBe(`Bearer ${EDGE_SECRET}`);
      // The edge asked the wall's resolver for the name; the box never had to.
      expect(dns.seen).toContain(INJECTED);
      // The box's own connect to the address the edge reached is refused at once.
      const direct = engineCli(project, [
        'exec',
        id,
        'bash',
        '-c',
        `e=$(timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${fixture.port}' 2>&1); case $? in 0) echo OK;; 124) echo SILENT;; *) case $e in *'Connection refused'*) echo REFUSED;; *) echo "FAILED $e";; esac;; esac`,
      ]).trim();
      expect(direct).toBe('REFUSED');
      const status = runByre(project, ['status']);
      const flat = status.stdout.replace(/\s+/g, ' ');
      expect(flat).toContain('Edge: up for the running box: it alone holds the injected values');
      expectClean('status behind the wall', status.stdout + status.stderr);
      const helper = edgeHelperOf(id);
      // The box joined the edge made before the lock: it was adopted, not made again.
      expect(engineCli(project, ['inspect', '-f', '{{.HostConfig.NetworkMode}}', id]).trim()).toBe(
        `container:${early}`,
      );
      expect(await walled.end()).toBe(0);
      expect(() => engineCli(project, ['inspect', helper])).toThrow();
      expectClean('byre output behind the wall', walled.stdout() + walled.stderr());
    } finally {
      await dns.close();
    }
  });
});
