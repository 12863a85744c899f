// `byre rebuild`'s decision table on the fake engine: what it refuses before
// detection (a root host, no setup yet, another directory's id), that it
// always builds without the cache even over a current image and touches no
// volume or box, and how a failed build is reported (a missing base located
// at the config key that chose it). The engine-changed refusal under the lock
// is in develop.test.ts, beside develop's.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { DEFAULT_BASE } from '../config/types.js';
import type { BuildSpec } from '../engine/types.js';
import { createIdentity, sealInjected } from '../credentials/seal.js';
import { ConfigError } from '../errors.js';
import { imageTag, LABEL } from '../gen/names.js';
import { projectIdFor } from '../project/identity.js';
import { recordProjectPath } from '../project/store.js';
import type { CommandDeps } from './deps.js';
import { rebuildCommand } from './rebuild.js';
import { recordedEdgeImage } from '../session/edge-image-record.js';
import { failure } from '../../test/support/failure.js';

interface World {
  dir: string;
  home: string;
  id: string;
  config: string;
  io: FakeIo;
  engine: FakeEngine;
  detected: number;
  deps: CommandDeps;
}

let w: World;

useTempDir('rebuild-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  mkdirSync(path.join(tmp, 'user'));
  const id = projectIdFor(dir);
  const engine = new FakeEngine();
  engine.images.set(DEFAULT_BASE, { id: 'sha256:base', labels: {} });
  w = {
    dir,
    home,
    id,
    config: path.join(home, 'projects', id, 'byre.config'),
    io: fakeIo({
      cwd: dir,
      env: { BYRE_HOME: home, HOME: path.join(tmp, 'user'), PATH: '/usr/bin:/bin' },
    }),
    engine,
    detected: 0,
    deps: {
      detect: async () => {
        w.detected += 1;
        return FAKE_FACTS;
      },
      createEngine: () => engine,
    },
  };
});

function setUp(config = ''): void {
  mkdirSync(path.dirname(w.config), { recursive: true });
  writeFileSync(w.config, config);
}

function rebuild(io: FakeIo = w.io): Promise<void> {
  return rebuildCommand(io, w.deps);
}

/** What rebuild asked the engine to change besides the build. */
function otherMutations(): string[] {
  const changing = new Set(['create', 'run', 'remove', 'volumeCreate', 'volumeRemove', 'stop']);
  return w.engine.calls.filter((c) => changing.has(c.method)).map((c) => c.method);
}

function builds(): BuildSpec[] {
  return w.engine.callsTo('build').map((c) => c[0] as BuildSpec);
}

describe('byre rebuild', () => {
  it('builds the project image without the cache, and says volumes were left alone', async () => {
    setUp();
    await rebuild();
    const tag = imageTag(w.id, 1000, 1000);
    // The base image, then the wiring on it, both without the cache (adr/0073).
    expect(builds()).toMatchObject([
      { tag: `${tag}-base`, noCache: true, uid: 1000, gid: 1000 },
      { tag, noCache: true, uid: 1000, gid: 1000 },
    ]);
    expect(builds().map((b) => b.labels?.[LABEL.project])).toEqual([w.id, w.id]);
    expect(w.engine.images.has(tag)).toBe(true);
    expect(otherMutations()).toEqual([]);
    expect(w.io.err).toContain(
      `byre: rebuilt ${tag} without the build cache; volumes were left as they are`,
    );
  });

  it("builds the edge's own image too, without the cache, when the config injects (adr/0077)", async () => {
    const { table } = await createIdentity('passphrase', 10);
    const rules = [
      {
        hosts: [{ name: 'api.example.com', port: 443 }],
        presentation: { kind: 'bearer' as const },
      },
    ];
    const row = await sealInjected(table.recipient, 'API_KEY', rules, Buffer.from('sk-test'));
    setUp(
      `[env_from_host]\nAPI_KEY = "${row}"\n\n[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbearer = true\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`,
    );
    await rebuild();
    const tag = imageTag(w.id, 1000, 1000);
    const edgeTag = `byre-${w.id}-edge`;
    expect(builds().map((b) => [b.tag, b.noCache])).toEqual([
      [`${tag}-base`, true],
      [tag, true],
      [edgeTag, true],
    ]);
    expect(w.engine.images.get(edgeTag)?.labels[LABEL.project]).toBe(w.id);
    expect(w.io.err).toContain(
      `byre: rebuilt ${tag} and ${edgeTag} without the build cache; volumes were left as they are`,
    );
    // The next launch's early edge runs on the image just built (adr/0083).
    const record = path.join(w.home, 'edge', `${w.id}.image-id`);
    expect(recordedEdgeImage(record, w.engine.facts.name)).toBe(w.engine.images.get(edgeTag)?.id);
  });

  it('builds again over an image that carries this exact context: that is its purpose', async () => {
    setUp();
    await rebuild();
    await rebuild();
    expect(builds().map((b) => b.noCache)).toEqual([true, true, true, true]);
    // It never asks whether the image (or its base image) is current.
    expect(w.engine.callsTo('imageInfo').map((c) => c[0])).toEqual([DEFAULT_BASE, DEFAULT_BASE]);
  });

  it('builds from the config as it reads under the lock', async () => {
    setUp('apt = ["jq"]\n');
    await rebuild();
    const dockerfile = builds()[0]?.dockerfile ?? '';
    expect(dockerfile.startsWith(path.join(w.home, 'projects', w.id))).toBe(true);
    expect(readFileSync(dockerfile, 'utf8')).toMatch(/apt-get install[^\n]*\bjq\b/);
  });

  it('rebuild.not-set-up: no config yet, refused before any engine is detected', async () => {
    const error = await failure(rebuild());
    expect(error.rule).toBe('rebuild.not-set-up');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(`(${w.config} is missing)`);
    expect(error.remedy).toContain('run byre develop first');
    expect(w.detected).toBe(0);
    expect(w.engine.calls).toEqual([]);
  });

  it('host.root-user: refuses a root host user (exit 3) before anything else', async () => {
    setUp();
    const error = await failure(rebuild(fakeIo({ ...w.io, uid: 0 })));
    expect(error).toMatchObject({ rule: 'host.root-user', exitCode: 3 });
    expect(w.detected).toBe(0);
    expect(w.engine.calls).toEqual([]);
  });

  it('BYRE_ALLOW_ROOT=1 lets a root host user rebuild, warning first', async () => {
    setUp();
    const io = fakeIo({ ...w.io, uid: 0, gid: 0, env: { ...w.io.env, BYRE_ALLOW_ROOT: '1' } });
    await rebuild(io);
    // The copy writes through w.io's streams.
    expect(w.io.err.split('\n')[0]).toContain('BYRE_ALLOW_ROOT=1');
    expect(builds()).toHaveLength(2);
  });

  it('project.id-collision: an id another directory owns is refused before detection', async () => {
    setUp();
    await recordProjectPath(w.home, w.id, path.join(path.dirname(w.dir), 'elsewhere'));
    const error = await failure(rebuild());
    expect(error).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
    expect(w.detected).toBe(0);
  });

  it('a config that does not load is refused, located, before any engine is detected', async () => {
    setUp('base = \n');
    const error = await failure(rebuild());
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).location?.file).toBe(w.config);
    expect(w.detected).toBe(0);
  });

  it('build.base-unavailable: a base the engine lacks and could not fetch is located at its key', async () => {
    setUp('# the base\nbase = "example.invalid/nosuch:1"\n');
    w.engine.failNext('build');
    const error = await failure(rebuild());
    expect(error.rule).toBe('build.base-unavailable');
    expect(error.location).toMatchObject({ file: w.config, line: 2, key: 'base' });
    expect(error.message).toContain('example.invalid/nosuch:1 is not on docker');
    expect(w.io.err).not.toContain('rebuilt');
  });

  it('build.failed: a failing step over a present base says its log is above', async () => {
    setUp();
    w.engine.buildOutput = ['STEP 1/9: FROM debian\n'];
    w.engine.failNext('build');
    const error = await failure(rebuild());
    expect(error.rule).toBe('build.failed');
    expect(w.io.err).not.toContain('rebuilt');
  });
});
