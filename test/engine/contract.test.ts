// The engine contract (test/support/engine-contract.ts) against the real
// engines: docker and podman as root, and rootless podman as the test user —
// the same cases the unit tier runs against the fake.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '../../src/engine/runner.js';
import type { EngineFacts } from '../../src/engine/types.js';
import { engineContract } from '../support/engine-contract.js';
import { flavorsUnderTest, type Flavor } from './engines.js';

const IMAGE = 'debian:bookworm-slim';

/** The engine CLI as the flavor runs it: itself for root, a runuser wrapper for the test user. */
function enginePath(flavor: Flavor, dir: string): string {
  const own = execFileSync('sh', ['-c', `command -v ${flavor.engine}`], {
    encoding: 'utf8',
  }).trim();
  if (flavor.user === null) return own;
  const home = execFileSync('getent', ['passwd', flavor.user], { encoding: 'utf8' }).split(':')[5];
  const wrapper = path.join(dir, flavor.engine);
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec runuser -u ${flavor.user} -- env HOME=${home ?? '/'} ${own} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

// Docker as the test user talks to the same daemon as root: nothing new to prove.
const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');

for (const flavor of flavors) {
  engineContract(flavor.label, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'byretest-contract-'));
    const facts: EngineFacts = {
      name: flavor.engine,
      path: enginePath(flavor, dir),
      rootless: flavor.user !== null && flavor.engine === 'podman',
      keepId: false,
      version: '',
      warnings: [],
    };
    return {
      engine: createEngine(facts, { env: process.env }),
      image: IMAGE,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
}
