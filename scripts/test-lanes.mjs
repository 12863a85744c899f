// `npm test` after the build: every tier, in lanes that run at once (adr/0060).
// The engine tier is one lane per engine (docker's daemon and podman's
// storage share nothing, so their boxes and sweeps cannot meet) beside one
// lane for the tiers that need no engine; rootless podman gets a lane of its
// own that starts when the host tiers end (unless BYRE_LANES_SPLIT_ROOTLESS=0).
// The engine files that drive both engines in one test, or need the machine
// to themselves, run after the lanes. With arguments (`npm test --
// <filter>`), this is plain `vitest run <filter>`. Each lane reports its CPU
// seconds, and the run how busy the machine was: whether lanes that run at
// once shared the cores or waited on engines.

import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  cpuSummary,
  failureRecap,
  machineCpuSeconds,
  planLanes,
  reapedCpuSeconds,
  requiredEngines,
} from './lanes.mjs';

const VITEST = 'node_modules/.bin/vitest';

/**
 * Engine files run after the lanes: `cross` drive docker and podman in one
 * test; `alone` need no other lane's box on the machine.
 */
const AFTER_LANES = {
  cross: ['test/engine/engine-choice.test.ts'].filter((f) => existsSync(f)),
  alone: ['test/engine/status-idle.test.ts'].filter((f) => existsSync(f)),
};

const args = process.argv.slice(2);
if (args.length > 0) {
  process.exit(spawnSync(VITEST, ['run', ...args], { stdio: 'inherit' }).status ?? 1);
}

// Without BYRE_TEST_ENGINES the tier runs on the engines that answer; a lane
// is given each of those, so no lane skips an engine the tier would have run.
const engines =
  requiredEngines(process.env['BYRE_TEST_ENGINES']) ??
  ['docker', 'podman'].filter(
    (e) => spawnSync(e, ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0,
  );
const { lanes, after } = planLanes(engines, AFTER_LANES, {
  splitRootless:
    (process.env['BYRE_TEST_USER'] ?? '').trim() !== '' &&
    process.env['BYRE_LANES_SPLIT_ROOTLESS'] !== '0',
});

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

const cpuAtStart = machineCpu();
let reapedBefore = reapedCpu();
const stopSampling = sampleCpu();
const results = (await Promise.all(lanes.map(runChain))).flat();
for (const lane of after) results.push(await runLane(lane));

process.stdout.write('\nlanes:\n');
for (const r of results) {
  const outcome = r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`;
  process.stdout.write(`  ${r.name.padEnd(8)} ${outcome} in ${r.seconds} s (cpu ${r.cpu} s)\n`);
}
stopSampling();
const cpuAtEnd = machineCpu();
if (cpuAtStart !== null && cpuAtEnd !== null) {
  const lanesCpu = results.reduce((sum, r) => sum + r.cpu, 0);
  process.stdout.write(`  ${cpuSummary(cpuAtStart, cpuAtEnd, lanesCpu)}\n`);
}
for (const r of results.filter((r) => r.code !== 0)) {
  process.stdout.write(`\n${r.name} lane, what failed:\n`);
  for (const line of r.recap) process.stdout.write(`  ${line}\n`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);

/** A lane, then the lane that follows it in the same slot (`next`), and so on. */
async function runChain(lane) {
  const results = [];
  for (let l = lane; l !== undefined; l = l.next) results.push(await runLane(l));
  return results;
}

/**
 * One vitest run, its lines prefixed by the lane's name; resolves with its
 * exit code, seconds and what it should repeat if it failed.
 */
function runLane({ name, argv: laneArgv, env = {}, nice }) {
  const started = Date.now();
  const argv = [...laneArgv, ...timingsReport(name)];
  const [command, commandArgv] =
    nice === undefined ? [VITEST, argv] : ['nice', ['-n', String(nice), VITEST, ...argv]];
  const child = spawn(command, commandArgv, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const prefix = `[${name}] `;
  const recap = failureRecap();
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: from }).on('line', (line) => {
      recap.push(line);
      to.write(`${prefix}${line}\n`);
    });
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      // Only this lane was reaped since the last reading: the growth is its tree's CPU.
      const reaped = reapedCpu();
      const cpu = Math.round(reaped - reapedBefore);
      reapedBefore = reaped;
      resolve({
        cpu,
        name,
        code: code ?? (signal ? 128 : 1),
        seconds: Math.round((Date.now() - started) / 1000),
        recap: recap.lines(),
      });
    });
  });
}

/**
 * With BYRE_LANES_REPORT_DIR, each lane also writes vitest's JSON report
 * (every file's and test's time) to <dir>/<lane>.json: where a lane's time
 * goes, to balance the lanes by.
 */
function timingsReport(name) {
  const dir = (process.env['BYRE_LANES_REPORT_DIR'] ?? '').trim();
  if (dir === '') return [];
  return ['--reporter=default', '--reporter=json', `--outputFile.json=${dir}/${name}.json`];
}

/** CPU seconds of this process's reaped children; 0 where /proc is missing. */
function reapedCpu() {
  try {
    return reapedCpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    return 0;
  }
}

/** The machine's busy and total CPU seconds, or null where /proc is missing. */
function machineCpu() {
  try {
    return machineCpuSeconds(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

/**
 * With BYRE_LANES_REPORT_DIR, every 30 s a line of <dir>/cpu.tsv: seconds
 * since the lanes started, how busy the machine was since the last line (%),
 * and the 1-minute load: when the run was short of cores. Returns its stop.
 */
function sampleCpu() {
  const dir = (process.env['BYRE_LANES_REPORT_DIR'] ?? '').trim();
  let last = machineCpu();
  if (dir === '' || last === null) return () => {};
  const started = Date.now();
  const file = `${dir}/cpu.tsv`;
  // The first writer here: the lanes' JSON reports go beside it.
  mkdirSync(dir, { recursive: true });
  appendFileSync(file, 'seconds\tbusy%\tload1\n');
  const timer = setInterval(() => {
    const now = machineCpu();
    if (now === null || last === null) return;
    const span = now.total - last.total;
    const busy = span > 0 ? Math.round((100 * (now.busy - last.busy)) / span) : 0;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    appendFileSync(file, `${Math.round((Date.now() - started) / 1000)}\t${busy}\t${load}\n`);
    last = now;
  }, 30_000);
  timer.unref();
  return () => clearInterval(timer);
}
