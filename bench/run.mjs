#!/usr/bin/env node
// `npm run bench`: every benchmark, one table per engine flavour, written to
// bench/results/latest.md (and the samples to latest.json; neither is
// committed). With --publish, a full run also rewrites each flavour's current
// page (bench/results/<flavour>.md) and adds its row to bench/results/history.md,
// the pages that are committed. It holds the
// machine-wide engine lock for the whole run (unless an ancestor already
// holds it: `flock … npm run bench` works too), runs the cases in a worker process
// (bench/suite.mjs), and once the worker ends — done, failed or interrupted —
// removes every container, image, volume and temp directory the run made.
//
//   npm run bench [-- --quick] [-- --runs N --big-mib N --only develop,config,status
//                 --engines docker,podman,rootless --note TEXT --out FILE --publish]
//   BYRE_BIN=/path/to/byre          the binary under test (default dist/byre)
//   BYRE_BIN_BEFORE=/path/to/byre   a second binary, compared in the same run
//   BYRE_BENCH_USER=byretest        the rootless podman user (default BYRE_TEST_USER or byretest)

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { commitOf, sweep, userIds } from './lib.mjs';
import {
  HISTORY_HEAD,
  currentPageName,
  historyRow,
  renderCurrentPage,
  renderReport,
  scrubPaths,
  scrubResults,
} from './report.mjs';

const LOCK = '/tmp/byre-engine.lock';
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const CASES = [
  'develop',
  'credentials',
  'edge',
  'rebuild',
  'startup',
  'config',
  'status',
  'transfer',
  'firewall',
];
const FLAVOURS = ['docker', 'podman', 'rootless'];

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'big-mib': { type: 'string' },
    only: { type: 'string', default: '' },
    engines: { type: 'string', default: FLAVOURS.join(',') },
    note: { type: 'string', default: process.env.BYRE_BENCH_NOTE ?? '' },
    out: { type: 'string', default: path.join(here, 'results', 'latest.md') },
    publish: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (opts.help) {
  process.stdout.write(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n\n')[0]
      .replace(/^#!.*\n/, '') + '\n',
  );
  process.exit(0);
}

/** Parents of this process, itself included. */
function ancestors() {
  const pids = new Set();
  for (let pid = process.pid; pid > 1 && !pids.has(pid);) {
    pids.add(pid);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return pids;
}

/** True when this process or an ancestor holds the flock on LOCK (from /proc/locks). */
function holdsLock() {
  if (!existsSync(LOCK)) return false;
  const ino = String(statSync(LOCK).ino);
  const mine = ancestors();
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .some((f) => f[1] === 'FLOCK' && f[5]?.split(':')[2] === ino && mine.has(Number(f[4])));
}

let interrupted = false;

/**
 * Runs `file args` to its end, never dying before it: a terminal's Ctrl-C
 * reaches the child too (same process group), other signals are passed on.
 * Resolves to the child's exit code.
 */
function supervise(file, args, options) {
  return new Promise((resolve) => {
    const child = spawn(file, args, options);
    const forward = (signal) => () => {
      interrupted = true;
      if (signal !== 'SIGINT') child.kill(signal);
    };
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, forward(s));
    child.on('close', (code, signal) =>
      resolve(code ?? (signal ? 128 + os.constants.signals[signal] : 1)),
    );
  });
}

/**
 * Holds the engine lock until this process ends: a flock in its own process
 * group (so Ctrl-C leaves it alone until the cleanup is done) that lets go
 * when our end of its stdin closes, however this process ends. Nothing to do
 * when an ancestor (`flock … npm run bench`) already holds it.
 */
async function takeLock() {
  if (holdsLock()) return;
  if (spawnSync('flock', ['-n', LOCK, 'true']).status !== 0) {
    process.stderr.write(`bench: waiting for the engine lock (${LOCK})…\n`);
  }
  const holder = spawn('flock', [LOCK, 'sh', '-c', 'echo locked; read _'], {
    detached: true,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    holder.stdout.once('data', resolve);
    holder.once('exit', (code) => reject(new Error(`flock ${LOCK} exited ${code}`)));
  });
}

const quick = opts.quick;
const runs = Number(opts.runs ?? (quick ? 3 : 9));
const bigMiB = Number(opts['big-mib'] ?? (quick ? 64 : 1024));
const only = opts.only === '' ? [] : opts.only.split(',');
const flavours = opts.engines.split(',');
for (const name of only)
  if (!CASES.includes(name)) throw new Error(`--only: unknown case ${name} (${CASES.join(', ')})`);
for (const name of flavours)
  if (!FLAVOURS.includes(name))
    throw new Error(`--engines: unknown ${name} (${FLAVOURS.join(', ')})`);
if (!(runs >= 1) || !(bigMiB >= 1)) throw new Error('--runs and --big-mib take positive numbers');
// A current page holds every case; a partial or quick run would replace it with less.
if (opts.publish && (quick || only.length > 0 || opts['big-mib'] !== undefined))
  throw new Error('--publish takes a full run: drop --quick, --only and --big-mib');

const binary = (p) => {
  const abs = path.resolve(repo, p);
  if (!existsSync(abs))
    throw new Error(`${abs} does not exist: run \`npm run build\` (or set BYRE_BIN)`);
  return abs;
};
const after = binary(process.env.BYRE_BIN ?? 'dist/byre');
const before = process.env.BYRE_BIN_BEFORE ? binary(process.env.BYRE_BIN_BEFORE) : null;
const bins =
  before === null
    ? [{ side: 'byre', path: after }]
    : [
        { side: 'before', path: before },
        { side: 'after', path: after },
      ];
// Paths a page must not record (a failure note quotes them), and what it writes instead.
const places = [
  ...bins.map((b) => [b.path, `<${b.side} binary>`]),
  [repo, '<checkout>'],
  [os.tmpdir(), '<tmp>'],
  ['/tmp', '<tmp>'],
  [os.homedir(), '~'],
];
const user = process.env.BYRE_BENCH_USER ?? process.env.BYRE_TEST_USER ?? 'byretest';

await takeLock();

const tag = `byretest-bench-${randomBytes(8).toString('hex').slice(0, 6)}`;
const resultsPath = path.join(os.tmpdir(), `${tag}-results.json`);
const started = Date.now();
const loadStart = os.loadavg()[0].toFixed(2);
const config = {
  tag,
  bins,
  runs,
  bigBytes: bigMiB * 1024 * 1024,
  files: 1000,
  firewallSizes: quick ? [1] : [1, 10, 50],
  only,
  flavours,
  user: userIds(user) === null ? null : user,
  resultsPath,
};

process.stderr.write(
  `bench: ${tag}, medians of ${runs}, ${bigMiB} MiB big file, binaries ${bins.map((b) => b.path).join(' vs ')}\n`,
);
const code = await supervise(process.execPath, [path.join(here, 'suite.mjs')], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, BYRE_BENCH_CONFIG: JSON.stringify(config) },
});

// The worker is gone, whatever ended it: remove everything the run made.
const left = [];
const sweepable = [
  { key: 'docker', engine: 'docker', user: null },
  { key: 'podman', engine: 'podman', user: null },
  ...(config.user === null ? [] : [{ key: 'rootless', engine: 'podman', user: config.user }]),
];
for (const flavour of sweepable) {
  const l = sweep(flavour, tag);
  const n = l.containers.length + l.images.length + l.volumes.length;
  if (n > 0) left.push(`${flavour.key}: ${JSON.stringify(l)}`);
}
for (const name of readdirSync(os.tmpdir())) {
  if (name.startsWith(tag) && name !== path.basename(resultsPath))
    rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
}
if (left.length) process.stderr.write(`bench: could not remove ${left.join('; ')}\n`);

if (interrupted || !existsSync(resultsPath)) {
  rmSync(resultsPath, { force: true });
  process.stderr.write(
    `bench: ${interrupted ? 'interrupted' : 'no results'}; cleaned up, wrote no report\n`,
  );
  process.exit(interrupted ? 130 : code || 1);
}

const results = scrubResults(JSON.parse(readFileSync(resultsPath, 'utf8')), places);
rmSync(resultsPath, { force: true });
// A binary is named by its version (which carries its commit) and the checkout
// it sits in, never by its path: pages are committed and read elsewhere.
const describe = (b) => ({
  side: b.side,
  version: spawnSync(b.path, ['version'], { encoding: 'utf8' }).stdout.trim() || 'unknown',
  built: `${new Date(statSync(b.path).mtimeMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  checkout: commitOf(path.dirname(b.path)),
});
const meta = {
  date: new Date(started).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  commit: commitOf(path.dirname(after)),
  bins: bins.map(describe),
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
  memGiB: Math.round(os.totalmem() / 1024 ** 3),
  kernel: os.release(),
  load: [loadStart, os.loadavg()[0].toFixed(2)],
  runs,
  bigBytes: config.bigBytes,
  files: config.files,
  quick,
  only,
  minutes: ((Date.now() - started) / 60_000).toFixed(1),
  note: scrubPaths(opts.note, places),
};
const page = renderReport(meta, results);
mkdirSync(path.dirname(opts.out), { recursive: true });
writeFileSync(opts.out, page);
if (opts.out.endsWith('.md')) {
  writeFileSync(opts.out.replace(/\.md$/, '.json'), JSON.stringify({ meta, results }, null, 2));
}
process.stdout.write(page);
process.stderr.write(`bench: wrote ${path.resolve(opts.out)}\n`);
if (opts.publish) {
  const history = path.join(here, 'results', 'history.md');
  const kept = existsSync(history) ? readFileSync(history, 'utf8').trimEnd() : HISTORY_HEAD;
  const published = results.filter((f) => !f.failed);
  for (const f of published) {
    writeFileSync(path.join(here, 'results', currentPageName(f)), renderCurrentPage(meta, f));
  }
  writeFileSync(history, `${kept}\n${historyRow(meta, results)}\n`);
  process.stderr.write(
    `bench: published ${published.map(currentPageName).join(', ') || 'no page'} and a history row` +
      `${published.length < results.length ? ' (a failed flavour keeps its old page)' : ''}\n`,
  );
}
process.exit(code !== 0 || left.length > 0 ? 1 : 0);
