// The first questions `byre status` asks, on the fake engine: which engines
// are asked before the config is read (only those the records name; every
// one when a record is missing or unreadable), what is asked (this project's
// running boxes) and answered, a changed identity reported rather than
// refused while an id collision is refused, and, from the real PATH, a
// docker planted in a tree the box can write declined unasked (adr/0046).

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectDirs } from '../../test/support/project-world.js';
import type { EnginePool } from '../engine/pool.js';
import type { EngineName } from '../engine/types.js';
import { LABEL } from '../gen/names.js';
import { recordProjectPath } from '../project/store.js';
import { worktreeRecordPath } from '../project/store-layout.js';
import { startStatusScan } from './status-scan.js';

interface World {
  root: string;
  dir: string;
  home: string;
  id: string;
  store: string;
  io: FakeIo;
  docker: FakeEngine;
  podman: FakeEngine;
  pool: EnginePool;
}

let w: World;

useTempDir('status-scan', (tmp) => {
  const p = projectDirs(tmp);
  const docker = new FakeEngine({ name: 'docker' });
  const podman = new FakeEngine({ name: 'podman' });
  w = {
    ...p,
    io: fakeIo({ cwd: p.dir, env: p.env }),
    docker,
    podman,
    pool: {
      members: [docker, podman].map((engine) => ({
        name: engine.facts.name,
        state: 'ok' as const,
        engine,
      })),
    },
  };
});

function put(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(w.store, rel)), { recursive: true });
  writeFileSync(path.join(w.store, rel), text);
}

const asked = (): EngineName[] =>
  [w.docker, w.podman].filter((e) => e.callsTo('psLabels').length > 0).map((e) => e.facts.name);

describe('startStatusScan', () => {
  it("asks every engine for this project's running boxes when no record narrows it", async () => {
    w.podman.addContainer({
      name: 'byre-mine',
      labels: { [LABEL.project]: w.id, [LABEL.workdir]: w.id, [LABEL.client]: '42', other: 'x' },
    });
    w.podman.addContainer({
      name: 'byre-stopped',
      labels: { [LABEL.project]: w.id },
      running: false,
    });
    w.docker.addContainer({ name: 'byre-theirs', labels: { [LABEL.project]: 'other-0000aa' } });
    const scan = await startStatusScan(w.io, w.pool);
    expect(scan.ownRecord).toBeNull();
    expect(scan.asked.members.map((m) => m.name)).toEqual(['docker', 'podman']);
    const answers = await scan.answers;
    expect(answers.map((a) => [a.name, a.state === 'ok' ? a.value : a.state])).toEqual([
      ['docker', []],
      [
        'podman',
        [
          {
            engine: 'podman',
            id: expect.any(String) as string,
            labels: { [LABEL.workdir]: w.id, [LABEL.client]: '42' },
          },
        ],
      ],
    ]);
    expect(w.podman.callsTo('psLabels')).toEqual([
      [
        { labels: { [LABEL.project]: w.id }, all: false },
        [LABEL.workdir, LABEL.client, LABEL.launch],
      ],
    ]);
  });

  it('asks only the engines the records name, and the rest when the caller asks for them', async () => {
    put(`engine.${w.id}`, 'podman\n');
    put('engine.proj-feature-123456', 'podman\n');
    const scan = await startStatusScan(w.io, w.pool);
    expect(scan.ownRecord).toEqual({ last: 'podman', unresolved: [] });
    expect(scan.otherRecords).toEqual([{ last: 'podman', unresolved: [] }]);
    expect(scan.installed).toBe(w.pool);
    await scan.answers;
    expect(asked()).toEqual(['podman']);
    const more = await scan.ask({ members: w.pool.members.filter((m) => m.name === 'docker') });
    expect(more.map((a) => a.name)).toEqual(['docker']);
    expect(asked()).toEqual(['docker', 'podman']);
  });

  it.each([
    ['an unresolved engine in its own record', 'docker unresolved=podman\n', null],
    ["another worktree's record naming docker", 'podman\n', 'docker\n'],
    ["another worktree's record unreadable", 'podman\n', 'kubernetes\n'],
  ])('asks both engines for %s', async (_, own, other) => {
    put(`engine.${w.id}`, own);
    if (other !== null) put('engine.proj-feature-123456', other);
    await (
      await startStatusScan(w.io, w.pool)
    ).answers;
    expect(asked()).toEqual(['docker', 'podman']);
  });

  it('reads the config once for the page when it reads cleanly, with its box-writable trees', async () => {
    put('byre.config', 'apt = ["jq"]\n');
    const scan = await startStatusScan(w.io, w.pool);
    expect(scan.config?.config.apt.map((a) => a.value)).toEqual(['jq']);
    expect(scan.trees.map((t) => t.path)).toContain(w.dir);
  });

  it('a config that does not read leaves the page to read it again; the trees are still known', async () => {
    put('byre.config', 'apt = 3\n');
    const scan = await startStatusScan(w.io, w.pool);
    expect(scan.config).toBeNull();
    expect(scan.trees.map((t) => t.path)).toContain(w.dir);
  });

  it('a changed identity is reported on the context for the page, not refused', async () => {
    mkdirSync(path.dirname(worktreeRecordPath(w.home, w.id)), { recursive: true });
    writeFileSync(worktreeRecordPath(w.home, w.id), 'not a record\n');
    const scan = await startStatusScan(w.io, w.pool);
    expect(scan.ctx.identityChange?.recorded.projectId).toBeNull();
    await scan.answers;
  });

  it('project.id-collision: an id another directory owns is refused (exit 3) before any engine is asked', async () => {
    await recordProjectPath(w.home, w.id, path.join(w.root, 'elsewhere'));
    await expect(startStatusScan(w.io, w.pool)).rejects.toMatchObject({
      rule: 'project.id-collision',
      exitCode: 3,
    });
    expect(asked()).toEqual([]);
  });

  it('an answer that fails before the page awaits it is not left unhandled', async () => {
    w.docker.failNext('psLabels', new Error('not an engine error'));
    const scan = await startStatusScan(w.io, w.pool);
    // Past the microtasks: an unhandled rejection would be reported here.
    await new Promise((resolve) => setImmediate(resolve));
    await expect(scan.answers).rejects.toThrow('not an engine error');
  });

  it('without a given pool: a docker planted in the project (a box-writable tree) is declined, never run', async () => {
    const bin = path.join(w.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, 'docker'), 0o755);
    const io = fakeIo({ ...w.io, env: { ...w.io.env, PATH: bin } });
    const scan = await startStatusScan(io);
    expect(scan.installed.members).toEqual([
      { name: 'docker', state: 'declined', path: path.join(bin, 'docker'), root: w.dir },
    ]);
    const answers = await scan.answers;
    expect(answers).toMatchObject([{ name: 'docker', state: 'declined' }]);
    expect(answers[0]?.state === 'declined' && answers[0].message).toContain(
      `which the box can write; byre declined to run it`,
    );
  });

  it("without a given pool: a docker in a read-write mount's host tree is declined too", async () => {
    const shared = path.join(w.root, 'shared');
    mkdirSync(shared);
    writeFileSync(path.join(shared, 'docker'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(shared, 'docker'), 0o755);
    put('byre.config', `[[mounts]]\nhost = "${shared}"\ntarget = "/opt/shared"\nmode = "rw"\n`);
    const io = fakeIo({ ...w.io, env: { ...w.io.env, PATH: shared } });
    const scan = await startStatusScan(io);
    expect(scan.installed.members).toMatchObject([
      { name: 'docker', state: 'declined', root: shared },
    ]);
  });
});
