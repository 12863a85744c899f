#!/usr/bin/env node
// Benchmark: warm `byre develop` of a no-agent box running `true`, against the
// raw engine doing the same job (`run --rm <same image> true`), for each
// engine that answers. Prints medians and the ratio. Not a test: no timing is
// asserted anywhere. Run after `npm run build`:  node bench/develop.mjs [runs]
//
// NODE_EXTRA_CA_CERTS is removed from the timed commands' environment (it
// costs ~80 ms per node start on these machines and byre's binary is not node).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const runs = Number(process.argv[2] ?? 7);
const byre = path.resolve('dist/byre');
const env = { ...process.env, BYRE_ALLOW_ROOT: '1' };
delete env.NODE_EXTRA_CA_CERTS;

function answers(engine) {
  try {
    execFileSync(engine, ['info'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

function time(file, args, options) {
  const start = process.hrtime.bigint();
  const r = spawnSync(file, args, { ...options, env: { ...env, ...options.env } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const engine of ['docker', 'podman'].filter(answers)) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byretest-bench-')));
  const project = path.join(root, 'proj');
  const home = path.join(root, 'home');
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(path.join(home, 'default.config'), `engine = "${engine}"\n`);
  const opts = { cwd: project, input: 'true\n', env: { BYRE_HOME: home } };
  try {
    time(byre, ['develop'], opts); // cold: builds the image
    const image = execFileSync(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
      encoding: 'utf8',
    })
      .split('\n')
      .find((l) => l.includes('bench'));
    const byreMs = [];
    const rawMs = [];
    for (let i = 0; i < runs; i++) {
      byreMs.push(time(byre, ['develop'], opts));
      rawMs.push(time(engine, ['run', '--rm', '-i', image, 'true'], { input: '', env: {} }));
    }
    const b = median(byreMs);
    const r = median(rawMs);
    console.log(
      `${engine}: byre develop ${b.toFixed(0)} ms, raw run --rm ${r.toFixed(0)} ms, ratio ${(b / r).toFixed(2)}x (median of ${runs})`,
    );
  } finally {
    const ids = execFileSync(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l.includes('byretest-bench'));
    if (ids.length) spawnSync(engine, ['rmi', '-f', ...ids]);
    rmSync(root, { recursive: true, force: true });
  }
}
