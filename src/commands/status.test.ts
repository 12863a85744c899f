// `byre status`'s decision table on the fake engine: the flags it refuses, the
// Container row's three states (not running, running with its creator, and
// unknown when an engine that may hold the box cannot be asked), the sibling
// worktrees' boxes, the engine row when detection fails, and the exit status
// that says develop would refuse the launch the page shows (adr/0018). The
// engine-record scoping and engine-unavailable rows are in develop.test.ts.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectDirs } from '../../test/support/project-world.js';
import type { EnginePool } from '../engine/pool.js';
import { ByreError, EngineError, RefusedError, UsageError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import { recordProjectPath } from '../project/store.js';
import type { CommandDeps } from './deps.js';
import { statusCommand, type StatusOptions } from './status.js';

interface World {
  dir: string;
  home: string;
  store: string;
  id: string;
  io: FakeIo;
  docker: FakeEngine;
  podman: FakeEngine;
  alive: Set<number>;
  deps: CommandDeps;
}

let w: World;

useTempDir('status-cmd', (tmp) => {
  const p = projectDirs(tmp);
  const docker = new FakeEngine({ name: 'docker' });
  const podman = new FakeEngine({ name: 'podman' });
  const alive = new Set<number>();
  w = {
    ...p,
    io: fakeIo({ cwd: p.dir, env: p.env }),
    docker,
    podman,
    alive,
    deps: {
      detect: async () => FAKE_FACTS,
      createEngine: () => docker,
      pool: pool(docker, podman),
      pidAlive: (pid) => alive.has(pid),
    },
  };
});

function pool(...engines: FakeEngine[]): EnginePool {
  return {
    members: engines.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

function writeConfig(text: string): void {
  mkdirSync(w.store, { recursive: true });
  writeFileSync(path.join(w.store, 'byre.config'), text);
}

interface Page {
  refused: { rule: string; message: string }[];
  engine: { choice: string; name: string | null; error: string | null };
  container: {
    state: string;
    id: string | null;
    engine: string | null;
    orphaned: boolean;
    outside_byre: boolean;
    client_pid: number | null;
    error: string | null;
    siblings: { worktree: string; id: string; engine: string }[];
    siblings_error: string | null;
  };
}

/** The --data page, and what the command threw after printing it (null: exit 0). */
async function page(
  deps: CommandDeps = {},
  options: StatusOptions = { data: true },
): Promise<{ data: Page; error: unknown }> {
  let out = '';
  const io = fakeIo({ ...w.io, stdout: { write: (t: string) => (out += t) } });
  const error = await statusCommand(io, options, { ...w.deps, ...deps }).then(
    () => null,
    (e: unknown) => e,
  );
  return { data: JSON.parse(out) as Page, error };
}

/** A running box of this project in worktree `workdir`, started by byre `client`. */
function box(engine: FakeEngine, workdir: string, client?: string): string {
  return engine.addContainer({
    name: `byre-${workdir}`,
    labels: {
      [LABEL.project]: w.id,
      [LABEL.workdir]: workdir,
      ...(client === undefined ? {} : { [LABEL.client]: client }),
    },
  }).id;
}

describe('byre status', () => {
  it('status.flags-exclusive: --full with --data is a usage error (exit 2), nothing asked', async () => {
    const error = await statusCommand(w.io, { full: true, data: true }, w.deps).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).rule).toBe('status.flags-exclusive');
    expect((error as UsageError).exitCode).toBe(2);
    expect(w.docker.calls).toEqual([]);
    expect(w.io.out).toBe('');
  });

  it('a directory with no box: not running, the engine detection picked, exit 0', async () => {
    const { data, error } = await page();
    expect(error).toBeNull();
    expect(data.container).toMatchObject({ state: 'not_running', id: null, error: null });
    expect(data.engine).toMatchObject({ choice: 'auto', name: 'docker', error: null });
    expect(data.refused).toEqual([]);
  });

  it('its running box, on whichever engine holds it, with the live byre that started it', async () => {
    const id = box(w.podman, w.id, '4242');
    w.alive.add(4242);
    const { data } = await page();
    expect(data.container).toMatchObject({
      state: 'running',
      id,
      engine: 'podman',
      client_pid: 4242,
      orphaned: false,
      outside_byre: false,
      siblings: [],
    });
  });

  it('a box whose starting byre is gone is orphaned; one with no client label was started outside byre', async () => {
    box(w.docker, w.id, '4242');
    expect((await page()).data.container).toMatchObject({ state: 'running', orphaned: true });
    w.docker.containers.clear();
    box(w.docker, w.id);
    expect((await page()).data.container).toMatchObject({
      state: 'running',
      outside_byre: true,
      client_pid: null,
    });
  });

  it('a stopped box is not a running one', async () => {
    w.docker.addContainer({
      name: `byre-${w.id}`,
      labels: { [LABEL.project]: w.id, [LABEL.workdir]: w.id },
      running: false,
    });
    expect((await page()).data.container.state).toBe('not_running');
  });

  it('another worktree’s box is a sibling, not this directory’s box', async () => {
    const sibling = box(w.docker, `${w.id}-x-abcdef`, '1');
    const { data } = await page();
    expect(data.container.state).toBe('not_running');
    expect(data.container.siblings).toEqual([
      expect.objectContaining({ worktree: `${w.id}-x-abcdef`, id: sibling, engine: 'docker' }),
    ]);
  });

  it('an engine that fails its ps leaves the box unknown, never "not running", naming it', async () => {
    w.podman.failNext(
      'psLabels',
      new EngineError('podman ps failed (exit 125)', {
        engine: 'podman',
        argv: ['ps'],
        exitCode: 125,
      }),
    );
    const { data, error } = await page();
    expect(error).toBeNull();
    expect(data.container.state).toBe('unknown');
    expect(data.container.error).toMatch(/^could not ask podman/);
    expect(data.container.siblings_error).toMatch(/^podman/);
  });

  it('detection that fails is the engine row’s error, the page still printed', async () => {
    const detect = async (): Promise<never> => {
      throw new ByreError('no container engine found', { rule: 'engine.none' });
    };
    const { data, error } = await page({ detect });
    expect(error).toBeNull();
    expect(data.engine).toMatchObject({ name: null, error: 'no container engine found' });
  });

  it('a launch develop would refuse: the page prints, then exits 3 with the rule', async () => {
    // A read-write mount of byre's own store.
    mkdirSync(w.home, { recursive: true });
    writeConfig(`[[mounts]]\nhost = "${w.home}"\ntarget = "/srv/store"\nmode = "rw"\n`);
    const { data, error } = await page();
    expect(data.refused.map((r) => r.rule)).toContain('containment.store');
    expect(error).toBeInstanceOf(RefusedError);
    expect((error as RefusedError).rule).toBe('containment.store');
    expect((error as RefusedError).exitCode).toBe(3);
  });

  it('project.id-collision: another directory’s id is refused before any engine is asked', async () => {
    await recordProjectPath(w.home, w.id, path.join(path.dirname(w.dir), 'elsewhere'));
    const error = await statusCommand(w.io, { data: true }, w.deps).catch((e: unknown) => e);
    expect(error).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
    expect(w.docker.calls).toEqual([]);
    expect(w.podman.calls).toEqual([]);
    expect(w.io.out).toBe('');
  });

  it('the text page names the running box and its engine', async () => {
    const id = box(w.docker, w.id, '4242');
    w.alive.add(4242);
    await statusCommand(w.io, {}, w.deps);
    expect(w.io.out).toContain(id.slice(0, 12));
    expect(w.io.out).toMatch(/running/);
  });
});
