#!/usr/bin/env node
// Benchmark: `byre status` with a box running, against the raw engine answering
// the same question (`ps --filter label=byre.project=…` then `inspect` of the
// box it finds), for each engine that answers. Prints medians and the ratio.
// Not a test: no timing is asserted anywhere. Run after `npm run build`:
//   node bench/status.mjs [runs]
//
// NODE_EXTRA_CA_CERTS is removed from the timed commands' environment (it
// costs ~80 ms per node start on these machines and byre's binary is not node).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { benchProject, byre, enginesUp, env, median, run, time } from './lib.mjs';

const runs = Number(process.argv[2] ?? 9);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (const engine of enginesUp()) {
  const { root, opts } = benchProject(engine);
  // A background session: stdin stays open so the box's shell waits.
  const session = spawn(byre, ['develop'], {
    ...opts,
    env: { ...env, ...opts.env },
    stdio: 'pipe',
  });
  session.stdout.resume();
  session.stderr.resume();
  try {
    const projectId = JSON.parse(run(byre, ['status', '--data'], opts)).project_id;
    const filter = ['--filter', `label=byre.project=${projectId}`];
    let id = '';
    for (let i = 0; i < 1200 && id === ''; i++) {
      id =
        run(engine, ['ps', '-q', ...filter])
          .trim()
          .split('\n')[0] ?? '';
      if (id === '') await sleep(250);
    }
    if (id === '') throw new Error(`${engine}: the box never started`);
    const byreMs = [];
    const rawMs = [];
    for (let i = 0; i < runs; i++) {
      byreMs.push(time(() => run(byre, ['status'], opts)));
      rawMs.push(
        time(() => {
          const found = run(engine, ['ps', '-q', ...filter]).trim();
          run(engine, ['inspect', found.split('\n')[0]]);
        }),
      );
    }
    const b = median(byreMs);
    const r = median(rawMs);
    console.log(
      `${engine}: byre status ${b.toFixed(0)} ms, raw ps+inspect ${r.toFixed(0)} ms, ratio ${(b / r).toFixed(2)}x (median of ${runs})`,
    );
  } finally {
    session.kill('SIGKILL');
    const ids = spawnSync(engine, ['ps', '-aq', '--filter', 'label=byre.project'], {
      encoding: 'utf8',
    })
      .stdout.split('\n')
      .filter((l) => l !== '');
    for (const cid of ids) {
      const name = spawnSync(engine, ['inspect', '--format', '{{.Name}}', cid], {
        encoding: 'utf8',
      }).stdout;
      if (name.includes('byretest-bench')) spawnSync(engine, ['rm', '-f', cid]);
    }
    const images = execFileSync(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l.includes('byretest-bench'));
    if (images.length) spawnSync(engine, ['rmi', '-f', ...images]);
    rmSync(root, { recursive: true, force: true });
  }
}
