#!/usr/bin/env node
// Benchmark: byre deliver and grab of one 100 MiB file and of a 1,000-file
// tree, against raw `exec -i <box> sh -c 'cat > f'` streaming and the
// engine's own `cp`, for each engine that answers. Prints medians and ratios.
// Not a test: no timing is asserted anywhere. Run after `npm run build`:
//   node bench/transfer.mjs [runs]
// The box is a plain debian container carrying byre's labels and ids, so the
// numbers measure transport, not session start-up.
//
// NODE_EXTRA_CA_CERTS is removed from the timed commands' environment (it
// costs ~80 ms per node start on these machines and byre's binary is not node).

import {
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { byre, enginesUp, median, run, time } from './lib.mjs';

const runs = Number(process.argv[2] ?? 7);
const IMAGE = 'debian:bookworm-slim';

/**
 * Median ms of each case over `runs` rounds. Cases are interleaved (one run
 * of each per round) so the machine's drift hits every case alike; `reset`
 * (untimed) runs before each timed call.
 */
function compare(cases, reset) {
  const xs = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of Object.entries(cases)) {
      reset();
      xs[k].push(time(fn));
    }
  }
  return Object.fromEntries(Object.entries(xs).map(([k, v]) => [k, median(v)]));
}

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byretest-bench-')));
try {
  const big = path.join(root, 'big.bin');
  writeFileSync(big, randomBytes(100 * 1024 * 1024));
  const tree = path.join(root, 'tree');
  for (let d = 0; d < 10; d++) {
    mkdirSync(path.join(tree, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(path.join(tree, `d${d}`, `f${f}.txt`), randomBytes(4096));
  }
  const out = path.join(root, 'out');
  // A private, empty store: nothing the user's ~/.byre holds changes the numbers.
  const store = { env: { BYRE_HOME: path.join(root, 'home') } };

  for (const engine of enginesUp()) {
    const id = run(engine, [
      'run',
      '-d',
      '--label',
      'byre.test=1',
      '--label',
      'byre.project=byretest-bench-000000',
      '--label',
      'byre.workdir=byretest-bench-000000',
      '--label',
      'byre.uid=0',
      '--label',
      'byre.gid=0',
      '-e',
      'BYRE_UID=0',
      '-e',
      'BYRE_GID=0',
      IMAGE,
      'sleep',
      '3600',
    ]).trim();
    try {
      run(engine, ['exec', id, 'sh', '-c', 'mkdir -p /inbox /workspace']);
      const clean = () =>
        run(engine, ['exec', id, 'sh', '-c', 'rm -rf /inbox/* /inbox/.b* /tmp/rx /tmp/ry']);
      const cleanOut = () => {
        rmSync(out, { recursive: true, force: true });
        mkdirSync(out);
      };
      const box = id.slice(0, 12);
      const catIn = () => {
        const fd = openSync(big, 'r');
        try {
          run(engine, ['exec', '-i', id, 'sh', '-c', 'cat > /tmp/rx'], {
            stdio: [fd, 'pipe', 'pipe'],
          });
        } finally {
          closeSync(fd);
        }
      };
      const ms = {
        ...compare(
          {
            rawIn: catIn,
            cpIn: () => run(engine, ['cp', big, `${id}:/tmp/ry`]),
            byreIn: () => run(byre, ['deliver', '--box', box, big], store),
            byreInId: () => run(byre, ['deliver', '--box', id, big], store),
          },
          clean,
        ),
        ...compare(
          {
            cpTreeIn: () => run(engine, ['cp', tree, `${id}:/tmp/ry`]),
            byreTreeIn: () => run(byre, ['deliver', '--box', box, tree], store),
          },
          clean,
        ),
      };

      run(engine, ['cp', big, `${id}:/tmp/big.bin`]);
      run(engine, ['cp', tree, `${id}:/tmp/tree`]);
      Object.assign(
        ms,
        compare(
          {
            rawOut: () => {
              const fd = openSync(path.join(out, 'raw.bin'), 'w');
              try {
                run(engine, ['exec', id, 'cat', '/tmp/big.bin'], { stdio: ['ignore', fd, 'pipe'] });
              } finally {
                closeSync(fd);
              }
            },
            cpOut: () => run(engine, ['cp', `${id}:/tmp/big.bin`, out]),
            byreOut: () => run(byre, ['grab', '--box', box, '/tmp/big.bin', out], store),
          },
          cleanOut,
        ),
        compare(
          {
            cpTreeOut: () => run(engine, ['cp', `${id}:/tmp/tree`, out]),
            byreTreeOut: () => run(byre, ['grab', '--box', box, '/tmp/tree', out], store),
          },
          cleanOut,
        ),
      );

      const mbps = (t) => `${(100 / 1.048576 / (t / 1000)).toFixed(0)} MB/s`;
      const f = (t) => `${t.toFixed(0)} ms`;
      console.log(`\n${engine} (median of ${runs})`);
      console.log(
        `  100 MiB in:   byre ${f(ms.byreIn)} (${mbps(ms.byreIn)})  raw exec-cat ${f(ms.rawIn)} (${mbps(ms.rawIn)})  cp ${f(ms.cpIn)}`,
      );
      console.log(
        `                throughput vs raw exec-cat: ${(ms.rawIn / ms.byreIn).toFixed(2)}x (target >= 0.9x)`,
      );
      console.log(
        `                with --box <full id>: byre ${f(ms.byreInId)} → ${(ms.rawIn / ms.byreInId).toFixed(2)}x`,
      );
      console.log(
        `  1,000 files in:  byre ${f(ms.byreTreeIn)}  cp ${f(ms.cpTreeIn)}  → ${(ms.byreTreeIn / ms.cpTreeIn).toFixed(2)}x cp's time (target <= 2x)`,
      );
      console.log(
        `  100 MiB out:  byre ${f(ms.byreOut)} (${mbps(ms.byreOut)})  raw exec-cat ${f(ms.rawOut)} (${mbps(ms.rawOut)})  cp ${f(ms.cpOut)}`,
      );
      console.log(
        `                throughput vs raw exec-cat: ${(ms.rawOut / ms.byreOut).toFixed(2)}x (target >= 0.9x)`,
      );
      console.log(
        `  1,000 files out: byre ${f(ms.byreTreeOut)}  cp ${f(ms.cpTreeOut)}  → ${(ms.byreTreeOut / ms.cpTreeOut).toFixed(2)}x cp's time (target <= 2x)`,
      );
    } finally {
      run(engine, ['rm', '-f', id]);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
