import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { makeWorktreeOf } from '../../test/support/git-shapes.js';
import { useTempDir } from '../../test/support/temp.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import { ConfigError } from '../errors.js';
import { resolveProjectContext } from '../project/context.js';
import { projectIdFor } from '../project/identity.js';
import { recordIdentity, recordedIdentities } from '../project/identity-record.js';
import { recordProjectPath } from '../project/store.js';
import { storeTag } from '../project/store-layout.js';
import type { EnginePool } from '../engine/pool.js';
import {
  chooseHelperImage,
  listRehomeCandidates,
  migrateVolumeArgv,
  rehomeProject,
} from './rehome-project.js';

let root: string;
let home: string;

useTempDir('rehome', (tmp) => {
  root = tmp;
  home = path.join(root, 'home');
  mkdirSync(home);
});

/** A stored project whose directory existed at `dir`; `gone` removes the directory again. */
async function stored(
  name: string,
  gone: boolean,
  mtime?: number,
): Promise<{ id: string; dir: string }> {
  const dir = path.join(root, name);
  mkdirSync(dir);
  const id = projectIdFor(dir);
  await recordProjectPath(home, id, dir);
  if (mtime !== undefined) utimesSync(path.join(home, 'projects', id, 'path'), mtime, mtime);
  if (gone) rmSync(dir, { recursive: true });
  return { id, dir };
}

describe('listRehomeCandidates', () => {
  it('lists ids whose recorded path is gone, most recent first, skipping this one', async () => {
    const older = await stored('older', true, 1_000);
    const newer = await stored('newer', true, 2_000);
    await stored('alive', false);
    const self = await stored('self', true, 3_000);
    mkdirSync(path.join(home, 'projects', 'not an id'));
    const got = await listRehomeCandidates(path.join(home, 'projects'), self.id);
    expect(got.map((c) => [c.id, c.path])).toEqual([
      [newer.id, newer.dir],
      [older.id, older.dir],
    ]);
  });

  it('skips a path record byre did not write: a FIFO (never waited on) and a link', async () => {
    const piped = await stored('piped', true);
    const linked = await stored('linked', true);
    const fifoRecord = path.join(home, 'projects', piped.id, 'path');
    rmSync(fifoRecord);
    execFileSync('mkfifo', [fifoRecord]);
    const planted = path.join(root, 'planted');
    writeFileSync(planted, `${path.join(root, 'gone-elsewhere')}\n`);
    const linkRecord = path.join(home, 'projects', linked.id, 'path');
    rmSync(linkRecord);
    symlinkSync(planted, linkRecord);
    expect(await listRehomeCandidates(path.join(home, 'projects'), 'x')).toEqual([]);
  });

  it('an absent store lists nothing', async () => {
    expect(await listRehomeCandidates(path.join(root, 'nope'), 'x')).toEqual([]);
  });
});

describe('pure pieces', () => {
  it('builds the cp -a helper, with keep-id when the engine needs it', () => {
    // The root sh helper's head (network-less, copying capabilities only) is pinned in argv.test.ts.
    expect(migrateVolumeArgv('O', 'N', 'img', true)).toEqual([
      ...rootShellHelperArgv(true),
      '--mount',
      'type=volume,source=O,target=/from',
      '--mount',
      'type=volume,source=N,target=/to',
      'img',
      '-c',
      'cp -a /from/. /to/',
    ]);
    expect(migrateVolumeArgv('O', 'N', 'img', false)).not.toContain(
      '--userns=keep-id:uid=1000,gid=1000',
    );
  });

  it('prefers the old image, then the new, then a LOCAL debian, else none', () => {
    expect(chooseHelperImage(['sha256:9', 'old:latest'], ['new:latest'], true)).toBe('old:latest');
    expect(chooseHelperImage([], ['new:latest'], true)).toBe('new:latest');
    expect(chooseHelperImage([], [], true)).toBe('debian:bookworm');
    expect(chooseHelperImage([], [], false)).toBeNull();
  });
});

describe('rehomeProject', () => {
  async function setup(): Promise<{
    oldId: string;
    dir: string;
    engine: FakeEngine;
    pool: EnginePool;
  }> {
    const old = await stored('before', true);
    writeFileSync(path.join(home, 'projects', old.id, 'byre.config'), 'agent = "none"\n');
    const dir = path.join(root, 'after');
    mkdirSync(dir);
    const engine = new FakeEngine();
    engine.volumes.set(`byre-${old.id}-state`, { 'byre.project': old.id });
    engine.volumes.set('byre-machine-u0-auth', { 'byre.machine': '1' });
    engine.images.set(`byre-${old.id}-u0-g0`, {
      id: 'sha256:1',
      labels: { 'byre.project': old.id },
    });
    return {
      oldId: old.id,
      dir,
      engine,
      pool: { members: [{ name: 'docker', state: 'ok', engine }] },
    };
  }
  const err: string[] = [];
  const stderr = { write: (s: string) => err.push(s) };

  it('copies volumes, moves the config, records the path, retires the old id', async () => {
    const { oldId, dir, engine, pool } = await setup();
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    // The wiring the old id's boxes bound on rootless podman (adr/0075) and
    // its edge certificates (adr/0070) go with it.
    const oldWiring = path.join(home, 'wiring', oldId);
    const oldEdge = path.join(home, 'edge', oldId);
    mkdirSync(path.join(oldWiring, 'abc'), { recursive: true });
    mkdirSync(oldEdge, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(oldEdge, 'ca.crt'), 'x', { mode: 0o600 });
    // Its delivery receipts name the old boxes' launches.
    const oldReceipts = path.join(home, 'receipts', oldId);
    mkdirSync(oldReceipts, { recursive: true, mode: 0o700 });
    await rehomeProject({ ctx, oldId, pool, stderr });
    expect(existsSync(oldWiring)).toBe(false);
    expect(existsSync(oldEdge)).toBe(false);
    expect(existsSync(oldReceipts)).toBe(false);
    const newVol = `byre-${ctx.projectId}-state`;
    expect(engine.volumes.get(newVol)).toEqual({
      'byre.project': ctx.projectId,
      'byre.store': storeTag(home),
    });
    expect(engine.callsTo('run')[0]?.[0]).toEqual(
      migrateVolumeArgv(`byre-${oldId}-state`, newVol, `byre-${oldId}-u0-g0:latest`, false),
    );
    expect(engine.volumes.has(`byre-${oldId}-state`)).toBe(false);
    expect(engine.volumes.has('byre-machine-u0-auth')).toBe(true);
    expect(engine.images.size).toBe(0);
    expect(readFileSync(ctx.project.config, 'utf8')).toBe('agent = "none"\n');
    expect(readFileSync(ctx.project.path, 'utf8')).toBe(`${dir}\n`);
    expect(existsSync(path.join(home, 'projects', oldId))).toBe(false);
  });

  it('renames each volume onto the new id, the rest of its name kept', async () => {
    const { oldId, dir, engine, pool } = await setup();
    engine.volumes.set(`byre-${oldId}-x-state`, { 'byre.project': oldId });
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await rehomeProject({ ctx, oldId, pool, stderr });
    expect(engine.volumes.has(`byre-${ctx.projectId}-x-state`)).toBe(true);
    expect(engine.volumes.has(`byre-${oldId}-x-state`)).toBe(false);
  });

  it('will not rename a volume labelled with the old id but named for another', async () => {
    const { oldId, dir, engine, pool } = await setup();
    engine.volumes.set('byre-c-123456-state', { 'byre.project': oldId });
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await expect(rehomeProject({ ctx, oldId, pool, stderr })).rejects.toThrow(RangeError);
    expect(engine.callsTo('run')).toEqual([]);
  });

  it('a store file both ids hold with the same bytes, or only the old id, is no conflict', async () => {
    const { oldId, dir, pool } = await setup();
    writeFileSync(path.join(home, 'projects', oldId, 'applied'), 'a');
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await recordProjectPath(home, ctx.projectId, dir);
    writeFileSync(ctx.project.config, 'agent = "none"\n');
    await rehomeProject({ ctx, oldId, pool, stderr });
    expect(readFileSync(ctx.project.config, 'utf8')).toBe('agent = "none"\n');
    expect(readFileSync(path.join(ctx.project.dir, 'applied'), 'utf8')).toBe('a');
  });

  it('a conflict is a store file both ids hold with different bytes', async () => {
    const { oldId, dir, engine, pool } = await setup();
    writeFileSync(path.join(home, 'projects', oldId, 'applied'), 'a');
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await recordProjectPath(home, ctx.projectId, dir);
    writeFileSync(path.join(ctx.project.dir, 'applied'), 'b');
    await expect(rehomeProject({ ctx, oldId, pool, stderr })).rejects.toMatchObject({
      rule: 'rehome.config-conflict',
      message: expect.stringContaining(path.join(ctx.project.dir, 'applied')),
    });
    expect(engine.callsTo('run')).toEqual([]);
  });

  it('refuses an old byre.config the loader rejects, at that file, before copying anything', async () => {
    const { oldId, dir, engine, pool } = await setup();
    const oldConfig = path.join(home, 'projects', oldId, 'byre.config');
    writeFileSync(oldConfig, 'agent = 5\n');
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    const refused = await rehomeProject({ ctx, oldId, pool, stderr }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).issues[0]?.location).toMatchObject({
      file: oldConfig,
      line: 1,
    });
    expect(engine.callsTo('run')).toEqual([]);
    expect(existsSync(ctx.project.config)).toBe(false);
    expect(readFileSync(oldConfig, 'utf8')).toBe('agent = 5\n');
  });

  it('refuses a differing byre.config at the new id, naming the file', async () => {
    const { oldId, dir, engine, pool } = await setup();
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await recordProjectPath(home, ctx.projectId, dir);
    writeFileSync(ctx.project.config, 'agent = "other"\n');
    await expect(rehomeProject({ ctx, oldId, pool, stderr })).rejects.toMatchObject({
      rule: 'rehome.config-conflict',
      exitCode: 3,
      message: expect.stringContaining(ctx.project.config),
    });
    expect(engine.callsTo('run')).toEqual([]);
  });

  it('refuses when the old directory still exists, and while either id is live', async () => {
    const alive = await stored('alive', false);
    const dir = path.join(root, 'elsewhere');
    mkdirSync(dir);
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    const engine = new FakeEngine();
    const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine }] };
    await expect(rehomeProject({ ctx, oldId: alive.id, pool, stderr })).rejects.toMatchObject({
      rule: 'rehome.not-moved',
      exitCode: 1,
    });
    const s = await setup();
    s.engine.addContainer({ name: 'byre-new', labels: { 'byre.project': projectIdFor(s.dir) } });
    const ctx2 = await resolveProjectContext(s.dir, { BYRE_HOME: home });
    await expect(
      rehomeProject({ ctx: ctx2, oldId: s.oldId, pool: s.pool, stderr }),
    ).rejects.toMatchObject({
      rule: 'rehome.session-live',
      exitCode: 3,
    });
  });

  it('refuses without a local image for the helper, before changing anything', async () => {
    const { oldId, dir, engine, pool } = await setup();
    engine.images.clear();
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await expect(rehomeProject({ ctx, oldId, pool, stderr })).rejects.toMatchObject({
      rule: 'rehome.no-helper-image',
    });
    expect(engine.volumes.has(`byre-${oldId}-state`)).toBe(true);
    expect(existsSync(ctx.project.dir)).toBe(false);
  });

  it('keeps the old store and fails when an engine could not be reached', async () => {
    const { oldId, dir, engine } = await setup();
    const pool: EnginePool = {
      members: [
        { name: 'docker', state: 'ok', engine },
        { name: 'podman', state: 'declined', path: '/x/podman', root: '/x' },
      ],
    };
    const ctx = await resolveProjectContext(dir, { BYRE_HOME: home });
    await expect(rehomeProject({ ctx, oldId, pool, stderr })).rejects.toMatchObject({
      rule: 'rehome.incomplete',
    });
    expect(existsSync(path.join(home, 'projects', oldId, 'byre.config'))).toBe(true);
    expect(engine.volumes.has(`byre-${ctx.projectId}-state`)).toBe(true);
  });
});

describe('rehome settles a directory whose own identity changed (adr/0047)', () => {
  const err: string[] = [];
  const stderr = { write: (s: string) => err.push(s) };
  const env = (): Record<string, string> => ({ BYRE_HOME: home });

  it('a project root that became a worktree: rehomed in place, its config carried, the change settled', async () => {
    const m = path.join(root, 'm');
    mkdirSync(path.join(m, '.git'), { recursive: true });
    const w = path.join(root, 'w');
    mkdirSync(path.join(w, '.git'), { recursive: true });
    const old = projectIdFor(w);
    await recordIdentity(home, await resolveProjectContext(w, env()));
    writeFileSync(path.join(home, 'projects', old, 'byre.config'), 'skills = ["firewall"]\n');
    makeWorktreeOf(m, w);
    const ctx = await resolveProjectContext(w, env(), { identityChange: 'report' });
    expect(ctx.identityChange?.recorded.projectId).toBe(old);
    const engine = new FakeEngine();
    engine.volumes.set(`byre-${old}-state`, { 'byre.project': old });
    engine.images.set(`byre-${old}-u0-g0`, { id: 'sha256:1', labels: { 'byre.project': old } });
    const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine }] };
    await rehomeProject({ ctx, oldId: old, pool, stderr });
    expect(readFileSync(ctx.project.config, 'utf8')).toBe('skills = ["firewall"]\n');
    expect(engine.volumes.has(`byre-${projectIdFor(m)}-state`)).toBe(true);
    expect(existsSync(path.join(home, 'projects', old))).toBe(false);
    await expect(resolveProjectContext(w, env())).resolves.toMatchObject({
      projectId: projectIdFor(m),
      identityChange: null,
    });
  });

  it('a worktree that became its own project leaves: the old config copied, nothing moved, settled', async () => {
    const m = path.join(root, 'm');
    mkdirSync(path.join(m, '.git'), { recursive: true });
    const w = path.join(root, 'w');
    mkdirSync(w);
    makeWorktreeOf(m, w);
    const project = projectIdFor(m);
    await recordIdentity(home, await resolveProjectContext(w, env()));
    writeFileSync(path.join(home, 'projects', project, 'byre.config'), 'skills = ["firewall"]\n');
    rmSync(path.join(w, '.git'));
    mkdirSync(path.join(w, '.git'));
    const ctx = await resolveProjectContext(w, env(), { identityChange: 'report' });
    await rehomeProject({ ctx, oldId: project, pool: { members: [] }, stderr });
    expect(readFileSync(ctx.project.config, 'utf8')).toBe('skills = ["firewall"]\n');
    expect(existsSync(path.join(home, 'projects', project, 'byre.config'))).toBe(true);
    expect(recordedIdentities(home, w)).toEqual([
      { projectId: projectIdFor(w), as: 'project', file: ctx.project.path },
    ]);
    await expect(resolveProjectContext(w, env())).resolves.toMatchObject({
      identityChange: null,
    });
  });

  it('refuses any other id while this directory’s own change is unsettled', async () => {
    const gone = await stored('gone', true);
    const m = path.join(root, 'm');
    mkdirSync(path.join(m, '.git'), { recursive: true });
    const w = path.join(root, 'w');
    mkdirSync(w);
    makeWorktreeOf(m, w);
    await recordIdentity(home, await resolveProjectContext(w, env()));
    rmSync(path.join(w, '.git'));
    const ctx = await resolveProjectContext(w, env(), { identityChange: 'report' });
    await expect(
      rehomeProject({ ctx, oldId: gone.id, pool: { members: [] }, stderr }),
    ).rejects.toMatchObject({ rule: 'project.identity-changed', exitCode: 3 });
  });

  it('a moved main checkout takes its worktrees’ records along', async () => {
    const { oldId, dir, pool } = await (async () => {
      const old = await stored('before', true);
      const after = path.join(root, 'after');
      mkdirSync(after);
      const engine = new FakeEngine();
      engine.images.set(`byre-${old.id}-u0-g0`, {
        id: 'sha256:1',
        labels: { 'byre.project': old.id },
      });
      return {
        oldId: old.id,
        dir: after,
        pool: { members: [{ name: 'docker' as const, state: 'ok' as const, engine }] },
      };
    })();
    const wt = path.join(root, 'wt');
    await recordIdentity(home, {
      projectId: oldId,
      projectRoot: path.join(root, 'before'),
      worktreeDir: wt,
      worktreeId: projectIdFor(wt),
      isLinkedWorktree: true,
    });
    const ctx = await resolveProjectContext(dir, env());
    await rehomeProject({ ctx, oldId, pool, stderr });
    expect(recordedIdentities(home, wt).map((r) => r.projectId)).toEqual([ctx.projectId]);
  });
});
