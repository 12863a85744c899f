// Engine tier for src/engine: the real docker and podman adapters against the
// real engines that answer here, from detection through volumes, labelled
// containers and builds. Every object a test makes carries `byre.test=1`, a
// unique name and a per-test `byre.test.run` label; afterEach removes it all
// and asserts that nothing was left behind. Only the local debian:bookworm is
// used; nothing is ever pulled.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EngineError } from '../../src/errors.js';
import { helperUsernsArgs } from '../../src/engine/argv.js';
import { detectEngine } from '../../src/engine/detect.js';
import { checkHostUser } from '../../src/engine/host-user.js';
import type { Engine } from '../../src/engine/engine.js';
import { createEngine } from '../../src/engine/runner.js';
import { runEngineCommand } from '../../src/engine/spawn.js';
import type { EngineFacts } from '../../src/engine/types.js';
import { rootEnginesUnderTest } from './engines.js';

const BASE = 'debian:bookworm';
const env = { ...process.env, BYRE_ALLOW_ROOT: '1' };
const engines = rootEnginesUnderTest();

function hex(n: number): string {
  return randomBytes(n).toString('hex');
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

if (engines.length === 0) {
  describe.skip('src/engine adapters (no engine answers)', () => {
    it('needs docker or podman', () => {});
  });
}

describe.each(engines)('src/engine adapters on %s', (name) => {
  let facts: EngineFacts;
  let engine: Engine;
  /** Per-test: a unique run label, and what the test made by name. */
  let run: string;
  let made: { containers: string[]; volumes: string[]; images: string[]; dirs: string[] };

  const raw = async (args: string[]): Promise<string> =>
    (await runEngineCommand(facts.path, args, { env })).stdout;
  const testLabels = (): Record<string, string> => ({ 'byre.test': '1', 'byre.test.run': run });

  /** Everything still carrying this test's run label, or one of its names. */
  const leftovers = async (): Promise<string[]> => {
    const filter = ['--filter', `label=byre.test.run=${run}`];
    const containers = lines(await raw(['ps', '-aq', ...filter]));
    const images = lines(await raw(['images', '-aq', ...filter]));
    const volumes = lines(await raw(['volume', 'ls', '-q', ...filter]));
    for (const img of made.images) if (await engine.imageExists(img)) images.push(img);
    for (const v of made.volumes) if (await engine.volumeExists(v)) volumes.push(v);
    return [
      ...containers.map((c) => `container ${c}`),
      ...images.map((i) => `image ${i}`),
      ...volumes.map((v) => `volume ${v}`),
    ];
  };

  beforeAll(async () => {
    facts = await detectEngine(name, [], env);
    engine = createEngine(facts, { env });
  });

  afterEach(async () => {
    try {
      const filter = ['--filter', `label=byre.test.run=${run}`];
      const containers = [...made.containers, ...lines(await raw(['ps', '-aq', ...filter]))];
      for (const c of containers) await engine.remove(c);
      // A failed legacy docker build leaves its step container and parent layers behind.
      const images = [...made.images, ...lines(await raw(['images', '-aq', ...filter]))];
      for (const i of images) await runEngineCommand(facts.path, ['image', 'rm', '-f', i], { env });
      for (const v of made.volumes) await engine.volumeRemove(v);
      expect(await leftovers()).toEqual([]);
    } finally {
      for (const d of made.dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  const fresh = (): void => {
    run = hex(6);
    made = { containers: [], volumes: [], images: [], dirs: [] };
  };

  it('detection pins an absolute path and a consistent identity mode', async () => {
    fresh();
    expect(facts.name).toBe(name);
    expect(path.isAbsolute(facts.path)).toBe(true);
    const uid = process.getuid?.() ?? -1;
    // --version is asked only where identity depends on it (a podman that is
    // or may be rootless, for keep-id), or when the caller asks (doctor).
    const versionAsked = name === 'podman' && uid !== 0;
    expect(facts.version).toMatch(versionAsked ? /^\d+\.\d+\.\d+$/ : /^$/);
    const asked = await detectEngine(name, [], env, { version: true });
    expect(asked.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect({ ...asked, version: facts.version }).toEqual(facts);
    expect(facts.rootless).toBe(name === 'podman' && uid !== 0);
    expect(facts.keepId).toBe(name === 'podman' && facts.rootless);
    const host = checkHostUser(uid, process.getgid?.() ?? -1, env);
    expect(host.kind).toBe(uid === 0 ? 'warn' : 'ok');
  });

  it('volume lifecycle: create, exists, list, remove', async () => {
    fresh();
    const vol = `byre-test-vol-${run}`;
    made.volumes.push(vol);
    expect(await engine.volumeExists(vol)).toBe(false);
    await engine.volumeCreate(vol, testLabels());
    expect(await engine.volumeExists(vol)).toBe(true);
    expect(await engine.volumeList({ labels: { 'byre.test.run': run } })).toEqual([vol]);
    expect(await engine.volumeList({ name: vol })).toContain(vol);
    expect(await engine.volumeRemove(vol)).toBe(true);
    expect(await engine.volumeExists(vol)).toBe(false);
    expect(await engine.volumeRemove(vol)).toBe(false);
  });

  it('finds a running container by label and reads it back', async () => {
    fresh();
    const box = `byre-test-box-${run}`;
    made.containers.push(box);
    const project = `byretest-${run}`;
    const { stdout } = await engine.run([
      'run',
      '-d',
      '--pull=never',
      '--name',
      box,
      ...helperUsernsArgs(facts.keepId),
      '-e',
      'BYRE_PROBE=a=b',
      '--label',
      'byre.test=1',
      '--label',
      `byre.test.run=${run}`,
      '--label',
      `byre.project=${project}`,
      BASE,
      'sleep',
      '60',
    ]);
    const id = lines(stdout).pop() ?? '';
    expect(id).toMatch(/^[0-9a-f]{64}$/);

    expect(await engine.ps({ labels: { 'byre.project': project }, all: false })).toEqual([id]);
    expect(
      await engine.ps({ labels: { 'byre.project': project, 'byre.test': '1' }, all: true }),
    ).toEqual([id]);
    expect(await engine.ps({ labels: { 'byre.project': `${project}-other` }, all: true })).toEqual(
      [],
    );

    expect(await engine.inspectLabels(id)).toMatchObject({
      'byre.test': '1',
      'byre.project': project,
    });
    expect((await engine.inspectEnv(box))['BYRE_PROBE']).toBe('a=b');
    expect(await engine.networkMode(id)).not.toBe('');

    // Discovery's one-call forms: label values from ps, facts in one inspect.
    expect(
      await engine.psLabels({ labels: { 'byre.project': project }, all: false }, [
        'byre.project',
        'byre.absent',
      ]),
    ).toEqual([{ id, labels: { 'byre.project': project } }]);
    const gone = 'f'.repeat(64);
    const seen = await engine.inspectContainers([id, gone]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id, running: true, labels: { 'byre.project': project } });
    expect(seen[0]?.env['BYRE_PROBE']).toBe('a=b');

    const ok = await engine.exec(
      { id, command: ['sh', '-c', 'echo "$X"; cat; exit 4'], env: { X: 'hi' } },
      { input: 'in' },
    );
    expect(ok).toMatchObject({ exitCode: 4, stdout: 'hi\nin' });

    await engine.stop(id, 1);
    expect(await engine.ps({ labels: { 'byre.project': project }, all: false })).toEqual([]);
    expect(await engine.ps({ labels: { 'byre.project': project }, all: true })).toEqual([id]);

    expect(await engine.remove(id)).toBe(true);
    expect(await engine.ps({ labels: { 'byre.project': project }, all: true })).toEqual([]);
    expect(await engine.remove(box)).toBe(false);
    await expect(engine.inspectLabels(id)).rejects.toBeInstanceOf(EngineError);
  });

  it('builds a tiny image, streams its output and reads its id and labels', async () => {
    fresh();
    const ctx = mkdtempSync(path.join(tmpdir(), 'byre-test-ctx-'));
    made.dirs.push(ctx);
    writeFileSync(
      path.join(ctx, 'Dockerfile.generated'),
      `FROM ${BASE}\nARG BYRE_UID=1000\nARG BYRE_GID=1000\nRUN echo "built-$BYRE_UID-$BYRE_GID" > /built\nHEALTHCHECK NONE\n`,
    );
    const tag = `byre-test-img-${run}`;
    made.images.push(tag);
    let output = '';
    await engine.build(
      { tag, contextDir: ctx, noCache: true, uid: 1234, gid: 5678, labels: testLabels() },
      { onOutput: (chunk) => (output += chunk) },
    );
    expect(output).toContain('built-');
    expect(await engine.imageExists(tag)).toBe(true);
    expect(await engine.imageId(tag)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await engine.imageLabels(tag)).toMatchObject(testLabels());

    const { stdout } = await engine.run([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      `byre-test-run-${run}`,
      ...helperUsernsArgs(facts.keepId),
      '--label',
      'byre.test=1',
      '--label',
      `byre.test.run=${run}`,
      tag,
      'cat',
      '/built',
    ]);
    expect(stdout.trim()).toBe('built-1234-5678');

    expect(await engine.removeImage(tag)).toBe(true);
    expect(await engine.imageExists(tag)).toBe(false);
    expect(await engine.removeImage(tag)).toBe(false);
  });

  it('a failing build is an EngineError carrying argv and the reason', async () => {
    fresh();
    const ctx = mkdtempSync(path.join(tmpdir(), 'byre-test-ctx-'));
    made.dirs.push(ctx);
    writeFileSync(
      path.join(ctx, 'Dockerfile.generated'),
      `FROM ${BASE}\nLABEL byre.test=1 byre.test.run=${run}\nRUN echo byre-test-about-to-fail && exit 3\n`,
    );
    const tag = `byre-test-bad-${run}`;
    made.images.push(tag);
    let output = '';
    const err = await engine
      .build(
        { tag, contextDir: ctx, noCache: true, uid: 1000, gid: 1000, labels: testLabels() },
        { onOutput: (c) => (output += c) },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    const ee = err as EngineError;
    expect(ee.engine).toBe(name);
    expect(ee.rule).toBe('engine.failed');
    expect(ee.argv.slice(0, 3)).toEqual(['build', '-t', tag]);
    expect(ee.engineExitCode).not.toBe(0);
    expect(ee.stderr).not.toBe('');
    expect(output).toContain('byre-test-about-to-fail');
    expect(await engine.imageExists(tag)).toBe(false);
  });

  it('an unknown image is absent, not an error; imageId on it is an EngineError', async () => {
    fresh();
    const tag = `byre-test-none-${run}`;
    expect(await engine.imageExists(tag)).toBe(false);
    await expect(engine.imageId(tag)).rejects.toBeInstanceOf(EngineError);
  });
});
