// The ensure-the-edge-image step against the fake engine (adr/0077): built
// when there is none or it carries another digest, skipped when current,
// always built under `rebuild`; its context staged privately and removed,
// failure or not; a failed build is `edge.image`, naming the base.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { useTempDir } from '../../test/support/temp.js';
import { EDGE_CONTEXT_LABEL, edgeImageDigest } from '../gen/edge-image.js';
import { ByreError, EngineError } from '../errors.js';
import { buildProgressFor } from './build-progress.js';
import { ensureEdgeImage, lookUpEdgeImage } from './edge-image.js';

const TAG = 'byre-p-1a2b3c-edge';
const owner = { projectId: 'p-1a2b3c', storeTag: '0123456789abcdef' };

let staging = '';
useTempDir('edge-image', (tmp) => {
  staging = path.join(tmp, 'store', 'edge', 'p-1a2b3c.image');
});

function request(engine: FakeEngine, noCache = false) {
  return { engine, tag: TAG, owner, stagingDir: staging, noCache };
}

/** What each build was handed: its Dockerfile's text, and whether its context is gone after. */
function recordBuilds(engine: FakeEngine): {
  dockerfiles: string[];
  contexts: string[];
  modes: number[];
} {
  const seen = { dockerfiles: [] as string[], contexts: [] as string[], modes: [] as number[] };
  const build = engine.build.bind(engine);
  engine.build = async (spec, io) => {
    seen.dockerfiles.push(readFileSync(spec.dockerfile ?? '', 'utf8'));
    seen.contexts.push(spec.contextDir);
    seen.modes.push(statSync(spec.contextDir).mode & 0o777);
    return build(spec, io);
  };
  return seen;
}

describe('ensureEdgeImage', () => {
  it('builds it when there is none, labelled as the project’s with its digest, and stages nothing that stays', async () => {
    const engine = new FakeEngine({ name: 'podman' });
    const seen = recordBuilds(engine);
    const id = await ensureEdgeImage(request(engine));
    const image = engine.images.get(TAG);
    expect(id).toBe(image?.id);
    expect(image?.labels).toEqual({
      'byre.project': 'p-1a2b3c',
      'byre.store': '0123456789abcdef',
      [EDGE_CONTEXT_LABEL]: edgeImageDigest('podman'),
    });
    expect(seen.dockerfiles[0]).toMatch(/^FROM debian:bookworm-slim$/m);
    // Staged where it was told (the store's, which no box can bind), private, and gone after.
    expect(seen.contexts).toEqual([staging]);
    expect(seen.modes).toEqual([0o700]);
    expect(existsSync(staging)).toBe(false);
  });

  it('clears what a build that never finished left where it stages, and never builds from it', async () => {
    const engine = new FakeEngine({ name: 'docker' });
    mkdirSync(staging, { recursive: true });
    writeFileSync(path.join(staging, 'Dockerfile'), 'FROM evil\n');
    writeFileSync(path.join(staging, 'planted'), 'x');
    const seen = recordBuilds(engine);
    await ensureEdgeImage(request(engine));
    expect(seen.dockerfiles[0]).toMatch(/^FROM debian:bookworm-slim$/m);
    expect(seen.dockerfiles[0]).not.toContain('evil');
    expect(existsSync(staging)).toBe(false);
  });

  it('skips the build while the image carries this digest, and builds again when it carries another', async () => {
    const engine = new FakeEngine({ name: 'docker' });
    engine.images.set(TAG, {
      id: 'sha256:current',
      labels: { [EDGE_CONTEXT_LABEL]: edgeImageDigest('docker') },
    });
    const known = lookUpEdgeImage(engine, TAG);
    expect(await ensureEdgeImage(request(engine), known)).toBe('sha256:current');
    expect(engine.callsTo('build')).toEqual([]);
    // Another engine's digest (or an older byre's) is not this one.
    engine.images.set(TAG, {
      id: 'sha256:old',
      labels: { [EDGE_CONTEXT_LABEL]: edgeImageDigest('podman') },
    });
    const id = await ensureEdgeImage(request(engine));
    expect(engine.callsTo('build')).toHaveLength(1);
    expect(id).not.toBe('sha256:old');
  });

  it('builds afresh under rebuild, without asking, and without the cache', async () => {
    const engine = new FakeEngine({ name: 'docker' });
    engine.images.set(TAG, {
      id: 'sha256:current',
      labels: { [EDGE_CONTEXT_LABEL]: edgeImageDigest('docker') },
    });
    await ensureEdgeImage(request(engine, true));
    expect(engine.callsTo('imageInfo')).toEqual([]);
    expect(
      engine.callsTo('build').map((args) => (args[0] as { noCache: boolean }).noCache),
    ).toEqual([true]);
  });

  it('edge.image: a failed build names the base, prints the log, and leaves no context behind', async () => {
    const engine = new FakeEngine({ name: 'docker' });
    const seen = recordBuilds(engine);
    engine.buildOutput = ['Step 1/5 : FROM debian:bookworm-slim\n', 'pull access denied\n'];
    const build = engine.build.bind(engine);
    engine.build = async (spec, io) => {
      await build(spec, io);
      engine.images.delete(spec.tag);
      throw new EngineError('docker build failed (exit 1)', {
        engine: 'docker',
        argv: ['build'],
        exitCode: 1,
        stderr: '',
      });
    };
    const printed: string[] = [];
    const error = await ensureEdgeImage({
      ...request(engine),
      progress: buildProgressFor(
        { stderr: { write: (s: string) => printed.push(s) } },
        path.join(path.dirname(staging), 'build.log'),
        false,
        'the edge image',
      ),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ByreError);
    expect((error as ByreError).rule).toBe('edge.image');
    expect((error as ByreError).message).toContain('FROM debian:bookworm-slim');
    expect(printed.join('')).toContain("the edge image build failed; the engine's log follows");
    expect(printed.join('')).toContain('pull access denied');
    expect(seen.contexts.every((dir) => !existsSync(dir))).toBe(true);
  });
});
