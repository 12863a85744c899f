import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { useTempDir } from '../../test/support/temp.js';
import type { LayerRef } from '../config/types.js';
import type { BuildSpec } from '../engine/types.js';
import { EngineError } from '../errors.js';
import { planBuild } from '../gen/plan.js';
import { buildProgress } from './build-progress.js';
import { ensureImage, type ImageRequest } from './image-build.js';

const tmp = useTempDir('image');
const BASE = 'localhost:1/byre-nope:1';

function setup(engine: FakeEngine, err: string[]): ImageRequest {
  const dir = tmp.path;
  const project = path.join(dir, 'proj');
  mkdirSync(project, { recursive: true });
  const configFile = path.join(dir, 'byre.config');
  writeFileSync(configFile, `agent = "none"\nbase = "${BASE}"\n`);
  const from: LayerRef = { kind: 'project', name: 'project', path: configFile };
  return {
    engine,
    plan: planBuild(fakeConfig(), [], project),
    contextDir: path.join(dir, 'context'),
    projectDir: project,
    projectId: 'proj-x-123456',
    storeTag: 'ab'.repeat(8),
    tag: 'byre-proj-x-123456-u1-g1',
    base: BASE,
    uid: 1,
    gid: 1,
    noCache: false,
    progress: () =>
      buildProgress({
        stderr: { write: (s: string) => err.push(s) },
        tty: false,
        verbose: false,
        logFile: null,
      }),
    baseFrom: { from, projectConfig: configFile },
  };
}

function buildFails(engine: FakeEngine, stderr: string, rule?: string): void {
  engine.failNext(
    'build',
    new EngineError('docker build failed (exit 1)', {
      engine: 'docker',
      argv: ['build'],
      exitCode: 1,
      stderr,
      ...(rule === undefined ? {} : { rule }),
    }),
  );
}

describe('ensureImage when the build fails', () => {
  it('locates a base image that could not be pulled at the key that chose it', async () => {
    const engine = new FakeEngine();
    const err: string[] = [];
    const req = setup(engine, err);
    buildFails(
      engine,
      'Step 1/9 : FROM localhost:1/byre-nope:1\nError response from daemon: Get "https://localhost:1/v2/": connection refused\n',
    );
    const failure = ensureImage(req);
    await expect(failure).rejects.toMatchObject({
      rule: 'build.base-unavailable',
      message: expect.stringContaining(
        `the base image ${BASE} is not on docker and could not be pulled: Error response from daemon`,
      ),
      location: { file: req.baseFrom?.projectConfig, line: 2, column: 1, key: 'base' },
      details: [`base = "${BASE}" comes from this project's config`],
      remedy: expect.stringContaining(`base = "<image>" in ${req.baseFrom?.projectConfig}`),
    });
    // The located message replaces the log dump.
    expect(err.join('')).not.toContain('log follows');
  });

  it('names a template as the layer, and the project config as the place to override it', async () => {
    const engine = new FakeEngine();
    const req = setup(engine, []);
    const from: LayerRef = { kind: 'template', name: 'byre/go', path: null };
    buildFails(engine, 'Error: pull access denied\n');
    await expect(
      ensureImage({ ...req, baseFrom: { from, projectConfig: '/s/byre.config' } }),
    ).rejects.toMatchObject({
      rule: 'build.base-unavailable',
      location: undefined,
      details: [`base = "${BASE}" comes from template byre/go`],
      remedy: expect.stringContaining('base = "<image>" in /s/byre.config'),
    });
  });

  it('prints the whole log for any other failure, and says so', async () => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:base', labels: {} });
    const err: string[] = [];
    const req = setup(engine, err);
    buildFails(engine, 'make: *** Error 2\n');
    engine.buildOutput = ['Step 2/9 : RUN make\nmake: *** Error 2\n'];
    await expect(ensureImage(req)).rejects.toMatchObject({ rule: 'build.failed' });
    expect(err.join('')).toContain("the image build failed; the engine's log follows");
  });

  it('blames the base even when a registry’s "connection refused" reads like a dead daemon', async () => {
    const engine = new FakeEngine();
    const req = setup(engine, []);
    buildFails(
      engine,
      'Get "http://localhost:1/v2/": connect: connection refused\n',
      'engine.unreachable',
    );
    await expect(ensureImage(req)).rejects.toMatchObject({
      rule: 'build.base-unavailable',
      message: expect.stringContaining('connection refused'),
    });
  });

  it('passes an engine that stopped answering through, never blaming the base', async () => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:base', labels: {} });
    const req = setup(engine, []);
    buildFails(engine, 'Cannot connect to the Docker daemon', 'engine.unreachable');
    await expect(ensureImage(req)).rejects.toMatchObject({ rule: 'engine.unreachable' });
  });

  it('without progress, rethrows the engine’s own error', async () => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:base', labels: {} });
    const req = setup(engine, []);
    buildFails(engine, 'boom\n');
    const bare: ImageRequest = { ...req };
    delete bare.progress;
    await expect(ensureImage(bare)).rejects.toBeInstanceOf(EngineError);
  });
});

describe('ensureImage labels', () => {
  // podman turns each `--label` flag into a committed step of its own; the
  // labels travel as one LABEL line at the end of the Dockerfile (adr/0069).
  it('builds a Dockerfile that is the plan`s plus one LABEL line, and passes no label flags', async () => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:base', labels: {} });
    const req = setup(engine, []);
    await ensureImage(req);
    const [spec] = engine.callsTo('build')[0] as [BuildSpec];
    expect(spec.labelsInDockerfile).toBe(true);
    expect(spec.dockerfile).toBe(path.join(req.contextDir, 'Dockerfile.labelled'));
    const digest = spec.labels?.['byre.context'];
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(spec.dockerfile ?? '', 'utf8')).toBe(
      `${req.plan.dockerfile}LABEL "byre.context"="${digest}" "byre.project"="proj-x-123456" "byre.store"="${'ab'.repeat(8)}"\n`,
    );
    // The labelled file is not part of the digest: the next develop skips.
    expect(await ensureImage(req)).toMatchObject({ built: false, digest });
  });
});
