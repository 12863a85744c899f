// `byre rehome`'s own decision table on the fake engine (the move itself is
// lifecycle/rehome-project.test.ts's): with no id it lists the stored
// projects whose directory is gone on stdout, escaped, or says there are
// none, or explains this directory's changed identity, asking no engine;
// with an id it moves that project (its volumes' data too) onto this
// directory on the given pool.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { makeWorktreeOf } from '../../test/support/git-shapes.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import { LABEL } from '../gen/names.js';
import { resolveProjectContext } from '../project/context.js';
import { projectIdFor } from '../project/identity.js';
import { recordIdentity } from '../project/identity-record.js';
import { recordProjectPath } from '../project/store.js';
import type { CommandDeps } from './deps.js';
import { rehomeCommand } from './rehome.js';

interface World {
  tmp: string;
  dir: string;
  home: string;
  io: FakeIo;
  engine: FakeEngine;
  deps: CommandDeps;
}

let w: World;

useTempDir('rehome-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  const engine = new FakeEngine();
  const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine }] };
  w = {
    tmp,
    dir,
    home,
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home }, uid: 1000, gid: 1000 }),
    engine,
    deps: {
      pool,
      detect: async () => {
        throw new Error('rehome detected an engine beside the given pool');
      },
    },
  };
});

/** A stored project whose directory `name` is gone. */
async function lost(name: string): Promise<string> {
  const dir = path.join(w.tmp, name);
  mkdirSync(dir);
  const id = projectIdFor(dir);
  await recordProjectPath(w.home, id, dir);
  rmSync(dir, { recursive: true });
  return id;
}

describe('byre rehome', () => {
  it('with nothing lost, says so and asks no engine', async () => {
    await rehomeCommand(w.io, undefined, w.deps);
    expect(w.io.out).toBe('');
    expect(w.io.err).toContain('no stored project has lost its directory');
    expect(w.engine.calls).toEqual([]);
  });

  it('lists the lost projects on stdout, id and escaped path, then how to move one here', async () => {
    const id = await lost('old\x1b[2Jname');
    await rehomeCommand(w.io, undefined, w.deps);
    expect(w.io.out).toBe(`${id}  ${w.tmp}/old\\x1b[2Jname\n`);
    expect(w.io.err).toContain(`run \`byre rehome <id>\` here`);
    expect(w.io.err).toContain(w.dir);
    expect(w.engine.calls).toEqual([]);
  });

  it('moves the named project’s volumes and config onto this directory, on the given pool', async () => {
    const oldId = await lost('before');
    writeFileSync(path.join(w.home, 'projects', oldId, 'byre.config'), 'agent = "none"\n');
    w.engine.volumes.set(`byre-${oldId}-state`, { [LABEL.project]: oldId });
    w.engine.volumeData.set(
      `byre-${oldId}-state`,
      new Map([['history', { kind: 'file' as const, bytes: Buffer.from('ls\n') }]]),
    );
    w.engine.images.set(`byre-${oldId}-u1000-g1000`, {
      id: 'sha256:1',
      labels: { [LABEL.project]: oldId },
    });
    await rehomeCommand(w.io, oldId, w.deps);
    const id = projectIdFor(w.dir);
    expect(w.engine.volumes.has(`byre-${id}-state`)).toBe(true);
    // The migration helper copied what the old volume held.
    expect(w.engine.volumeData.get(`byre-${id}-state`)?.get('history')).toEqual({
      kind: 'file',
      bytes: Buffer.from('ls\n'),
    });
    expect(w.engine.volumes.has(`byre-${oldId}-state`)).toBe(false);
    expect(readFileSync(path.join(w.home, 'projects', id, 'byre.config'), 'utf8')).toBe(
      'agent = "none"\n',
    );
    expect(existsSync(path.join(w.home, 'projects', oldId))).toBe(false);
  });

  it('refuses an id whose directory still exists, moving nothing', async () => {
    const other = path.join(w.tmp, 'alive');
    mkdirSync(other);
    const oldId = projectIdFor(other);
    await recordProjectPath(w.home, oldId, other);
    w.engine.volumes.set(`byre-${oldId}-state`, { [LABEL.project]: oldId });
    const error = await rehomeCommand(w.io, oldId, w.deps).catch((e: unknown) => e);
    expect(error).toMatchObject({ rule: expect.stringMatching(/^rehome\./) });
    expect(w.engine.volumes.has(`byre-${oldId}-state`)).toBe(true);
    expect(w.engine.callsTo('run')).toEqual([]);
  });
});

describe('byre rehome in a directory whose own identity changed (adr/0047)', () => {
  /** A main checkout beside the project directory; the directory's identity recorded now. */
  async function recorded(): Promise<string> {
    const main = path.join(w.tmp, 'main');
    mkdirSync(path.join(main, '.git'), { recursive: true });
    await recordIdentity(w.home, await resolveProjectContext(w.dir, { BYRE_HOME: w.home }));
    return main;
  }

  it('with no id, explains the change on stderr and changes nothing, asking no engine', async () => {
    const main = await recorded();
    const old = projectIdFor(w.dir);
    makeWorktreeOf(main, w.dir);
    await rehomeCommand(w.io, undefined, w.deps);
    expect(w.io.out).toBe('');
    expect(w.io.err).toContain(old);
    expect(w.io.err).toMatch(/byre rehome/);
    expect(w.engine.calls).toEqual([]);
    expect(existsSync(path.join(w.home, 'projects', old, 'path'))).toBe(true);
  });

  it('a project root that became a worktree: its old id rehomed onto the main checkout, on the given pool', async () => {
    const main = await recorded();
    const old = projectIdFor(w.dir);
    writeFileSync(path.join(w.home, 'projects', old, 'byre.config'), 'agent = "none"\n');
    w.engine.volumes.set(`byre-${old}-state`, { [LABEL.project]: old });
    w.engine.images.set(`byre-${old}-u1000-g1000`, {
      id: 'sha256:1',
      labels: { [LABEL.project]: old },
    });
    makeWorktreeOf(main, w.dir);
    await rehomeCommand(w.io, old, w.deps);
    const id = projectIdFor(main);
    expect(w.engine.volumes.has(`byre-${id}-state`)).toBe(true);
    expect(w.engine.volumes.has(`byre-${old}-state`)).toBe(false);
    expect(existsSync(path.join(w.home, 'projects', old))).toBe(false);
  });

  it('a worktree that became its own project leaves its project: config copied, no engine asked', async () => {
    const main = path.join(w.tmp, 'main');
    mkdirSync(path.join(main, '.git'), { recursive: true });
    makeWorktreeOf(main, w.dir);
    const project = projectIdFor(main);
    await recordIdentity(w.home, await resolveProjectContext(w.dir, { BYRE_HOME: w.home }));
    writeFileSync(path.join(w.home, 'projects', project, 'byre.config'), 'agent = "none"\n');
    rmSync(path.join(w.dir, '.git'));
    mkdirSync(path.join(w.dir, '.git'));
    await rehomeCommand(w.io, project, w.deps);
    const own = projectIdFor(w.dir);
    expect(readFileSync(path.join(w.home, 'projects', own, 'byre.config'), 'utf8')).toBe(
      'agent = "none"\n',
    );
    // The project it left keeps its config; nothing moved on an engine.
    expect(existsSync(path.join(w.home, 'projects', project, 'byre.config'))).toBe(true);
    expect(w.engine.calls).toEqual([]);
  });
});
