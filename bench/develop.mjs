#!/usr/bin/env node
// Benchmark: warm `byre develop` of a no-agent box running `true`, against the
// raw engine doing the same job (`run --rm <same image> true`), for each
// engine that answers. Prints medians and the ratio. Not a test: no timing is
// asserted anywhere. Run after `npm run build`:  node bench/develop.mjs [runs]
// Timed commands run without NODE_EXTRA_CA_CERTS (see bench/lib.mjs).

import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { benchProject, byre, enginesUp, median, run, time } from './lib.mjs';

const runs = Number(process.argv[2] ?? 7);

const images = (engine) =>
  execFileSync(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
    encoding: 'utf8',
  }).split('\n');

for (const engine of enginesUp()) {
  const bench = benchProject(engine);
  const { root } = bench;
  const opts = { ...bench.opts, input: 'true\n' };
  try {
    run(byre, ['develop'], opts); // cold: builds the image
    const image = images(engine).find((l) => l.includes('byretest-bench'));
    const byreMs = [];
    const rawMs = [];
    for (let i = 0; i < runs; i++) {
      byreMs.push(time(() => run(byre, ['develop'], opts)));
      rawMs.push(time(() => run(engine, ['run', '--rm', '-i', image, 'true'], { input: '' })));
    }
    const b = median(byreMs);
    const r = median(rawMs);
    console.log(
      `${engine}: byre develop ${b.toFixed(0)} ms, raw run --rm ${r.toFixed(0)} ms, ratio ${(b / r).toFixed(2)}x (median of ${runs})`,
    );
  } finally {
    const ours = images(engine).filter((l) => l.includes('byretest-bench'));
    if (ours.length) spawnSync(engine, ['rmi', '-f', ...ours]);
    rmSync(root, { recursive: true, force: true });
  }
}
