import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeConfig } from '../../test/support/config.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { useTempDir } from '../../test/support/temp.js';
import type { LayerRef } from '../config/types.js';
import type { BuildSpec } from '../engine/types.js';
import { EngineError } from '../errors.js';
import { renderBaseDockerfile } from '../gen/dockerfile.js';
import { planBuild, type BuildPlan } from '../gen/plan.js';
import { buildProgressFor } from './build-progress.js';
import { ensureImage } from './image-build.js';

type ImageRequest = Parameters<typeof ensureImage>[0];

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
    wiringContextDir: path.join(dir, 'wiring-context'),
    projectDir: project,
    projectId: 'proj-x-123456',
    storeTag: 'ab'.repeat(8),
    tag: 'byre-proj-x-123456-u1-g1',
    base: BASE,
    uid: 1,
    gid: 1,
    noCache: false,
    wiring: 'image',
    progress: buildProgressFor(
      { stderr: { write: (s: string) => err.push(s) } },
      path.join(dir, 'build.log'),
      false,
    ),
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

describe('ensureImage: a base image and the wiring on it (adr/0073)', () => {
  const ready = (): { engine: FakeEngine; req: ImageRequest } => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:from', labels: {} });
    return { engine, req: setup(engine, []) };
  };
  const builds = (engine: FakeEngine): BuildSpec[] =>
    engine.callsTo('build').map(([spec]) => spec as BuildSpec);
  /** The plan with other wiring bytes: what `mcp add` changes. */
  const rewired = (plan: BuildPlan): BuildPlan => ({
    ...plan,
    entries: plan.entries.map((e) =>
      e.path === 'wiring/mcp.json'
        ? { ...e, source: { kind: 'bytes', bytes: '{"mcpServers":{"web":{}}}\n' } }
        : e,
    ),
  });

  // podman turns each `--label` flag into a committed step of its own; the
  // labels travel as one LABEL line at the end of each Dockerfile (adr/0069).
  it('builds the base from the context without wiring/, then the wiring FROM the base id', async () => {
    const { engine, req } = ready();
    const out = await ensureImage(req);
    const [base, box] = builds(engine);
    expect(builds(engine)).toHaveLength(2);
    expect(base?.tag).toBe(`${req.tag}-base`);
    expect(base?.contextDir).toBe(req.contextDir);
    expect(base?.labelsInDockerfile).toBe(true);
    const baseDigest = base?.labels?.['byre.base-context'];
    expect(baseDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(base?.dockerfile ?? '', 'utf8')).toBe(
      `${renderBaseDockerfile(req.plan.dockerfileInput)}LABEL "byre.base-context"="${baseDigest}" "byre.project"="proj-x-123456" "byre.store"="${'ab'.repeat(8)}"\n`,
    );
    expect(existsSync(path.join(req.contextDir, 'wiring'))).toBe(false);
    const baseId = engine.images.get(`${req.tag}-base`)?.id;
    expect(box?.tag).toBe(req.tag);
    expect(box?.contextDir).toBe(req.wiringContextDir);
    const digest = box?.labels?.['byre.context'];
    expect(readFileSync(box?.dockerfile ?? '', 'utf8')).toBe(
      `FROM ${baseId}\nCOPY wiring /etc/byre\nLABEL "byre.context"="${digest}" "byre.project"="proj-x-123456" "byre.store"="${'ab'.repeat(8)}"\n`,
    );
    expect(readdirSync(req.wiringContextDir).sort()).toEqual(['Dockerfile.wiring', 'wiring']);
    expect(out).toEqual({ built: true, digest });
    // The labelled files are not part of a digest: the next develop builds nothing.
    expect(await ensureImage(req)).toMatchObject({ built: false, digest });
    expect(builds(engine)).toHaveLength(2);
  });

  it('a warm launch asks for the FROM image, the base and the box in one engine call; a cold one asks each', async () => {
    const { engine, req } = ready();
    await ensureImage(req);
    const asked = (): unknown[][] =>
      engine.calls
        .filter((c) => c.method === 'imageInfo' || c.method === 'imageInfoAll')
        .map((c) => [c.method, c.args[0]]);
    const all = [BASE, `${req.tag}-base`, req.tag];
    // Cold: the one call finds an image absent (null), so each is asked.
    expect(asked()).toEqual([['imageInfoAll', all], ...all.map((r) => ['imageInfo', r])]);
    engine.calls.length = 0;
    expect(await ensureImage(req)).toMatchObject({ built: false });
    expect(asked()).toEqual([['imageInfoAll', all]]);
  });

  it('a wiring change builds the wiring alone, on the same base id', async () => {
    const { engine, req } = ready();
    await ensureImage(req);
    const baseId = engine.images.get(`${req.tag}-base`)?.id;
    const out = await ensureImage({ ...req, plan: rewired(req.plan) });
    expect(out.built).toBe(true);
    const specs = builds(engine);
    expect(specs.map((s) => s.tag)).toEqual([`${req.tag}-base`, req.tag, req.tag]);
    expect(readFileSync(specs[2]?.dockerfile ?? '', 'utf8')).toContain(`FROM ${baseId}\n`);
    expect(engine.images.get(`${req.tag}-base`)?.id).toBe(baseId);
  });

  it('a change below the wiring builds both; rebuild builds both without the cache', async () => {
    const { engine, req } = ready();
    await ensureImage(req);
    await ensureImage({ ...req, uid: 2 });
    expect(builds(engine).map((s) => s.tag)).toEqual([
      `${req.tag}-base`,
      req.tag,
      `${req.tag}-base`,
      req.tag,
    ]);
    await ensureImage({ ...req, noCache: true });
    expect(
      builds(engine)
        .slice(4)
        .map((s) => [s.tag, s.noCache]),
    ).toEqual([
      [`${req.tag}-base`, true],
      [req.tag, true],
    ]);
  });

  it('a failed base build builds no box, and says so once', async () => {
    const { engine, req } = ready();
    const err: string[] = [];
    const failing = setup(engine, err);
    buildFails(engine, 'make: *** Error 2\n');
    engine.buildOutput = ['Step 2/9 : RUN make\nmake: *** Error 2\n'];
    await expect(ensureImage(failing)).rejects.toMatchObject({ rule: 'build.failed' });
    expect(builds(engine).map((s) => s.tag)).toEqual([`${req.tag}-base`]);
    expect(err.join('').split("the engine's log follows")).toHaveLength(2);
  });
});

// Rootless podman binds the wiring from the store (adr/0075): the box image is
// the base's Dockerfile under the box's tag, and a wiring change builds nothing.
describe('ensureImage for a bound wiring (adr/0075)', () => {
  const ready = (): { engine: FakeEngine; req: ImageRequest } => {
    const engine = new FakeEngine();
    engine.images.set(BASE, { id: 'sha256:from', labels: {} });
    return { engine, req: { ...setup(engine, []), wiring: 'bound' } };
  };
  const builds = (engine: FakeEngine): BuildSpec[] =>
    engine.callsTo('build').map(([spec]) => spec as BuildSpec);

  it('builds the base Dockerfile alone, under the box tag, with no wiring in its context', async () => {
    const { engine, req } = ready();
    const out = await ensureImage(req);
    const [box, ...rest] = builds(engine);
    expect(rest).toEqual([]);
    expect(box?.tag).toBe(req.tag);
    expect(box?.contextDir).toBe(req.contextDir);
    const digest = box?.labels?.['byre.context'];
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(box?.dockerfile ?? '', 'utf8')).toBe(
      `${renderBaseDockerfile(req.plan.dockerfileInput)}LABEL "byre.context"="${digest}" "byre.project"="proj-x-123456" "byre.store"="${'ab'.repeat(8)}"\n`,
    );
    expect(readFileSync(box?.dockerfile ?? '', 'utf8')).not.toContain('COPY wiring');
    expect(existsSync(path.join(req.contextDir, 'wiring'))).toBe(false);
    expect(existsSync(req.wiringContextDir)).toBe(false);
    expect(out).toEqual({ built: true, digest });
  });

  it('a warm launch asks for the FROM image and the box in one engine call', async () => {
    const { engine, req } = ready();
    await ensureImage(req);
    engine.calls.length = 0;
    expect(await ensureImage(req)).toMatchObject({ built: false });
    expect(engine.calls.filter((c) => c.method.startsWith('imageInfo')).map((c) => c.args)).toEqual(
      [[[BASE, req.tag]]],
    );
  });

  it('a wiring change builds nothing; a change below it builds the one image again', async () => {
    const { engine, req } = ready();
    await ensureImage(req);
    const rewired: BuildPlan = {
      ...req.plan,
      entries: req.plan.entries.map((e) =>
        e.path === 'wiring/mcp.json' ? { ...e, source: { kind: 'bytes', bytes: '{}\n' } } : e,
      ),
    };
    expect(await ensureImage({ ...req, plan: rewired })).toMatchObject({ built: false });
    expect(builds(engine)).toHaveLength(1);
    await ensureImage({ ...req, uid: 2 });
    await ensureImage({ ...req, noCache: true });
    expect(builds(engine).map((s) => [s.tag, s.noCache])).toEqual([
      [req.tag, false],
      [req.tag, false],
      [req.tag, true],
    ]);
  });

  it('never takes an image that carries the wiring for one built without it, nor the reverse', async () => {
    const { engine, req } = ready();
    await ensureImage({ ...req, wiring: 'image' });
    await ensureImage(req);
    await ensureImage({ ...req, wiring: 'image' });
    expect(builds(engine).map((s) => s.tag)).toEqual([
      `${req.tag}-base`,
      req.tag,
      req.tag,
      req.tag,
    ]);
  });
});
