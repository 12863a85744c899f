// `byre shell`'s decision table on the fake engine: which box it enters (this
// directory's running session, on whichever engine runs it), what it refuses
// before any exec (another directory's id, no session, a box whose ids are
// missing or not the caller's), what it execs, and the exit status passing
// through. It never starts a box.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import type { ExecSpec } from '../engine/types.js';
import { ByreError, EngineError, PassthroughExit } from '../errors.js';
import { LABEL } from '../gen/names.js';
import { projectIdFor } from '../project/identity.js';
import { recordProjectPath } from '../project/store.js';
import { shellCommand, type ShellOptions } from './shell.js';

interface World {
  dir: string;
  home: string;
  id: string;
  io: FakeIo;
  docker: FakeEngine;
  podman: FakeEngine;
}

let w: World;

useTempDir('shell-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  w = {
    dir,
    home,
    id: projectIdFor(dir),
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home }, uid: 1000, gid: 1000 }),
    docker: new FakeEngine({ name: 'docker' }),
    podman: new FakeEngine({ name: 'podman' }),
  };
});

function pool(...engines: FakeEngine[]): EnginePool {
  return {
    members: engines.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

/** This directory's running session on `engine`, dev baked at `uid`. */
function session(engine: FakeEngine, uid = '1000', running = true): string {
  return engine.addContainer({
    name: `byre-${w.id}`,
    labels: { [LABEL.project]: w.id, [LABEL.workdir]: w.id },
    env: { BYRE_UID: uid, BYRE_GID: '1000', BYRE_PROJECT: w.id, PATH: '/usr/bin' },
    running,
  }).id;
}

function shell(options: ShellOptions = {}, engines = [w.docker, w.podman]): Promise<void> {
  return shellCommand(w.io, options, { pool: pool(...engines) });
}

async function failure(run: Promise<void>): Promise<unknown> {
  return run.then(
    () => null,
    (e: unknown) => e,
  );
}

function execs(...engines: FakeEngine[]): ExecSpec[] {
  return engines.flatMap((e) => e.callsTo('execAttached').map((c) => c[0] as ExecSpec));
}

describe('byre shell', () => {
  it('enters the running session as its dev, a login shell at /workspace with only BYRE_* env', async () => {
    const id = session(w.podman);
    await shell();
    expect(execs(w.docker)).toEqual([]);
    expect(execs(w.podman)).toEqual([
      {
        id,
        command: ['bash', '-l'],
        user: '1000:1000',
        workdir: '/workspace',
        env: { HOME: '/home/dev', BYRE_UID: '1000', BYRE_GID: '1000', BYRE_PROJECT: w.id },
        interactive: true,
        tty: false,
      },
    ]);
  });

  it('runs the command after -- as argv, never as shell text, through the login environment', async () => {
    session(w.docker);
    await shell({ command: ['echo', 'hi; false'] });
    expect(execs(w.docker)[0]?.command).toEqual([
      'bash',
      '-lc',
      'exec "$@"',
      'byre-shell',
      'echo',
      'hi; false',
    ]);
  });

  it('asks for a terminal for a shell when stdin is one, for a command only when both ends are', async () => {
    session(w.docker);
    w.io = fakeIo({ ...w.io, stdinIsTty: true, stdoutIsTty: false });
    await shell();
    await shell({ command: ['true'] });
    expect(execs(w.docker).map((s) => s.tty)).toEqual([true, false]);
  });

  it('passes a non-zero exit status through silently', async () => {
    session(w.docker);
    const error = await failure(shell({ command: ['sh', '-c', 'exit 42'] }));
    expect(error).toBeInstanceOf(PassthroughExit);
    expect((error as PassthroughExit).code).toBe(42);
  });

  it('shell.no-session: nothing running here, and nothing is exec’d or started', async () => {
    // A stopped box of this directory is no session to enter.
    session(w.docker, '1000', false);
    const error = await failure(shell());
    expect(error).toBeInstanceOf(ByreError);
    expect((error as ByreError).rule).toBe('shell.no-session');
    expect((error as ByreError).exitCode).toBe(1);
    expect((error as ByreError).message).toBe('no session is running for this directory');
    expect(execs(w.docker, w.podman)).toEqual([]);
    expect(w.docker.callsTo('startAttached')).toEqual([]);
  });

  it('shell.no-session: names the engine it could not check', async () => {
    w.podman.failNext(
      'ps',
      new EngineError('podman ps failed', { engine: 'podman', argv: ['ps'], exitCode: 125 }),
    );
    const error = await failure(shell());
    expect((error as ByreError).rule).toBe('shell.no-session');
    expect((error as ByreError).message).toMatch(/\(could not check podman \(.*\)\)$/);
  });

  it('does not enter a box of another worktree of the same project', async () => {
    w.docker.addContainer({
      name: 'byre-sibling',
      labels: { [LABEL.project]: w.id, [LABEL.workdir]: `${w.id}-x-abcdef` },
      env: { BYRE_UID: '1000', BYRE_GID: '1000' },
    });
    expect(((await failure(shell())) as ByreError).rule).toBe('shell.no-session');
  });

  it('shell.foreign-box: a box baked for another uid is refused unless --skip-uid-check', async () => {
    session(w.docker, '1001');
    const error = await failure(shell());
    expect((error as ByreError).rule).toBe('shell.foreign-box');
    expect((error as ByreError).message).toContain('runs as uid 1001, not yours (1000)');
    expect(execs(w.docker)).toEqual([]);
    await shell({ skipUidCheck: true });
    expect(execs(w.docker)[0]?.user).toBe('1001:1000');
  });

  it('rootless podman is caller-scoped: its generic uid is not compared', async () => {
    session(w.podman, '1000');
    w.io = fakeIo({ ...w.io, uid: 1234 });
    await shell();
    expect(execs(w.podman)).toHaveLength(1);
  });

  it('shell.no-ids: a box without valid BYRE_UID/BYRE_GID is refused', async () => {
    const id = w.docker.addContainer({
      name: `byre-${w.id}`,
      labels: { [LABEL.project]: w.id, [LABEL.workdir]: w.id },
      env: { BYRE_UID: 'root', BYRE_GID: '1000' },
    }).id;
    const error = await failure(shell());
    expect((error as ByreError).rule).toBe('shell.no-ids');
    expect((error as ByreError).message).toContain(id.slice(0, 12));
    expect(execs(w.docker)).toEqual([]);
  });

  it('refuses an id another directory owns before any engine is asked', async () => {
    await recordProjectPath(w.home, w.id, path.join(path.dirname(w.dir), 'elsewhere'));
    session(w.docker);
    const error = await failure(shell());
    expect(error).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
    expect((error as ByreError).message).toContain(
      `already belongs to ${path.dirname(w.dir)}/elsewhere`,
    );
    expect(w.docker.calls).toEqual([]);
    expect(w.podman.calls).toEqual([]);
  });
});
