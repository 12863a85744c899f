// What `byre reset` and `byre forget` decide themselves, on the fake engine
// (the shared teardown flow's table is in lifecycle/teardown.test.ts): the
// refusal of another directory's id before any engine is asked, the warning
// over state volumes drawn from the config's declared roles, forget dropping
// its worktrees' records with its store (adr/0047) and nothing of a project
// that never launched, and reset never touching the store.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';

import { LABEL } from '../gen/names.js';
import { recordIdentity } from '../project/identity-record.js';
import { projectIdFor } from '../project/identity.js';
import { worktreeRecordPath } from '../project/store-layout.js';
import { recordProjectPath } from '../project/store.js';
import { forgetCommand } from './forget.js';
import { resetCommand } from './reset.js';
import { failure } from '../../test/support/failure.js';

interface World {
  dir: string;
  home: string;
  store: string;
  id: string;
  io: FakeIo;
  engine: FakeEngine;
  pool: EnginePool;
}

let w: World;

useTempDir('project-teardown', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  mkdirSync(path.join(tmp, 'user'));
  const id = projectIdFor(dir);
  const engine = new FakeEngine({ name: 'docker' });
  w = {
    dir,
    home,
    store: path.join(home, 'projects', id),
    id,
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home, HOME: path.join(tmp, 'user') } }),
    engine,
    pool: { members: [{ name: 'docker', state: 'ok', engine }] },
  };
});

async function launched(config: string): Promise<void> {
  await recordProjectPath(w.home, w.id, w.dir);
  writeFileSync(path.join(w.store, 'byre.config'), config);
}

function volume(name: string): string {
  const full = `byre-${w.id}-${name}`;
  w.engine.volumes.set(full, { [LABEL.project]: w.id });
  return full;
}

/** Records a linked worktree of `projectId` as develop does; its record's file. */
async function worktreeRecord(worktreeId: string, projectId: string): Promise<string> {
  await recordIdentity(w.home, {
    projectId,
    projectRoot: projectId === w.id ? w.dir : `/elsewhere/${projectId}`,
    worktreeDir: `/elsewhere/${worktreeId}`,
    worktreeId,
    isLinkedWorktree: true,
  });
  return worktreeRecordPath(w.home, worktreeId);
}

const STATE = 'state volumes hold agent logins and shell history and cannot be recovered';

describe.each([
  ['reset', resetCommand],
  ['forget', forgetCommand],
] as const)('byre %s', (verb, command) => {
  it('project.id-collision: another directory’s id is refused before any engine is asked', async () => {
    await recordProjectPath(w.home, w.id, path.join(path.dirname(w.dir), 'elsewhere'));
    volume('db');
    const error = await failure(command(w.io, { force: true }, { pool: w.pool }));
    expect(error).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
    expect(w.engine.calls).toEqual([]);
    expect(existsSync(w.store)).toBe(true);
  });

  it('warns over the volumes the config declares as state, by name, and not over caches', async () => {
    await launched(
      '[[volumes]]\nname = "db"\nrole = "state"\ntarget = "/home/dev/db"\n' +
        '[[volumes]]\nname = "npm"\nrole = "cache"\ntarget = "/home/dev/.npm"\n',
    );
    const db = volume('db');
    volume('npm');
    await command(w.io, { force: true }, { pool: w.pool });
    expect(w.io.err).toContain(`${STATE}: ${db}\n`);
    expect(w.io.err).not.toContain('may hold state too');
    expect(w.engine.volumes.size).toBe(0);
  });

  it('a config that does not load: every doomed volume may hold state, and it says why', async () => {
    await launched('volumes = \n');
    const old = volume('old');
    await command(w.io, { force: true }, { pool: w.pool });
    expect(w.io.err).toContain(`${old} may hold state too (the config did not load)`);
    expect(w.engine.volumes.has(old)).toBe(false);
  });

  it(`${verb}.cancelled: a no at the question removes nothing, the store included`, async () => {
    await launched('');
    const db = volume('db');
    const record = await worktreeRecord(`${w.id}-x-abcdef`, w.id);
    const error = await failure(command(w.io, {}, { pool: w.pool, confirm: async () => false }));
    expect(error.rule).toBe(`${verb}.cancelled`);
    expect(w.engine.volumes.has(db)).toBe(true);
    expect(existsSync(w.store)).toBe(true);
    expect(existsSync(record)).toBe(true);
  });
});

describe('forget and reset differ', () => {
  it('forget drops this project’s worktree records with its store, and no other project’s', async () => {
    await launched('');
    const mine = await worktreeRecord(`${w.id}-x-abcdef`, w.id);
    const theirs = await worktreeRecord('other-123456-x-abcdef', 'other-123456');
    await forgetCommand(w.io, { force: true }, { pool: w.pool });
    expect(existsSync(w.store)).toBe(false);
    expect(existsSync(mine)).toBe(false);
    expect(existsSync(theirs)).toBe(true);
  });

  // The wiring rootless podman binds (adr/0075), the edge's certificates
  // (adr/0070) and its image's staged context (adr/0077), and the delivery
  // receipts live beside the project's folder, and go with it.
  it.each([
    ['wiring', ''],
    ['edge', ''],
    ['edge', '.image'],
    ['receipts', ''],
  ])('forget removes %s/<id>%s with the store; reset keeps it', async (kind, suffix) => {
    await launched('');
    const mine = path.join(w.home, kind, `${w.id}${suffix}`);
    const other = path.join(w.home, kind, `other-123456${suffix}`);
    mkdirSync(path.join(mine, 'abc', 'wiring'), { recursive: true });
    mkdirSync(other, { recursive: true });
    await resetCommand(w.io, { force: true }, { pool: w.pool });
    expect(existsSync(mine)).toBe(true);
    await forgetCommand(w.io, { force: true }, { pool: w.pool });
    expect(existsSync(mine)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(w.io.err).toContain(`store ${mine}`);
  });

  it('forget of a project that never launched removes only what an engine holds, no store', async () => {
    const db = volume('db');
    await forgetCommand(w.io, { force: true }, { pool: w.pool });
    expect(w.engine.volumes.has(db)).toBe(false);
    expect(w.io.err).not.toContain('store ');
    expect(w.io.err).toContain(`forget removed 1 item of project ${w.id}`);
  });

  it('reset keeps the store and the worktree records: only volumes go', async () => {
    await launched('');
    const mine = await worktreeRecord(`${w.id}-x-abcdef`, w.id);
    const db = volume('db');
    w.engine.images.set(`byre-${w.id}-u1000-g1000`, {
      id: 'sha256:1',
      labels: { [LABEL.project]: w.id },
    });
    await resetCommand(w.io, { force: true }, { pool: w.pool });
    expect(w.engine.volumes.has(db)).toBe(false);
    expect(w.engine.images.size).toBe(1);
    expect(existsSync(path.join(w.store, 'byre.config'))).toBe(true);
    expect(existsSync(mine)).toBe(true);
    expect(w.io.err).toContain(
      `reset removed 1 volume of project ${w.id}; the next byre develop starts it fresh`,
    );
  });
});
