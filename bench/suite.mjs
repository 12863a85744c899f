// The benchmark worker, started by bench/run.mjs under the engine lock: for
// each engine flavour that answers, set up one project per byre binary, run
// the cases, tear down, and write the results as JSON after every flavour.
// The runner sweeps whatever this process leaves when it fails or is killed.

import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import * as cases from './cases.mjs';
import { benchProject, engineVersion, flavoursUp, ownedDir, start, sweep, tryRun } from './lib.mjs';

const config = JSON.parse(process.env.BYRE_BENCH_CONFIG ?? '{}');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const wants = (name) => config.only.length === 0 || config.only.includes(name);

/** The shared inputs, readable by every flavour's user: a big file, a 1-byte file, a tree. */
function makeData(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const big = path.join(dir, 'big.bin');
  const chunk = randomBytes(16 * 1024 * 1024);
  const fd = openSync(big, 'w', 0o644);
  try {
    for (let left = config.bigBytes; left > 0; left -= chunk.length) {
      writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    }
  } finally {
    closeSync(fd);
  }
  const tiny = path.join(dir, 'tiny.bin');
  writeFileSync(tiny, 'x', { mode: 0o644 });
  const tree = path.join(dir, 'tree');
  for (let d = 0; d < 10; d++) {
    mkdirSync(path.join(tree, `d${d}`), { recursive: true, mode: 0o755 });
    for (let f = 0; f < config.files / 10; f++) {
      writeFileSync(path.join(tree, `d${d}`, `f${f}.txt`), randomBytes(4096), { mode: 0o644 });
    }
  }
  chmodSync(dir, 0o755);
  return { big, tiny, tree };
}

/** One background `byre develop` per side; resolves to { boxes, end() } once each box answers an exec. */
async function startSessions(ctx) {
  const children = [];
  const end = async () => {
    for (const c of children) c.stdin.end();
    const deadline = Date.now() + 60_000;
    while (
      children.some((c) => c.exitCode === null && c.signalCode === null) &&
      Date.now() < deadline
    ) {
      await sleep(100);
    }
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  };
  try {
    const boxes = {};
    for (const { side, path: bin } of ctx.bins) {
      const p = ctx.projects[side];
      children.push(
        start(ctx.flavour, bin, ['develop'], { cwd: p.dir, env: { BYRE_HOME: p.home } }),
      );
      const filter = ['--filter', `label=byre.project=${p.id}`];
      for (let i = 0; i < 1200 && boxes[side] === undefined; i++) {
        const id = tryRun(ctx.flavour, ctx.flavour.engine, ['ps', '-q', ...filter]).split('\n')[0];
        const answers =
          id !== '' &&
          tryRun(ctx.flavour, ctx.flavour.engine, ['exec', id, 'echo', 'up']).trim() === 'up';
        if (answers) boxes[side] = id;
        else await sleep(250);
      }
      if (boxes[side] === undefined) throw new Error(`the ${side} session's box never answered`);
    }
    return { boxes, end };
  } catch (error) {
    await end();
    throw error;
  }
}

async function benchFlavour(flavour, data) {
  const log = (text) => process.stderr.write(`bench [${flavour.label}] ${text}\n`);
  const root = ownedDir(flavour, `/tmp/${config.tag}-${flavour.key}`);
  const result = {
    key: flavour.key,
    label: flavour.label,
    version: engineVersion(flavour),
    rows: [],
    absolute: [],
    notes: [],
    failed: false,
  };
  const ctx = {
    flavour,
    tag: config.tag,
    root,
    data,
    runs: config.runs,
    bigBytes: config.bigBytes,
    files: config.files,
    bins: config.bins,
    projects: {},
    log,
  };
  const attempt = async (name, fn) => {
    if (!wants(name)) return;
    log(name);
    try {
      await fn();
    } catch (error) {
      result.failed = true;
      result.notes.push(`${name} failed: ${String(error.message ?? error).split('\n')[0]}`);
      log(`${name} FAILED: ${error.stack ?? error}`);
    }
  };
  const needsImage = [
    'startup',
    'develop',
    'status',
    'transfer',
    'firewall',
    'credentials',
    'rebuild',
  ].some(wants);
  try {
    for (const { side } of config.bins) {
      const p = benchProject(flavour, root, side);
      ctx.projects[side] = p;
      p.id = JSON.parse(cases.byre(ctx, side, ['status', '--data'])).project_id;
      // The config case alone needs a project directory, not an image.
      if (!needsImage) continue;
      log(`${side}: cold develop (builds the image)`);
      cases.byre(ctx, side, ['develop'], { input: 'true\n' });
    }
    if (needsImage) {
      ctx.image = cases.byre(ctx, config.bins.at(-1).side, ['dockerrun']).trim().split(' ').pop();
    }
    await attempt('startup', () => result.rows.push(...cases.startup(ctx)));
    await attempt('config', () => result.rows.push(...cases.config(ctx)));
    await attempt('develop', () => result.rows.unshift(...cases.develop(ctx)));
    await attempt('credentials', () => result.rows.push(...cases.credentials(ctx)));
    await attempt('edge', async () => result.rows.push(...(await cases.edge(ctx))));
    await attempt('rebuild', () => result.rows.push(...cases.rebuild(ctx)));
    if (wants('status') || wants('transfer')) {
      log('starting the background sessions');
      const sessions = await startSessions(ctx);
      try {
        ctx.boxes = sessions.boxes;
        await attempt('status', () => result.rows.push(...cases.status(ctx)));
        await attempt('transfer', () => result.rows.push(...cases.transfer(ctx)));
      } finally {
        await sessions.end();
      }
    }
    // Walled beside open develop on every flavour; the ejected gate on the root ones.
    await attempt('firewall', () => {
      result.rows.push(...cases.walled(ctx));
      if (flavour.user === null) {
        result.absolute.push(...cases.firewall(ctx, config.firewallSizes));
      } else {
        result.notes.push(
          'box start → gate open (ejected) is measured for the root flavours only.',
        );
      }
    });
  } catch (error) {
    result.failed = true;
    result.notes.push(`setup failed: ${String(error.message ?? error).split('\n')[0]}`);
    log(`setup FAILED: ${error.stack ?? error}`);
  } finally {
    const left = sweep(flavour, config.tag);
    const n = left.containers.length + left.images.length + left.volumes.length;
    if (n > 0) {
      result.failed = true;
      result.notes.push(`left behind after the sweep: ${JSON.stringify(left)}`);
    }
    rmSync(root, { recursive: true, force: true });
  }
  return result;
}

const data = makeData(`/tmp/${config.tag}-data`);
const results = [];
for (const flavour of flavoursUp(config.user)) {
  if (!config.flavours.includes(flavour.key)) continue;
  results.push(await benchFlavour(flavour, data));
  writeFileSync(config.resultsPath, JSON.stringify(results, null, 2));
}
writeFileSync(config.resultsPath, JSON.stringify(results, null, 2));
rmSync(`/tmp/${config.tag}-data`, { recursive: true, force: true });
process.exitCode = results.some((r) => r.failed) ? 1 : 0;
