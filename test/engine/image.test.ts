// Engine tier for the generator: the Dockerfile byre generates for a minimal
// config builds on the local debian:bookworm with docker and with podman
// (podman with --format docker), and the image it makes keeps the chassis
// promises: dev at the baked ids, /inbox dev-owned, HEALTHCHECK NONE, the
// launcher as ENTRYPOINT.

import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeLayers } from '../../src/config/merge.js';
import { coreLayer } from '../../src/config/core-layer.js';
import { detectEngine } from '../../src/engine/detect.js';
import type { Engine } from '../../src/engine/engine.js';
import { createEngine } from '../../src/engine/runner.js';
import { runEngineCommand } from '../../src/engine/spawn.js';
import { planBuild } from '../../src/gen/plan.js';
import { stageBuildContext } from '../../src/session/stage.js';
import { rootEnginesUnderTest } from './engines.js';

const env = { ...process.env, BYRE_ALLOW_ROOT: '1' };
const engines = rootEnginesUnderTest();
const UID = 1234;
const GID = 2345;

describe.skipIf(engines.length === 0).each(engines)('generated image on %s', (name) => {
  let engine: Engine;
  let root: string;
  const tag = `byretest-image-${name}-${randomBytes(4).toString('hex')}`;

  const raw = async (args: string[]): Promise<string> => {
    const r = await runEngineCommand(engine.facts.path, args, { env, timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    engine = createEngine(await detectEngine(name, [], env), { env });
    root = mkdtempSync(path.join(tmpdir(), 'byretest-image-'));
    const project = path.join(root, 'proj');
    const context = path.join(root, 'context');
    mkdirSync(project);
    const config = mergeLayers([coreLayer()]);
    const plan = planBuild(config, [], project);
    await stageBuildContext(context, plan, project);
    await engine.build({
      tag,
      contextDir: context,
      noCache: false,
      uid: UID,
      gid: GID,
      labels: { 'byre.test': '1' },
    });
  });

  afterAll(async () => {
    await engine?.removeImage(tag).catch(() => false);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('runs the launcher as dev at the baked ids, with a dev-owned /inbox', async () => {
    const out = await raw([
      'run',
      '--rm',
      '--label',
      'byre.test=1',
      tag,
      'sh',
      '-c',
      'id -un; id -u; id -g; stat -c "%u:%g %a" /inbox; stat -c "%u:%g" /; echo "$HOME"',
    ]);
    expect(out.split('\n')).toEqual([
      'dev',
      String(UID),
      String(GID),
      `${UID}:${GID} 755`,
      '0:0',
      '/home/dev',
    ]);
  });

  it('has no healthcheck and the launcher as entrypoint', async () => {
    const health = await raw(['image', 'inspect', '-f', '{{json .Config.Healthcheck}}', tag]);
    expect(JSON.parse(health)).toMatchObject({ Test: ['NONE'] });
    const entrypoint = await raw(['image', 'inspect', '-f', '{{json .Config.Entrypoint}}', tag]);
    expect(JSON.parse(entrypoint)).toEqual(['/usr/local/bin/byre-launch']);
    expect(await raw(['image', 'inspect', '-f', '{{.Config.User}}', tag])).toBe('dev');
  });

  it('with no agent and no command, the launcher execs a login shell', async () => {
    const out = await raw([
      'run',
      '--rm',
      '--pull=never',
      '-i',
      '--label',
      'byre.test=1',
      tag,
    ]).catch((e: Error) => e.message);
    expect(out).toBe('');
  });
});
