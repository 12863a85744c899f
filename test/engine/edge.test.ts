// Engine tier for the edge helper (adr/0070) on docker, podman and rootless
// podman (the test user's, through a runuser wrapper, as the contract):
// byre's own edge image (ensureEdgeImage, adr/0077), a box built on it with
// curl and the generated edge layer (planBuild's staging, the project CA
// minted by byre), a fixture HTTPS server on a private engine network (its
// own CA, made with openssl here, handed to the edge as the test-only
// upstream CA) that logs the headers it receives, and the edge started by
// startEdge before the box, owning the network namespace (with the host
// entries and a published port) the box then joins, as develop does
// (adr/0079); the port reaches a listener the box opens. A request from
// the box to the injected name (its /etc/hosts entry points at the edge)
// reaches the fixture carrying the real credential; a request to a second
// fixture name carries only the sentinel; the secret and the leaf key are
// nowhere in the box, and nowhere in `inspect` of box, helper or image. The
// edge ends once its stdin does (byre's session over, or byre gone). An
// edge fed a malformed input never becomes ready: its helper is removed.
//
// On docker the edge finds the fixture by the network's DNS (an alias), as
// it finds a real host; podman 4.3 here runs CNI without dnsname (no names
// on its networks), so there the edge is told the fixture's address. One
// edge image, one box image and one fixture per engine; every object carries
// this run's `byre.test.run` label, or a name with it (the edge helper and
// the edge image, which byre names and labels).

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { mintEdgeSet, type EdgeSet } from '../../src/credentials/edge-ca.js';
import { encodeEdgeInput } from '../../src/credentials/edge-input.js';
import type { Engine } from '../../src/engine/engine.js';
import { createEngine } from '../../src/engine/runner.js';
import { runEngineCommand } from '../../src/engine/spawn.js';
import type { EngineFacts } from '../../src/engine/types.js';
import { planBuild } from '../../src/gen/plan.js';
import { EDGE_GATE_STAGED } from '../../src/gen/dockerfile.js';
import { edgeHelperName, startEdge, type EdgePlan } from '../../src/network/edge.js';
import { ensureEdgeImage } from '../../src/session/edge-image.js';
import { fakeConfig } from '../support/config.js';
import { fixtureCerts } from '../support/edge-fixture.mjs';
import { flavorEnginePath, flavorsUnderTest } from './engines.js';

// Docker as the test user talks to the same daemon as root: nothing new to prove.
const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');
const env = { ...process.env, BYRE_ALLOW_ROOT: '1' };
const SECRET = `sk-edge-${randomBytes(12).toString('hex')}`;
const SENTINEL = 'byre-edge-sentinel';
const INJECTED = 'api.fixture.test';
const OTHER = 'other.fixture.test';

if (flavors.length === 0) {
  describe.skip('the edge helper (no engine answers)', () => {
    it('needs docker or podman', () => {});
  });
}

describe.each(flavors)('the edge helper on $label', (flavor) => {
  const name = flavor.engine;
  const rootless = flavor.user !== null;
  const run = randomBytes(4).toString('hex');
  const prefix = `byretest-edge-${run}`;
  const labels = ['--label', 'byre.test=1', '--label', `byre.test.run=${run}`];
  const image = `${prefix}-img`;
  const edgeTag = `${prefix}-edge`;
  /** byre's edge image, by id, as develop hands it to the helper. */
  let edgeImage = '';
  const network = `${prefix}-net`;
  const fixture = `${prefix}-fixture`;
  let facts: EngineFacts;
  let engine: Engine;
  let dir = '';
  let fixtureCa = '';
  let fixtureIp = '';
  let edgeSet: EdgeSet;
  /** Boxes this file made, by name: their edge helpers are removed by name. */
  const boxes: string[] = [];

  const raw = async (args: string[], input?: string) =>
    runEngineCommand(facts.path, args, { env, ...(input === undefined ? {} : { input }) });
  const ok = async (args: string[]): Promise<string> => {
    const c = await raw(args);
    if (c.exitCode !== 0) throw new Error(`${name} ${args.join(' ')}: ${c.stderr}`);
    return c.stdout;
  };
  const ids = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

  const cleanup = async (): Promise<void> => {
    // Boxes before their edges: podman will not remove an edge a box joins.
    const mine = ids((await raw(['ps', '-aq', '--filter', `label=byre.test.run=${run}`])).stdout);
    if (mine.length > 0) await raw(['rm', '-f', ...mine]);
    for (const b of boxes) await raw(['rm', '-f', edgeHelperName(b)]);
    await raw(['network', 'rm', network]);
    const imgs = ids(
      (await raw(['images', '-q', '--filter', `label=byre.test.run=${run}`])).stdout,
    );
    if (imgs.length > 0) await raw(['rmi', '-f', ...new Set(imgs)]);
    await raw(['rmi', '-f', edgeTag]);
  };

  /**
   * A box in its edge's network (the edge, started first, is on the
   * fixture's), as develop runs one for an injecting project: it joins the
   * edge's network and, rootless, its keep-id user namespace.
   */
  const startBox = async (box: string): Promise<string> => {
    const helper = edgeHelperName(box);
    const id = await ok([
      'run',
      '-d',
      '--pull=never',
      '--name',
      box,
      ...labels,
      '--network',
      `container:${helper}`,
      ...(rootless ? [`--userns=container:${helper}`] : []),
      '-e',
      `API_KEY=${SENTINEL}`,
      '-u',
      '1000:1000',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--entrypoint',
      'sleep',
      image,
      'infinity',
    ]);
    return id.trim();
  };
  const edgeInput = (): string => {
    const leaf = edgeSet.leaves[0];
    if (leaf === undefined) throw new Error('no leaf minted');
    const encoded = encodeEdgeInput({
      routes: [
        {
          host: { name: INJECTED, port: 443 },
          presentation: { kind: 'header', name: 'x-api-key' },
          value: SECRET,
          cert: leaf.certPem,
          key: leaf.keyPem,
        },
      ],
      upstreamCa: fixtureCa,
    });
    if (!encoded.ok) throw new Error(encoded.problem);
    return encoded.text;
  };
  /**
   * The edge's plan for `box`, as develop makes it: byre's edge image, one
   * port, this run's input; the box's network, here the fixture's, with its
   * host entries (and, rootless, the keep-id user namespace the box joins).
   */
  const edgePlan = (
    box: string,
    over: Partial<EdgePlan> = {},
    publish: string[] = [],
  ): EdgePlan => {
    boxes.push(box);
    return {
      box,
      project: prefix,
      image: edgeImage,
      ports: [443],
      input: edgeInput(),
      network: [
        '--network',
        network,
        '--add-host',
        `${INJECTED}:127.31.0.1`,
        '--add-host',
        `${OTHER}:${fixtureIp}`,
        ...publish,
        ...(rootless ? ['--userns=keep-id:uid=1000,gid=1000'] : []),
      ],
      ...over,
    };
  };
  /** A port free on the host's loopback now. */
  const freePort = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
      server.on('error', reject);
    });
  /** What the host reads from 127.0.0.1:port, asked until it answers (at most 20 s). */
  const fromHost = async (port: number): Promise<string> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        return await new Promise<string>((resolve, reject) => {
          const req = get({ host: '127.0.0.1', port, path: '/', timeout: 2000 }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => resolve(body));
          });
          req.on('timeout', () => req.destroy(new Error('timed out')));
          req.on('error', reject);
        });
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const inBox = async (box: string, script: string, user = '1000:1000') =>
    raw(['exec', '-u', user, box, 'sh', '-c', script]);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'byretest-edge-'));
    chmodSync(dir, 0o755);
    facts = {
      name,
      path: flavorEnginePath(flavor, dir),
      rootless,
      keepId: false,
      version: '',
      warnings: [],
    };
    engine = createEngine(facts, { env });
    const certs = path.join(dir, 'fixture');
    execFileSync('mkdir', ['-m', '0755', certs]);
    fixtureCa = fixtureCerts(certs, [INJECTED, OTHER]);
    edgeSet = await mintEdgeSet([INJECTED], `byretest-${run}`);
    // byre's edge image, as develop builds it; the box on it (its node
    // serves the fixture too), with curl, then the edge layer exactly as
    // planBuild renders and stages it (the CA, no key).
    const plan = planBuild(fakeConfig(), [], dir, { edgeCa: edgeSet.caPem });
    const lines = plan.dockerfile.split('\n');
    const from = lines.findIndex((l) => l.startsWith('# --- edge:'));
    const layer = lines.slice(from, lines.indexOf('HEALTHCHECK NONE', from));
    const context = path.join(dir, 'context');
    execFileSync('mkdir', [context]);
    for (const e of plan.entries) {
      if (!e.path.startsWith('byre-edge') && e.path !== EDGE_GATE_STAGED) continue;
      if (e.source.kind !== 'bytes') throw new Error(`${e.path} is not bytes`);
      writeFileSync(path.join(context, e.path), e.source.bytes, { mode: e.mode });
    }
    try {
      edgeImage = await ensureEdgeImage({
        // The test runs as root and rootless podman as the test user, who must
        // read the private context byre (as that user, in use) would own.
        engine: {
          facts: engine.facts,
          imageInfo: (ref) => engine.imageInfo(ref),
          imageId: (ref) => engine.imageId(ref),
          build: (spec, io) => {
            chmodSync(spec.contextDir, 0o755);
            for (const f of readdirSync(spec.contextDir)) {
              chmodSync(path.join(spec.contextDir, f), 0o644);
            }
            return engine.build(spec, io);
          },
        },
        tag: edgeTag,
        owner: { projectId: prefix, storeTag: run },
        stagingDir: path.join(dir, 'edge-image'),
        noCache: false,
      });
      writeFileSync(
        path.join(context, 'Dockerfile'),
        [
          `FROM ${edgeImage}`,
          'RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*',
          ...layer,
          '',
        ].join('\n'),
      );
      await engine.build(
        {
          tag: image,
          contextDir: context,
          dockerfile: path.join(context, 'Dockerfile'),
          noCache: false,
          uid: 1000,
          gid: 1000,
          labels: { 'byre.test': '1', 'byre.test.run': run },
        },
        { onOutput: () => undefined },
      );
      await ok(['network', 'create', ...labels, network]);
      await ok([
        'run',
        '-d',
        '--pull=never',
        '--name',
        fixture,
        ...labels,
        '--network',
        network,
        ...(name === 'docker' ? ['--network-alias', INJECTED, '--network-alias', OTHER] : []),
        '-v',
        `${certs}:/fixture:ro`,
        '--entrypoint',
        'node',
        image,
        '/fixture/server.mjs',
      ]);
      const fmt = `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`;
      fixtureIp = (await ok(['inspect', '-f', fmt, fixture])).trim();
      expect(fixtureIp).toMatch(/^[0-9.]+$/);
    } catch (error) {
      await cleanup();
      throw error;
    }
  });

  afterAll(async () => {
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
    const left = ids((await raw(['ps', '-aq', '--filter', `label=byre.test.run=${run}`])).stdout);
    const helpers = [];
    for (const b of boxes) {
      if ((await raw(['inspect', edgeHelperName(b)])).exitCode === 0) helpers.push(b);
    }
    expect([...left, ...helpers]).toEqual([]);
  });

  it('injects the credential for the injected name only; the box holds the sentinel and never the secret or the leaf key', async () => {
    const box = `${prefix}-box`;
    const hostPort = await freePort();
    const edge = await startEdge(
      engine,
      // docker: the network's DNS finds the fixture, as a real host's would be.
      edgePlan(box, name === 'docker' ? {} : { upstreamAddress: fixtureIp }, [
        '-p',
        `127.0.0.1:${hostPort}:8080`,
      ]),
    ).started;
    await startBox(box);
    // The box runs in the edge's network namespace, as the engine records it.
    expect((await ok(['inspect', '-f', '{{.HostConfig.NetworkMode}}', box])).trim()).toBe(
      `container:${edge.id}`,
    );
    // curl trusts the CA through the system store, node through NODE_EXTRA_CA_CERTS.
    const viaCurl = await inBox(
      box,
      `curl -sS --max-time 30 -H "x-api-key: $API_KEY" https://${INJECTED}/curl`,
    );
    expect(viaCurl.stderr).toBe('');
    expect(viaCurl.stdout).toBe('ok\n');
    const viaNode = await inBox(
      box,
      `node -e "require('https').get('https://${INJECTED}/node', { headers: { 'x-api-key': process.env.API_KEY } }, (r) => r.pipe(process.stdout)).on('error', (e) => { console.error(e.message); process.exit(1); })"`,
    );
    expect(viaNode.stderr).toBe('');
    expect(viaNode.stdout).toBe('ok\n');
    const direct = await inBox(
      box,
      `curl -sS -k --max-time 30 -H "x-api-key: $API_KEY" https://${OTHER}/direct`,
    );
    expect(direct.stdout).toBe('ok\n');
    const plain = await inBox(
      box,
      `curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H "x-api-key: $API_KEY" http://${INJECTED}/plain`,
    );
    expect(plain.stdout).toBe('403');

    const seen = ids((await engine.logs(fixture))?.stdout ?? '')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as { servername: string; url: string; headers: Record<string, string> },
      );
    const byUrl = (url: string) => seen.filter((s) => s.url === url);
    for (const url of ['/curl', '/node']) {
      expect(byUrl(url).map((s) => [s.servername, s.headers['x-api-key']])).toEqual([
        [INJECTED, SECRET],
      ]);
    }
    expect(byUrl('/direct').map((s) => [s.servername, s.headers['x-api-key']])).toEqual([
      [OTHER, SENTINEL],
    ]);
    expect(byUrl('/plain')).toEqual([]);
    expect(edge.events.some((l) => / refused [0-9]+ plain-http api\.fixture\.test$/.test(l))).toBe(
      true,
    );

    // The edge runs as 65534 with no capability left, in the helper only.
    // The box's published port is the edge's: a listener the box opens answers the host.
    await ok([
      'exec',
      '-d',
      '-u',
      '1000:1000',
      box,
      'node',
      '-e',
      "require('http').createServer((q, r) => r.end('from-the-box')).listen(8080)",
    ]);
    expect(await fromHost(hostPort)).toBe('from-the-box');

    const status = await raw(['exec', edgeHelperName(box), 'cat', '/proc/1/status']);
    expect(status.stdout).toMatch(/^Uid:\s+65534\s+65534\s+65534\s+65534$/m);
    expect(status.stdout).toMatch(/^CapEff:\s+0+$/m);

    // Nowhere in the box: env, every process's environ and cmdline, its files.
    const keyLine = (edgeSet.leaves[0]?.keyPem ?? '').split('\n')[1] ?? '';
    expect(keyLine.length).toBeGreaterThan(40);
    const env = await inBox(box, 'env');
    expect(env.stdout).toContain(`API_KEY=${SENTINEL}`);
    const procs = await inBox(
      box,
      'for p in /proc/[0-9]*; do cat "$p/environ" "$p/cmdline"; done 2>/dev/null; echo procs-read',
      '0:0',
    );
    expect(procs.stdout).toContain('procs-read');
    expect(procs.stdout).toContain(SENTINEL);
    // The secret and the key line are grep's arguments (sh -c's $1 and $2), never in a file.
    const search = await raw([
      'exec',
      '-u',
      '0:0',
      box,
      'sh',
      '-c',
      'grep -rIlF -e "$1" -e "$2" /etc /usr/local /home /root /tmp /run /var/tmp 2>/dev/null; echo searched',
      'sh',
      SECRET,
      keyLine,
    ]);
    expect(search.stdout).toBe('searched\n');
    for (const text of [env.stdout, procs.stdout]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(keyLine);
    }
    // Nor in what the engine shows of box, helper, image, or the helper's output.
    for (const what of [box, edgeHelperName(box)]) {
      const shown = await ok(['inspect', what]);
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(keyLine);
    }
    expect(await ok(['image', 'inspect', image])).not.toContain(SECRET);
    expect(await ok(['image', 'inspect', edgeImage])).not.toContain(SECRET);
    const helperOut = await engine.logs(edgeHelperName(box));
    expect(`${helperOut?.stdout ?? ''}${helperOut?.stderr ?? ''}`).not.toContain(SECRET);

    // Torn down after the box: the helper goes, and its attached run ends.
    await ok(['rm', '-f', box]);
    expect(await engine.remove(edge.id)).toBe(true);
    await edge.ended;
    expect((await raw(['inspect', edgeHelperName(box)])).exitCode).not.toBe(0);
  });

  it('ends on its own once its stdin ends (the session over, or the byre that held it gone)', async () => {
    const box = `${prefix}-gone`;
    const edge = await startEdge(engine, edgePlan(box)).started;
    // Configured and holding: it serves on.
    await new Promise((r) => setTimeout(r, 1500));
    const before = await raw(['inspect', '-f', '{{.State.Running}}', edgeHelperName(box)]);
    expect(before.stdout.trim()).toBe('true');
    edge.close();
    const ended = await Promise.race([
      edge.ended.then(() => 'ended' as const),
      new Promise<'running'>((r) => setTimeout(() => r('running'), 20_000)),
    ]);
    expect(ended).toBe('ended');
    const state = await raw([
      'inspect',
      '-f',
      '{{.State.Running}} {{.State.ExitCode}}',
      edgeHelperName(box),
    ]);
    expect(state.stdout.trim()).toBe('false 0');
    await engine.remove(edge.id);
  });

  it('fails closed: an edge that never becomes ready is removed', async () => {
    const box = `${prefix}-unready`;
    await expect(
      startEdge(engine, edgePlan(box, { input: '{"byre-edge":1,"route":"not a route"}\n' }))
        .started,
    ).rejects.toMatchObject({ rule: 'edge.not-ready' });
    expect((await raw(['inspect', edgeHelperName(box)])).exitCode).not.toBe(0);
  });
});
