// The benchmark cases. Each takes the flavour's context and returns report
// rows (see report.mjs): the raw engine doing a job beside each byre binary
// doing it, interleaved in one run. Not tests: nothing here asserts timing.
//
// ctx: { flavour, tag, root, data, runs, bigBytes, bins: [{ side, path }],
//        projects: { <side>: { dir, home, id } }, image, boxes: { <side>: id },
//        log(text) }

import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { fixtureCerts } from '../test/support/edge-fixture.mjs';
import { benchProject, interleave, median, ownedDir, run, tryRun, wallMs } from './lib.mjs';

/** Runs a byre binary as the flavour in its side's project (or in `p`). */
export function byre(ctx, side, args, options = {}, p = ctx.projects[side]) {
  const bin = ctx.bins.find((b) => b.side === side);
  return run(ctx.flavour, bin.path, args, {
    cwd: p.dir,
    ...options,
    env: { BYRE_HOME: p.home, ...options.env },
  });
}

const engine = (ctx, args, options) => run(ctx.flavour, ctx.flavour.engine, args, options);
const sidesOf = (ctx) => ctx.bins.map((b) => b.side);

/**
 * A row's medians, and its samples for the JSON: `rawKey(side)` and
 * `byreKey(side)` name the samples of each side's raw counterpart and of the
 * side itself; `pick` takes one measure out of a sample.
 */
function measured(ctx, samples, rawKey, byreKey = (s) => s, pick = (x) => x) {
  const of = (key) => samples[key].map(pick);
  const row = { raw: {}, byre: {}, samples: {} };
  for (const s of sidesOf(ctx)) {
    row.raw[s] = median(of(rawKey(s)));
    row.byre[s] = median(of(byreKey(s)));
    for (const key of [rawKey(s), byreKey(s)]) row.samples[key] = of(key).map(Math.round);
  }
  return row;
}

// The box's login shell runs this from stdin: the moment the box's process runs.
const PROBE = 'date +%s%N\n';

/** The box clock (ns since the epoch) that PROBE printed, in ms. */
export function probeMs(stdout) {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^\d{16,}$/.test(l))
    .pop();
  if (line === undefined) throw new Error(`the box printed no clock: ${JSON.stringify(stdout)}`);
  return Number(BigInt(line) / 1000n) / 1000;
}

/** A sample: the command's wall time (added by `time`) and start → box process running. */
const timed = (fn) => () => {
  const t0 = wallMs();
  return { running: probeMs(fn()) - t0 };
};

/** Warm `byre develop` of a no-agent box against raw `run --rm -i` of the same image. */
export function develop(ctx) {
  const sides = {
    raw: timed(() =>
      engine(ctx, ['run', '--rm', '-i', '--label', `byre.bench=${ctx.tag}`, ctx.image], {
        input: PROBE,
      }),
    ),
  };
  for (const s of sidesOf(ctx)) sides[s] = timed(() => byre(ctx, s, ['develop'], { input: PROBE }));
  const samples = interleave(sides, ctx.runs);
  const raw = () => 'raw';
  const maxDelta = ctx.flavour.engine === 'docker' ? 250 : 400;
  const what = '`run --rm -i` of the same image';
  return [
    {
      name: 'warm `develop`, no agent: start → box process running',
      what,
      show: 'time',
      target: { of: 'delta', max: maxDelta },
      ...measured(ctx, samples, raw, undefined, (x) => x.running),
    },
    {
      name: 'warm `develop`, no agent: start → exit (box removed)',
      what,
      show: 'time',
      target: null,
      ...measured(ctx, samples, raw, undefined, (x) => x.wall),
    },
  ];
}

/**
 * A project of its own for a case, per side, its image built by a cold
 * develop: `config` (the store's byre.config) is written first when given.
 */
function caseProjects(ctx, name, config) {
  const projects = {};
  for (const s of sidesOf(ctx)) {
    const p = benchProject(ctx.flavour, ctx.root, `${name}-${s}`);
    p.id = JSON.parse(byre(ctx, s, ['status', '--data'], {}, p)).project_id;
    if (config !== undefined) {
      const store = path.join(p.home, 'projects', p.id);
      mkdirSync(store, { recursive: true });
      writeFileSync(path.join(store, 'byre.config'), config);
      ownedDir(ctx.flavour, p.home);
    }
    ctx.log(`${name}-${s}: cold develop (builds the image)`);
    byre(ctx, s, ['develop'], { input: 'true\n' }, p);
    projects[s] = p;
  }
  return projects;
}

/** The box's start as develop's stdin feeds it: the time to its process running. */
function timedDevelop(ctx, side, p, args = [], input = '') {
  const t0 = wallMs();
  return probeMs(byre(ctx, side, ['develop', ...args], { input: input + PROBE }, p)) - t0;
}

const PASSPHRASE = 'bench passphrase';

/**
 * Warm develop with two sealed credentials (one passphrase, one identity)
 * against warm develop without, each binary against itself: the identity's
 * unlock plus the delivery the launcher waits for (adr/0054).
 */
export function credentials(ctx) {
  const projects = caseProjects(ctx, 'creds');
  const value = path.join(ctx.root, 'credential-value');
  writeFileSync(value, 'bench-credential-value\n', { mode: 0o644 });
  ownedDir(ctx.flavour, ctx.root);
  const sides = {};
  for (const s of sidesOf(ctx)) {
    const p = projects[s];
    byre(
      ctx,
      s,
      ['credential', 'add', 'BENCH_A', '--file', value, '--passphrase-fd', '0'],
      {
        input: `${PASSPHRASE}\n`,
      },
      p,
    );
    byre(ctx, s, ['credential', 'add', 'BENCH_B', '--file', value], {}, p);
    sides[`${s}:without`] = () => timedDevelop(ctx, s, ctx.projects[s]);
    sides[`${s}:with`] = () => timedDevelop(ctx, s, p, ['--passphrase-fd', '0'], `${PASSPHRASE}\n`);
  }
  return [
    {
      name: 'warm `develop` with two credentials: start → box process running',
      what: 'warm `develop` without credentials',
      show: 'time',
      target: { of: 'delta', max: 1000 },
      ...measured(
        ctx,
        interleave(sides, ctx.runs),
        (s) => `${s}:without`,
        (s) => `${s}:with`,
      ),
    },
  ];
}

/** The name the edge case injects for: the fixture's certificate is for it. */
const EDGE_NAME = 'api.fixture.test';

/** This machine's first non-loopback IPv4: boxes of every flavour reach the host there. */
function machineAddress() {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  if (found === undefined) throw new Error('no non-loopback IPv4 address on this machine');
  return found.address;
}

/** The fixture HTTPS server (test/support/edge-fixture.mjs) on this machine: { address, port, ca, stop }. */
async function edgeFixture(ctx) {
  const dir = path.join(ctx.root, 'edge-fixture');
  mkdirSync(dir, { recursive: true });
  const ca = fixtureCerts(dir, [EDGE_NAME]);
  const address = machineAddress();
  const child = spawn(process.execPath, [path.join(dir, 'server.mjs'), '0', dir, address], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // It listens on a port of the OS's choosing and says which once ready.
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
      if (out.startsWith('fixture ready')) resolve(Number(/port (\d+)/.exec(out)?.[1]));
    });
    child.on('exit', () => reject(new Error(`the fixture exited: ${out}`)));
  });
  child.stdout.resume();
  return { address, port, ca, stop: () => child.kill('SIGKILL') };
}

/**
 * The in-box side of the per-request row: `n` HTTPS GETs (after a warmup),
 * alternating one straight to the server (its address, the fixture's CA) and
 * one to the injected name (the edge, trusted through the project's CA),
 * each on its own keep-alive connection; prints each one's ms.
 */
const REQUESTS_SCRIPT = (fixture, n) => `node -e '
const https = require("node:https");
const ca = require("node:fs").readFileSync("/tmp/byre-bench-ca.pem");
const direct = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
const edge = new https.Agent({ keepAlive: true, maxSockets: 1 });
const get = (o) => new Promise((resolve, reject) => {
  const t = process.hrtime.bigint();
  https.get({ path: "/", ...o }, (r) => { r.resume(); r.on("end", () => resolve(Number(process.hrtime.bigint() - t) / 1e6)); }).on("error", reject);
});
(async () => {
  const out = { direct: [], edge: [] };
  for (let i = 0; i < ${n} + 5; i++) {
    const d = await get({ host: "${fixture.address}", port: ${fixture.port}, servername: "${EDGE_NAME}", agent: direct });
    const e = await get({ host: "${EDGE_NAME}", port: ${fixture.port}, agent: edge });
    if (i >= 5) { out.direct.push(d); out.edge.push(e); }
  }
  console.log("EDGE-REQUESTS " + JSON.stringify(out));
})().catch((e) => { console.log("EDGE-REQUESTS-FAILED " + e.message); });
'
`;

/**
 * Credentials injected at the edge (issue 31, adr/0070), each binary
 * against itself: warm `develop` with one key injected against the same
 * key delivered (the edge's start on the launch path: at most +100 ms), and
 * in one box HTTPS requests through the edge against the same requests
 * straight to the server (what the edge adds per request: at most +5 ms,
 * median). The server is a fixture on this machine with its own CA, which
 * the edge is told to trust and where to find (the test-only
 * BYRE_EDGE_UPSTREAM and BYRE_EDGE_UPSTREAM_CA), so nothing leaves it. Both
 * projects' default layer adds Debian's node to the agentless image, the
 * box's client for the requests (the edge brings none into it, adr/0077).
 */
export async function edge(ctx) {
  const fixture = await edgeFixture(ctx);
  try {
    const passfile = path.join(ctx.root, 'edge-passphrase');
    // Twice: a new identity asks it again to confirm.
    writeFileSync(passfile, `${PASSPHRASE}\n${PASSPHRASE}\n`, { mode: 0o600 });
    writeFileSync(path.join(ctx.root, 'edge-ca.pem'), fixture.ca, { mode: 0o644 });
    ownedDir(ctx.flavour, ctx.root);
    const env = { BYRE_EDGE_UPSTREAM: fixture.address, BYRE_EDGE_UPSTREAM_CA: fixture.ca };
    const auth = ['--passphrase-fd', '0'];
    const sides = {};
    const requests = {};
    for (const s of sidesOf(ctx)) {
      const projects = {};
      for (const kind of ['injected', 'delivered']) {
        const p = benchProject(ctx.flavour, ctx.root, `edge-${kind}-${s}`);
        appendFileSync(path.join(p.home, 'default.config'), 'apt = ["nodejs"]\n');
        const inject =
          kind === 'injected' ? ['--inject', `${EDGE_NAME}:${fixture.port}`, '--bearer'] : [];
        // The value on stdin, the passphrase on fd 3 (from a 0600 file), as a user would.
        const bin = ctx.bins.find((b) => b.side === s).path;
        run(
          ctx.flavour,
          'bash',
          [
            '-c',
            '"$0" credential add BENCH_KEY "$@" --passphrase-fd 3 3<"$PASSFILE"',
            bin,
            ...inject,
          ],
          {
            cwd: p.dir,
            input: 'bench-injected-value',
            env: { BYRE_HOME: p.home, PASSFILE: passfile },
          },
        );
        ctx.log(`edge-${kind}-${s}: cold develop (builds the image)`);
        byre(ctx, s, ['develop', ...auth], { input: `${PASSPHRASE}\ntrue\n`, env }, p);
        projects[kind] = p;
      }
      sides[`${s}:delivered`] = () =>
        timedDevelop(ctx, s, projects.delivered, auth, `${PASSPHRASE}\n`);
      sides[`${s}:injected`] = () =>
        timedDevelop(ctx, s, projects.injected, auth, `${PASSPHRASE}\n`);
      const script = `cat > /tmp/byre-bench-ca.pem <<'EOF'\n${fixture.ca.trim()}\nEOF\n${REQUESTS_SCRIPT(fixture, ctx.runs * 10)}`;
      const said = byre(
        ctx,
        s,
        ['develop', ...auth],
        { input: `${PASSPHRASE}\n${script}`, env },
        projects.injected,
      );
      const line = said.split('\n').find((l) => l.startsWith('EDGE-REQUESTS'));
      if (line === undefined || !line.startsWith('EDGE-REQUESTS ')) {
        throw new Error(`the box's requests failed: ${line ?? said.slice(-500)}`);
      }
      const got = JSON.parse(line.slice('EDGE-REQUESTS '.length));
      requests[`${s}:direct`] = got.direct;
      requests[`${s}:edge`] = got.edge;
    }
    const launch = interleave(sides, ctx.runs);
    return [
      {
        name: 'warm `develop` with a key injected at the edge: start → box process running',
        what: 'warm `develop` with the same key delivered',
        show: 'time',
        target: { of: 'delta', max: 100 },
        ...measured(
          ctx,
          launch,
          (s) => `${s}:delivered`,
          (s) => `${s}:injected`,
        ),
      },
      {
        name: 'an HTTPS request through the edge, in the box (keep-alive, median of many)',
        what: 'the same request straight to the server',
        show: 'time',
        target: { of: 'delta', max: 5 },
        ...measured(
          ctx,
          requests,
          (s) => `${s}:direct`,
          (s) => `${s}:edge`,
        ),
      },
    ];
  } finally {
    fixture.stop();
  }
}

/**
 * `mcp add`, then develop, on a project with apt packages, against develop
 * with nothing changed (the rebuild a wiring change costs), and against the
 * raw engine doing the same job: the one ejected Dockerfile (`byre dockerfile
 * --context`) built with its wiring changed, then `run --rm -i` of it. byre
 * builds a wiring change as the wiring's COPY on its base image (adr/0073);
 * the raw build walks every cached step of the one Dockerfile.
 */
export function rebuild(ctx) {
  const projects = caseProjects(ctx, 'apt', 'apt = ["jq"]\n');
  const last = sidesOf(ctx).at(-1);
  const ejected = path.join(ctx.root, 'apt-ejected');
  byre(ctx, last, ['dockerfile', '--context', ejected], {}, projects[last]);
  const image = byre(ctx, last, ['dockerrun'], {}, projects[last]).trim().split(' ').pop();
  const [, uid, gid] = /-u(\d+)-g(\d+)$/.exec(image) ?? [];
  const rawTag = `${ctx.tag}-raw-rebuild`;
  const rawImages = new Set();
  let n = 0;
  const sides = {
    raw: () => {
      n += 1;
      const wiring = {
        mcpServers: { [`raw-${n}`]: { type: 'http', url: `http://127.0.0.1:9/raw-${n}` } },
      };
      writeFileSync(path.join(ejected, 'wiring', 'mcp.json'), `${JSON.stringify(wiring)}\n`);
      const t0 = wallMs();
      engine(ctx, [
        'build',
        '-t',
        rawTag,
        '-f',
        path.join(ejected, 'Dockerfile.generated'),
        ...(ctx.flavour.engine === 'podman' ? ['--format', 'docker'] : []),
        '--build-arg',
        `BYRE_UID=${uid}`,
        '--build-arg',
        `BYRE_GID=${gid}`,
        ejected,
      ]);
      const out = engine(ctx, ['run', '--rm', '-i', '--label', `byre.bench=${ctx.tag}`, rawTag], {
        input: PROBE,
      });
      const running = probeMs(out) - t0;
      // Each build leaves the one before it untagged: removed at the end.
      rawImages.add(engine(ctx, ['image', 'inspect', '--format', '{{.Id}}', rawTag]).trim());
      return running;
    },
  };
  for (const s of sidesOf(ctx)) {
    const p = projects[s];
    sides[`${s}:same`] = () => timedDevelop(ctx, s, p);
    sides[`${s}:mcp`] = () => {
      n += 1;
      byre(ctx, s, ['mcp', 'add', `bench-${n}`, `http://127.0.0.1:9/mcp-${n}`], {}, p);
      return timedDevelop(ctx, s, p);
    };
  }
  let samples;
  try {
    samples = interleave(sides, ctx.runs);
  } finally {
    tryRun(ctx.flavour, ctx.flavour.engine, ['rmi', '-f', rawTag, ...rawImages]);
  }
  const name = '`mcp add`, then `develop` (apt packages): start → box process running';
  return [
    {
      name,
      what: 'warm `develop`, nothing changed',
      show: 'time',
      target: { of: 'delta', max: 5000 },
      ...measured(
        ctx,
        samples,
        (s) => `${s}:same`,
        (s) => `${s}:mcp`,
      ),
    },
    {
      name,
      what: 'raw `build` of the ejected context, wiring changed, + `run --rm -i`',
      show: 'time',
      target: null,
      ...measured(
        ctx,
        samples,
        () => 'raw',
        (s) => `${s}:mcp`,
      ),
    },
  ];
}

/** `byre status` with the box running against raw `ps --filter label=…` + `inspect`. */
export function status(ctx) {
  const last = sidesOf(ctx).at(-1);
  const filter = ['--filter', `label=byre.project=${ctx.projects[last].id}`];
  const sides = {
    raw: () => {
      const found = engine(ctx, ['ps', '-q', ...filter])
        .trim()
        .split('\n')[0];
      engine(ctx, ['inspect', found]);
    },
  };
  for (const s of sidesOf(ctx)) sides[s] = () => byre(ctx, s, ['status']);
  return [
    {
      name: '`status`, box running',
      what: '`ps --filter label=…` + `inspect`',
      show: 'time',
      target: { of: 'ratio', max: 1.5 },
      ...measured(ctx, interleave(sides, ctx.runs), () => 'raw'),
    },
  ];
}

/** `dockerfile`, `dockerrun` and `status` with no box, each against its own binary's `version`. */
export function startup(ctx) {
  const verbs = ['version', 'dockerfile', 'dockerrun', 'status'];
  const sides = {};
  for (const s of sidesOf(ctx)) for (const v of verbs) sides[`${s}:${v}`] = () => byre(ctx, s, [v]);
  const samples = interleave(sides, ctx.runs);
  return ['dockerfile', 'dockerrun', 'status'].map((verb) => ({
    name: `\`${verb}\`${verb === 'status' ? ', no box' : ''}`,
    what: '`byre version`',
    show: 'time',
    target: { of: 'ratio', max: 2 },
    ...measured(
      ctx,
      samples,
      (s) => `${s}:version`,
      (s) => `${s}:${verb}`,
    ),
  }));
}

const FIRST_FRAME = path.join(path.dirname(new URL(import.meta.url).pathname), 'first-frame.py');

/**
 * `byre config` to its first frame (the exposure line on screen), against
 * the same binary's `version` to its exit, both in a pseudo-terminal
 * (bench/first-frame.py). No engine is asked; the project's config exists.
 */
export function config(ctx) {
  const inPty = (s, marker, args) => () => {
    const bin = ctx.bins.find((b) => b.side === s);
    const p = ctx.projects[s];
    const out = run(ctx.flavour, '/usr/bin/python3', [FIRST_FRAME, marker, bin.path, ...args], {
      cwd: p.dir,
      env: { BYRE_HOME: p.home, TERM: 'xterm-256color' },
    });
    return Number(out.trim());
  };
  const sides = {};
  for (const s of sidesOf(ctx)) {
    sides[`${s}:version`] = inPty(s, '', ['version']);
    sides[`${s}:config`] = inPty(s, 'exposure: ', ['config']);
  }
  return [
    {
      name: '`config`, to its first frame',
      what: '`byre version` (both in a pty)',
      show: 'time',
      target: { of: 'delta', max: 250 },
      ...measured(
        ctx,
        interleave(sides, ctx.runs),
        (s) => `${s}:version`,
        (s) => `${s}:config`,
      ),
    },
  ];
}

/**
 * Deliver and grab against the raw engine, into and out of each side's
 * running box (the raw side uses the last side's box): a big file's
 * throughput against `exec -i … cat`, the fixed cost of one call against
 * `exec true`, and a 1,000-file tree against the engine's `cp`.
 */
export function transfer(ctx) {
  const sides = sidesOf(ctx);
  const rawBox = ctx.boxes[sides.at(-1)];
  const { big, tiny, tree } = ctx.data;
  const out = path.join(ctx.root, 'out');
  const inBox = (box, script) => engine(ctx, ['exec', '-u', '0', box, 'sh', '-c', script]);
  // Each reset ends with a `sync`: a 1 GiB write leaves its pages dirty,
  // and the next sample would otherwise share the disk with their writeback
  // (measured on rootless podman: the second of two back-to-back 1 GiB
  // writes took 5.7-6.5 s against 2.9-3.3 s for the first, whichever side
  // ran second).
  const cleanBoxes = () => {
    for (const box of Object.values(ctx.boxes))
      inBox(box, 'rm -rf /inbox/* /inbox/.[!.]* /tmp/rx /tmp/ry');
    execFileSync('sync');
  };
  const cleanOut = () => {
    rmSync(out, { recursive: true, force: true });
    ownedDir(ctx.flavour, out);
    execFileSync('sync');
  };
  for (const box of Object.values(ctx.boxes)) {
    engine(ctx, ['cp', big, `${box}:/tmp/big.bin`]);
    engine(ctx, ['cp', tiny, `${box}:/tmp/tiny.bin`]);
    engine(ctx, ['cp', tree, `${box}:/tmp/tree`]);
    inBox(box, 'chmod -R a+rX /tmp/big.bin /tmp/tiny.bin /tmp/tree');
  }
  const withFd = (file, flags, fn) => {
    const fd = openSync(file, flags);
    try {
      return fn(fd);
    } finally {
      closeSync(fd);
    }
  };
  const byreSides = (args) => Object.fromEntries(sides.map((s) => [s, () => byre(ctx, s, args)]));
  const compare = (raw, args, reset, warmup) =>
    measured(ctx, interleave({ raw, ...byreSides(args) }, ctx.runs, reset, warmup), () => 'raw');
  const kinds = {
    speed: (verb) => ({
      name: `${verb} ${ctx.bigBytes / 1024 ** 2} MiB: throughput`,
      show: 'speed',
      bytes: ctx.bigBytes,
      target: { of: 'ratio', min: 0.95 },
    }),
    cost: (verb) => ({
      name: `${verb} 1 byte: fixed cost per call`,
      show: 'cost',
      target: { of: 'delta', max: 60 },
    }),
    tree: (verb) => ({
      name: `${verb} ${ctx.files.toLocaleString('en')} files`,
      show: 'time',
      target: { of: 'ratio', max: 1.5 },
    }),
  };
  const execTrue = () => engine(ctx, ['exec', rawBox, 'true']);
  // The engine's own floor for a call that must first find its box: the
  // listing byre's discovery asks (by label, running only), then `exec true`.
  const psThenExec = () => {
    engine(ctx, ['ps', '-q', '--no-trunc', '--filter', 'label=byre.project']);
    execTrue();
  };
  const plan = [
    [
      'deliver',
      'speed',
      '`exec -i … sh -c "cat > f"`',
      () =>
        withFd(big, 'r', (fd) =>
          engine(ctx, ['exec', '-i', rawBox, 'sh', '-c', 'cat > /tmp/rx'], {
            stdio: [fd, 'pipe', 'pipe'],
          }),
        ),
      [big],
      cleanBoxes,
    ],
    ['deliver', 'cost', '`exec … true`', execTrue, [tiny], cleanBoxes],
    [
      'deliver',
      'tree',
      '`cp <dir> box:`',
      () => engine(ctx, ['cp', tree, `${rawBox}:/tmp/ry`]),
      [tree],
      cleanBoxes,
    ],
    [
      'grab',
      'speed',
      '`exec … cat f > file`',
      () =>
        withFd(path.join(out, 'raw.bin'), 'w', (fd) =>
          engine(ctx, ['exec', rawBox, 'cat', '/tmp/big.bin'], { stdio: ['ignore', fd, 'pipe'] }),
        ),
      ['/tmp/big.bin', out],
      cleanOut,
    ],
    ['grab', 'cost', '`exec … true`', execTrue, ['/tmp/tiny.bin', out], cleanOut],
    [
      'grab',
      'tree',
      '`cp box:<dir> .`',
      () => engine(ctx, ['cp', `${rawBox}:/tmp/tree`, out]),
      ['/tmp/tree', out],
      cleanOut,
    ],
  ];
  const rows = [];
  for (const [verb, kind, what, raw, args, reset] of plan) {
    ctx.log(`${verb}: ${kind}`);
    // A big file is already in the page cache (the `cp` above read it): no warm-up round.
    const warmup = kind !== 'speed';
    if (kind !== 'cost') {
      rows.push({ ...kinds[kind](verb), what, ...compare(raw, [verb, ...args], reset, warmup) });
      continue;
    }
    // The fixed cost, twice from the same rounds: against `exec true` (the
    // target), and against `ps` + `exec true`, what any caller that must find
    // the box first pays the engine (what is left is byre's own).
    const floor = '`ps --filter label=…` + `exec … true`';
    const samples = interleave(
      { raw, floor: psThenExec, ...byreSides([verb, ...args]) },
      ctx.runs,
      reset,
    );
    rows.push({ ...kinds.cost(verb), what, ...measured(ctx, samples, () => 'raw') });
    rows.push({
      name: `${verb} 1 byte: over the engine's floor`,
      show: 'cost',
      target: null,
      what: floor,
      ...measured(ctx, samples, () => 'floor'),
    });
  }
  rmSync(out, { recursive: true, force: true });
  return rows;
}

/**
 * The engine's gateway address: firewall entries point at it, so nothing
 * leaves this machine. Rootless podman's boxes sit behind slirp4netns, whose
 * host is 10.0.2.2 (the walled case only names it; nothing connects).
 */
function gateway(ctx) {
  if (ctx.flavour.user !== null) return '10.0.2.2';
  if (ctx.flavour.engine === 'docker') {
    const ip = run(ctx.flavour, 'ip', ['-4', '-o', 'addr', 'show', 'docker0']);
    return /inet (\S+)\//.exec(ip)[1];
  }
  return engine(ctx, [
    'network',
    'inspect',
    'podman',
    '-f',
    '{{range .Subnets}}{{.Gateway}}{{end}}',
  ]).trim();
}

/**
 * Warm `develop` under byre/firewall beside warm `develop` of the same
 * binary's open project, interleaved: what raising the wall costs a launch
 * (issue 30's target: at most +300 ms; adr/0061). Each side gets a second
 * project whose defaults enable the wall with one allowlist entry, the
 * engine's gateway, so nothing leaves the machine.
 */
export function walled(ctx) {
  const gw = gateway(ctx);
  const sides = {};
  for (const s of sidesOf(ctx)) {
    const bin = ctx.bins.find((b) => b.side === s);
    const w = benchProject(ctx.flavour, ctx.root, `walled-${s}`);
    writeFileSync(
      path.join(w.home, 'default.config'),
      `engine = "${ctx.flavour.engine}"\nskills = ["firewall"]\negress = ["${gw}:20000"]\n`,
    );
    const develop = (input) =>
      run(ctx.flavour, bin.path, ['develop'], { cwd: w.dir, env: { BYRE_HOME: w.home }, input });
    ctx.log(`walled-${s}: cold develop (builds the image)`);
    develop('true\n');
    sides[`open:${s}`] = timed(() => byre(ctx, s, ['develop'], { input: PROBE }));
    sides[`walled:${s}`] = timed(() => develop(PROBE));
  }
  const samples = interleave(sides, ctx.runs);
  const what = 'warm `develop` of an open box';
  const row = (name, pick, target) => ({
    name,
    what,
    show: 'time',
    target,
    ...measured(
      ctx,
      samples,
      (s) => `open:${s}`,
      (s) => `walled:${s}`,
      pick,
    ),
  });
  return [
    row(
      'walled `develop` (byre/firewall), no agent: start → box process running',
      (x) => x.running,
      { of: 'delta', max: 300 },
    ),
    row('walled `develop` (byre/firewall), no agent: start → exit', (x) => x.wall, null),
  ];
}

/**
 * Box start → launch gate open under byre/firewall, for allowlists of `sizes`
 * entries, with the last binary only (no raw counterpart). The box's command
 * runs only once the gate opens, so it prints that moment; the box's
 * StartedAt is the start. Entries are the engine gateway on distinct ports.
 */
export function firewall(ctx, sizes) {
  const side = sidesOf(ctx).at(-1);
  const gw = gateway(ctx);
  const p = ctx.projects[side];
  const store = path.join(p.home, 'projects', p.id);
  const rows = [];
  for (const size of sizes) {
    ctx.log(`firewall: ${size} entries`);
    const egress = Array.from({ length: size }, (_, i) => `"${gw}:${20000 + i}"`).join(', ');
    mkdirSync(store, { recursive: true });
    writeFileSync(path.join(store, 'byre.config'), `skills = ["firewall"]\negress = [${egress}]\n`);
    ownedDir(ctx.flavour, p.home);
    // Builds (cached after the first size) and proves the wall once.
    byre(ctx, side, ['develop'], { input: 'true\n' });
    const script = path.join(ctx.root, 'wall.sh');
    writeFileSync(script, byre(ctx, side, ['ejectfirewall']), { mode: 0o755 });
    const image = byre(ctx, side, ['dockerrun']).trim().split(' ').pop();
    const samples = [];
    for (let i = 0; i < ctx.runs; i++) {
      const name = `${ctx.tag}-gate-${size}-${i}`;
      engine(ctx, [
        'run',
        '-d',
        '--name',
        name,
        '-e',
        'BYRE_LAUNCH_GATE_TIMEOUT=120',
        image,
        'sh',
        '-c',
        'date +%s%N; sleep 30',
      ]);
      try {
        run(ctx.flavour, script, [name]);
        let opened = '';
        for (let t = 0; t < 300 && opened === ''; t++) {
          opened = tryRun(ctx.flavour, ctx.flavour.engine, ['logs', name]).trim();
          if (opened === '') run(ctx.flavour, 'sleep', ['0.1']);
        }
        const started = engine(ctx, ['inspect', '-f', '{{.State.StartedAt}}', name]).trim();
        samples.push(probeMs(opened) - isoMs(started));
      } finally {
        tryRun(ctx.flavour, ctx.flavour.engine, ['rm', '-f', name]);
      }
    }
    rows.push({
      name: `firewall, ${size} allowlist ${size === 1 ? 'entry' : 'entries'}: box start → gate open`,
      ms: median(samples),
    });
  }
  rmSync(path.join(store, 'byre.config'), { force: true });
  return rows;
}

/** An RFC 3339 time with up to nanoseconds, in ms since the epoch (sub-ms kept). */
export function isoMs(text) {
  const frac = /\.(\d+)/.exec(text)?.[1] ?? '0';
  const whole = Date.parse(text.replace(/\.\d+/, ''));
  return whole + Number(`0.${frac}`) * 1000;
}
