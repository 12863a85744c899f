import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { EnginePool } from '../engine/pool.js';
import type { Io } from '../io.js';
import { EngineError, EXIT } from '../errors.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { projectIdFor } from '../project/identity.js';
import { createIdentity, sealInjected } from '../credentials/seal.js';
import { recordProjectPath } from '../project/store.js';
import { projectStorePaths, storeTag } from '../project/store-layout.js';
import { doctorCommand, projectState } from './doctor.js';

let root: string;
let home: string;
let err: string[];
let tag: string;

function io(stdinIsTty = false): Io {
  return {
    stdout: { write: () => true },
    stderr: { write: (s: string) => err.push(s) },
    cwd: root,
    env: { BYRE_HOME: home },
    stdinIsTty,
    stdoutIsTty: false,
    uid: 1000,
    gid: 1000,
    pid: 1,
  };
}

function poolOf(...members: FakeEngine[]): EnginePool {
  return {
    members: members.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

/** A project recorded in the store at `dir`; `keepDir` false removes the directory again. */
async function project(name: string, keepDir: boolean): Promise<string> {
  const dir = path.join(root, name);
  mkdirSync(dir);
  const id = projectIdFor(dir);
  await recordProjectPath(home, id, dir);
  if (!keepDir) rmSync(dir, { recursive: true });
  return id;
}

const GONE = 'gone-project-abcdef';

/** One engine with every kind of object doctor must judge. */
async function planted(): Promise<{
  e: FakeEngine;
  live: string;
  moved: string;
  ids: Record<string, string>;
}> {
  const live = await project('live', true);
  const moved = await project('moved', false);
  const e = new FakeEngine();
  const mine = (p: string) => ({ 'byre.project': p, 'byre.store': tag });
  const stopped = e.addContainer({ name: 'byre-gone', labels: mine(GONE), running: false });
  const running = e.addContainer({ name: 'byre-moved', labels: mine(moved), running: true });
  const liveBox = e.addContainer({ name: 'byre-live', labels: mine(live), running: false });
  const stranger = e.addContainer({ name: 'web', labels: { app: 'web' }, running: false });
  e.volumes.set(`byre-${moved}-state`, mine(moved));
  e.volumes.set(`byre-${GONE}-cache`, mine(GONE));
  e.volumes.set(`byre-${live}-state`, mine(live));
  e.volumes.set(`byre-${GONE}-theirs`, { 'byre.project': GONE, 'byre.store': 'f'.repeat(16) });
  e.volumes.set(`byre-${GONE}-old`, { 'byre.project': GONE });
  e.volumes.set('byre-machine-u1000-auth', { 'byre.machine': '1' });
  e.volumes.set('pgdata', {});
  e.images.set(`byre-${moved}-u1000-g1000`, { id: 'sha256:1', labels: mine(moved) });
  e.images.set(`byre-${live}-u1000-g1000`, { id: 'sha256:2', labels: mine(live) });
  e.images.set('debian:bookworm', { id: 'sha256:3', labels: {} });
  return {
    e,
    live,
    moved,
    ids: { stopped: stopped.id, running: running.id, liveBox: liveBox.id, stranger: stranger.id },
  };
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-doctor-')));
  home = path.join(root, 'home');
  mkdirSync(home);
  tag = storeTag(home);
  err = [];
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('projectState', () => {
  it('tells present, moved and forgotten projects apart', async () => {
    const live = await project('a', true);
    const moved = await project('b', false);
    mkdirSync(path.join(home, 'projects', 'norecord-123456'), { recursive: true });
    expect(projectState(home, live)).toEqual({ state: 'present' });
    expect(projectState(home, moved)).toEqual({ state: 'path_gone', path: path.join(root, 'b') });
    expect(projectState(home, GONE)).toEqual({ state: 'store_gone' });
    // A store without a path record proves nothing gone.
    expect(projectState(home, 'norecord-123456')).toEqual({ state: 'present' });
    expect(projectState(home, '../etc')).toEqual({ state: 'store_gone' });
  });

  it('reads a path record never through a link and never waiting on a FIFO: either proves nothing gone', async () => {
    const piped = await project('piped', false);
    const record = path.join(home, 'projects', piped, 'path');
    rmSync(record);
    execFileSync('mkfifo', [record]);
    expect(projectState(home, piped)).toEqual({ state: 'present' });
    const linked = await project('linked', false);
    const planted = path.join(root, 'planted');
    writeFileSync(planted, path.join(root, 'never-there'));
    const linkRecord = path.join(home, 'projects', linked, 'path');
    rmSync(linkRecord);
    symlinkSync(planted, linkRecord);
    expect(projectState(home, linked)).toEqual({ state: 'present' });
  });
});

describe('byre doctor --prune', () => {
  it('removes exactly this store’s objects of gone projects, never a running box', async () => {
    const { e, live, moved, ids } = await planted();
    await doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(e) });
    expect([...e.containers.keys()].sort()).toEqual(
      [ids.running, ids.liveBox, ids.stranger].sort(),
    );
    expect([...e.volumes.keys()].sort()).toEqual(
      [
        `byre-${live}-state`,
        `byre-${GONE}-theirs`,
        `byre-${GONE}-old`,
        'byre-machine-u1000-auth',
        'pgdata',
      ].sort(),
    );
    expect([...e.images.keys()].sort()).toEqual([`byre-${live}-u1000-g1000`, 'debian:bookworm']);
    const said = err.join('');
    expect(said).toContain(`removed docker volume byre-${moved}-state`);
    expect(said).toContain(
      `its directory ${path.join(root, 'moved')} is gone; running, left alone`,
    );
    expect(said).toContain(
      'left alone: 1 byre object(s) of another store, 1 without a store label',
    );
  });

  it('removes a killed session’s edge after the box that joins its network (podman refuses it before)', async () => {
    const e = new FakeEngine({ name: 'podman' });
    const edge = e.addContainer({
      name: 'byre-edge-1',
      labels: { 'byre.project': '', 'byre.helper': GONE, 'byre.store': tag },
      running: false,
    });
    const box = e.addContainer({
      name: 'byre-gone',
      labels: { 'byre.project': GONE, 'byre.store': tag },
      running: false,
      networkMode: `container:${edge.id}`,
    });
    await doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(e) });
    expect(e.containers.size).toBe(0);
    expect(e.callsTo('remove').map(([id]) => id)).toEqual([edge.id, box.id, edge.id]);
  });

  it('asks for --yes off a terminal and removes nothing', async () => {
    const { e } = await planted();
    const before = [...e.volumes.keys()];
    await expect(doctorCommand(io(), { prune: true }, { pool: poolOf(e) })).rejects.toMatchObject({
      exitCode: EXIT.usage,
      rule: 'confirm.needs-yes',
    });
    expect([...e.volumes.keys()]).toEqual(before);
  });

  it('removes nothing when the answer is no', async () => {
    const { e } = await planted();
    const before = [...e.volumes.keys()];
    await expect(
      doctorCommand(io(true), { prune: true }, { pool: poolOf(e), confirm: async () => false }),
    ).rejects.toMatchObject({ rule: 'doctor.prune-cancelled' });
    expect([...e.volumes.keys()]).toEqual(before);
    expect(e.callsTo('remove')).toEqual([]);
  });

  it('goes on past a failed removal and then fails with the engine’s reason', async () => {
    const { e, moved } = await planted();
    e.failNext(
      'volumeRemove',
      new EngineError('docker volume rm failed (exit 1)', {
        engine: 'docker',
        argv: ['volume', 'rm'],
        stderr: 'Error: volume is in use - [abc]\n',
      }),
    );
    await expect(
      doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(e) }),
    ).rejects.toMatchObject({
      rule: 'doctor.prune-incomplete',
      message: expect.stringContaining('volume is in use'),
    });
    // The first volume failed; the second and the image still went.
    expect(e.volumes.has(`byre-${GONE}-cache`)).toBe(true);
    expect(e.volumes.has(`byre-${moved}-state`)).toBe(false);
    expect(e.images.has(`byre-${moved}-u1000-g1000`)).toBe(false);
  });

  it('prunes what it can reach and then says which engine it could not ask', async () => {
    const { e } = await planted();
    const podman = new FakeEngine({ name: 'podman' });
    podman.failNext(
      'psLabels',
      new EngineError('podman is not answering', {
        engine: 'podman',
        argv: ['ps'],
        rule: 'engine.unreachable',
      }),
    );
    await expect(
      doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(e, podman) }),
    ).rejects.toMatchObject({
      rule: 'doctor.prune-incomplete',
      message: expect.stringContaining('podman'),
    });
    expect(e.volumes.has(`byre-${GONE}-cache`)).toBe(false);
  });

  it('spares an object whose project came back after the listing', async () => {
    const { e, moved } = await planted();
    const confirm = async (): Promise<boolean> => {
      mkdirSync(path.join(root, 'moved'));
      return true;
    };
    await doctorCommand(io(true), { prune: true }, { pool: poolOf(e), confirm });
    expect(e.volumes.has(`byre-${moved}-state`)).toBe(true);
    expect(e.volumes.has(`byre-${GONE}-cache`)).toBe(false);
    expect(err.join('')).toContain(`project ${moved} is back`);
  });

  describe('a deleted project’s store folder (config, build log, launch records)', () => {
    const folder = (id: string): string => path.join(home, 'projects', id);

    it('is listed and removed with its objects after the same confirmation', async () => {
      const gone = await project('deleted', false);
      const e = new FakeEngine();
      e.volumes.set(`byre-${gone}-state`, { 'byre.project': gone, 'byre.store': tag });
      const asked: string[] = [];
      const confirm = async (q: string): Promise<boolean> => {
        asked.push(q);
        return true;
      };
      await doctorCommand(io(true), { prune: true }, { pool: poolOf(e), confirm });
      expect(asked).toEqual(['Remove these 1 object(s) and 1 store folder(s)?']);
      expect(err.join('')).toContain(
        `  store folder ${folder(gone)}  (project ${gone}: its directory ${path.join(root, 'deleted')} is gone)\n`,
      );
      expect(existsSync(folder(gone))).toBe(false);
      expect(e.volumes.size).toBe(0);
      expect(err.join('')).toContain(`removed store folder ${folder(gone)}`);
    });

    it('is pruned alone when no engine object is left, and a live project’s stays', async () => {
      const gone = await project('deleted', false);
      const live = await project('kept', true);
      // The wiring rootless podman's boxes bound (adr/0075) and the edge's
      // certificates (adr/0070) go with its folder.
      const beside = (kind: string, id: string): string => path.join(home, kind, id);
      // `edge/<id>.image`: the edge image's staged context (adr/0077).
      const kinds = ['wiring', 'edge', 'receipts'];
      for (const kind of kinds) {
        mkdirSync(beside(kind, gone), { recursive: true });
        mkdirSync(beside(kind, live), { recursive: true });
      }
      mkdirSync(beside('edge', `${gone}.image`));
      mkdirSync(beside('edge', `${live}.image`));
      await doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(new FakeEngine()) });
      expect(existsSync(folder(gone))).toBe(false);
      expect(existsSync(folder(live))).toBe(true);
      expect(existsSync(beside('edge', `${gone}.image`))).toBe(false);
      expect(existsSync(beside('edge', `${live}.image`))).toBe(true);
      for (const kind of kinds) {
        expect(existsSync(beside(kind, gone))).toBe(false);
        expect(existsSync(beside(kind, live))).toBe(true);
      }
    });

    it('stays when the answer is no', async () => {
      const gone = await project('deleted', false);
      await expect(
        doctorCommand(
          io(true),
          { prune: true },
          { pool: poolOf(new FakeEngine()), confirm: async () => false },
        ),
      ).rejects.toMatchObject({ rule: 'doctor.prune-cancelled' });
      expect(existsSync(folder(gone))).toBe(true);
    });

    it('stays while a box of its project runs, or an engine could not be asked', async () => {
      const { e, moved } = await planted();
      await doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(e) });
      expect(existsSync(folder(moved))).toBe(true);
      expect(err.join('')).toContain(
        `kept store folder ${folder(moved)}: an object of its project`,
      );

      err = [];
      const gone = await project('deleted', false);
      const podman = new FakeEngine({ name: 'podman' });
      podman.failNext(
        'psLabels',
        new EngineError('podman is not answering', { engine: 'podman', argv: ['ps'] }),
      );
      await expect(
        doctorCommand(io(), { prune: true, yes: true }, { pool: poolOf(podman) }),
      ).rejects.toMatchObject({ rule: 'doctor.prune-incomplete' });
      expect(existsSync(folder(gone))).toBe(true);
      expect(err.join('')).toContain(
        `kept store folder ${folder(gone)}: podman could not be asked`,
      );
    });

    it('is spared when its directory came back after the listing', async () => {
      const gone = await project('deleted', false);
      const confirm = async (): Promise<boolean> => {
        mkdirSync(path.join(root, 'deleted'));
        return true;
      };
      await doctorCommand(io(true), { prune: true }, { pool: poolOf(new FakeEngine()), confirm });
      expect(existsSync(folder(gone))).toBe(true);
      expect(err.join('')).toContain(`project ${gone} is back`);
    });
  });

  it('says so when there is nothing to prune', async () => {
    await doctorCommand(io(), { prune: true }, { pool: poolOf(new FakeEngine()) });
    expect(err.join('')).toContain('no leftovers to prune');
  });

  it.each([
    [{ prune: true, data: true }, 'doctor.flags-exclusive'],
    [{ yes: true }, 'doctor.yes-without-prune'],
  ])('%j is a usage error', async (options, rule) => {
    await expect(doctorCommand(io(), options, { pool: poolOf() })).rejects.toMatchObject({
      exitCode: EXIT.usage,
      rule,
    });
  });
});

describe('byre doctor: its engine, disk and base image rows on the fake engine', () => {
  let bin: string;
  beforeEach(() => {
    // Outside the project: a CLI the box could write is declined before it is asked.
    bin = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-doctor-bin-')));
    for (const name of ['docker', 'podman'])
      writeFileSync(path.join(bin, name), '', { mode: 0o755 });
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  /** `doctor --data` with docker answering as `engine` and podman unusable; its checks by id. */
  async function checks(
    engine: FakeEngine,
  ): Promise<Record<string, { verdict: string; found: string }>> {
    const out: string[] = [];
    const base = io();
    await doctorCommand(
      { ...base, stdout: { write: (s: string) => out.push(s) }, env: { ...base.env, PATH: bin } },
      { data: true },
      {
        pool: poolOf(engine),
        detect: async (choice) => {
          if (choice !== 'docker')
            throw new EngineError('podman does not answer', { engine: 'podman', argv: ['info'] });
          return engine.facts;
        },
        createEngine: () => engine,
      },
    ).catch(() => undefined);
    const data = JSON.parse(out.join('')) as {
      checks: { id: string; verdict: string; found: string }[];
    };
    return Object.fromEntries(data.checks.map((c) => [c.id, c]));
  }

  const cases: [string, (e: FakeEngine) => void, string, RegExp][] = [
    [
      'on this engine',
      (e) => e.images.set('debian:bookworm', { id: 'sha256:b', labels: {} }),
      'ok',
      /present on docker/,
    ],
    ['in its registry', (e) => e.registry.add('debian:bookworm'), 'ok', /pull/],
    ['nowhere', () => undefined, 'fail', /manifest unknown/],
  ];
  it.each(cases)('the base image %s', async (_, plant, verdict, found) => {
    const engine = new FakeEngine({ path: path.join(bin, 'docker') });
    engine.storage = { root, remote: false };
    plant(engine);
    const c = await checks(engine);
    expect(c['engine.docker']?.verdict).toBe('ok');
    expect(c['engine.podman']?.verdict).not.toBe('ok');
    expect(c['base.image']).toMatchObject({ verdict });
    expect(c['base.image']?.found).toMatch(found);
    expect(c['disk.docker']).toMatchObject({ verdict: 'ok' });
    // No injection, no edge image to build: no row for its base.
    expect(c['edge.base']).toBeUndefined();
  });

  it.each<[string, (e: FakeEngine) => void, string, RegExp]>([
    [
      'on this engine',
      (e) => e.images.set('debian:bookworm-slim', { id: 'sha256:s', labels: {} }),
      'ok',
      /^debian:bookworm-slim is present on docker$/,
    ],
    [
      'in its registry',
      (e) => e.registry.add('debian:bookworm-slim'),
      'ok',
      /the first develop that injects pulls it/,
    ],
    [
      'nowhere',
      () => undefined,
      'fail',
      /^debian:bookworm-slim is not on docker and cannot be pulled/,
    ],
  ])(
    "the edge image's base %s, for a config that injects (adr/0077)",
    async (_, plant, verdict, found) => {
      const { table } = await createIdentity('passphrase', 10);
      const rules = [
        {
          hosts: [{ name: 'api.example.com', port: 443 }],
          presentation: { kind: 'bearer' as const },
        },
      ];
      const row = await sealInjected(table.recipient, 'API_KEY', rules, Buffer.from('sk-test'));
      const config = projectStorePaths(home, projectIdFor(root)).config;
      mkdirSync(path.dirname(config), { recursive: true });
      writeFileSync(
        config,
        `[env_from_host]\nAPI_KEY = "${row}"\n\n[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbearer = true\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`,
      );
      const engine = new FakeEngine({ path: path.join(bin, 'docker') });
      engine.storage = { root, remote: false };
      engine.images.set('debian:bookworm', { id: 'sha256:b', labels: {} });
      plant(engine);
      const c = await checks(engine);
      expect(c['base.image']).toMatchObject({ verdict: 'ok' });
      expect(c['edge.base']).toMatchObject({ verdict });
      expect(c['edge.base']?.found).toMatch(found);
    },
  );
});
