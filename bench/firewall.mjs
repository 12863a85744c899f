#!/usr/bin/env node
// Benchmark: time from box start to launch-gate open under byre/firewall, for
// allowlists of 1, 10 and 50 entries, on each engine that answers. The box's
// command runs only once the gate opens, so it prints that moment; the box's
// StartedAt is the start. Entries are the engine gateway on distinct ports, so
// nothing is resolved or contacted outside this machine. Not a test.
// Run after `npm run build`:  node bench/firewall.mjs [runs]

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { benchProject, byre, enginesUp, median, run } from './lib.mjs';

const runs = Number(process.argv[2] ?? 3);

function gateway(engine) {
  if (engine === 'docker') {
    return /inet (\S+)\//.exec(
      execFileSync('ip', ['-4', '-o', 'addr', 'show', 'docker0'], { encoding: 'utf8' }),
    )[1];
  }
  return run('podman', [
    'network',
    'inspect',
    'podman',
    '-f',
    '{{range .Subnets}}{{.Gateway}}{{end}}',
  ]).trim();
}

for (const engine of enginesUp()) {
  const { root, home, opts } = benchProject(engine);
  const gw = gateway(engine);
  const id = JSON.parse(run(byre, ['status', '--data'], opts)).project_id;
  const store = path.join(home, 'projects', id);
  mkdirSync(store, { recursive: true });
  try {
    for (const size of [1, 10, 50]) {
      const egress = Array.from({ length: size }, (_, i) => `"${gw}:${20000 + i}"`).join(', ');
      writeFileSync(
        path.join(store, 'byre.config'),
        `skills = ["firewall"]\negress = [${egress}]\n`,
      );
      // Builds (cached after the first size) and proves the wall once; the probe stays local.
      run(byre, ['develop'], {
        ...opts,
        input: 'true\n',
        env: { ...opts.env, BYRE_DENY_PROBE: `${gw}:19999` },
      });
      const script = path.join(root, 'wall.sh');
      writeFileSync(script, run(byre, ['ejectfirewall'], opts), { mode: 0o755 });
      const image = run(byre, ['dockerrun'], opts).trim().split(' ').pop();
      const samples = [];
      for (let i = 0; i < runs; i++) {
        const name = `byretest-bench-gate-${process.pid}-${size}-${i}`;
        run(engine, [
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
          run(script, [name], { env: { BYRE_DENY_PROBE: `${gw}:19999` } });
          let opened = '';
          for (let t = 0; t < 100 && opened === ''; t++) {
            opened = spawnSync(engine, ['logs', name], { encoding: 'utf8' }).stdout.trim();
            if (opened === '') spawnSync('sleep', ['0.1']);
          }
          const started = run(engine, ['inspect', '-f', '{{.State.StartedAt}}', name]).trim();
          const startNs =
            BigInt(Date.parse(started)) * 1_000_000n +
            BigInt(
              started
                .match(/\.(\d+)/)?.[1]
                .padEnd(9, '0')
                .slice(3, 9) ?? '0',
            ) *
              1n;
          samples.push(Number(BigInt(opened) - startNs) / 1e6);
        } finally {
          spawnSync(engine, ['rm', '-f', name]);
        }
      }
      console.log(
        `${engine}: ${size} allowlist entries: start→gate open ${median(samples).toFixed(0)} ms (median of ${runs})`,
      );
    }
  } finally {
    const images = run(engine, ['images', '--format', '{{.Repository}}:{{.Tag}}'])
      .split('\n')
      .filter((l) => l.includes(id));
    if (images.length) spawnSync(engine, ['rmi', '-f', ...images]);
    rmSync(root, { recursive: true, force: true });
  }
}
