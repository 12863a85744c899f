// The engine contract (test/support/engine-contract.ts) against the real
// engines: docker and podman as root, and rootless podman as the test user —
// the same cases the unit tier runs against the fake.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '../../src/engine/runner.js';
import type { EngineFacts } from '../../src/engine/types.js';
import { engineContract } from '../support/engine-contract.js';
import { flavorEnginePath, flavorsUnderTest } from './engines.js';

const IMAGE = 'debian:bookworm-slim';

// Docker as the test user talks to the same daemon as root: nothing new to prove.
const flavors = flavorsUnderTest().filter((f) => f.user === null || f.engine === 'podman');

for (const flavor of flavors) {
  engineContract(flavor.label, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'byretest-contract-'));
    const facts: EngineFacts = {
      name: flavor.engine,
      path: flavorEnginePath(flavor, dir),
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
