// Run by test/engine/docker-api.test.ts under bun, as root or as the test
// user: the same read-only questions asked through docker's API socket and
// through the docker CLI, printed as JSON for the test to compare. The API
// engine's CLI is `false`, so an answer that fell back to the CLI fails
// loudly instead of passing as an API answer.

import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { findApiRoute } from '../../src/engine/docker-api.js';
import type { Engine } from '../../src/engine/engine.js';
import { resolveHostTool } from '../../src/engine/host-tools.js';
import { createEngine } from '../../src/engine/runner.js';
import type { EngineFacts } from '../../src/engine/types.js';

const [project, ...ids] = process.argv.slice(2);
if (project === undefined) throw new Error('usage: docker-api-probe <project> <id>…');
const tool = resolveHostTool('docker', { declinedRoots: [], env: process.env });
if (tool.kind !== 'found') throw new Error('no docker');
const facts: EngineFacts = {
  name: 'docker',
  path: tool.path,
  rootless: false,
  keepId: false,
  version: '',
  warnings: [],
};
const KEYS = ['byre.workdir', 'byre.client', 'byre.launch', 'byre.uid'];
const labels = { 'byre.project': project };

async function ask(engine: Engine): Promise<unknown> {
  return {
    running: await engine.psLabels({ labels, all: false }, KEYS),
    all: await engine.psLabels({ labels, all: true }, KEYS),
    has: await engine.psLabels({ labels, hasLabels: ['byre.test', 'byre.uid'], all: true }, KEYS),
    ids: await engine.ps({ labels, all: true }),
    inspect: await engine.inspectContainers([...ids, 'byre-no-such-container']),
  };
}

// A copy of `false` named docker: native and so named, the route holds.
const dir = mkdtempSync(path.join(tmpdir(), 'byre-api-probe-'));
const falseCli = path.join(dir, 'docker');
try {
  copyFileSync(
    ['/usr/bin/false', '/bin/false'].find((p) => existsSync(p)) ?? '/bin/false',
    falseCli,
  );
  chmodSync(falseCli, 0o755);
  const out = {
    route: findApiRoute(facts.path, process.env),
    falseRoute: findApiRoute(falseCli, process.env),
    api: await ask(createEngine({ ...facts, path: falseCli }, { env: process.env })),
    cli: await ask(createEngine(facts, { env: process.env, api: false })),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
