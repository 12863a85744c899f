import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgetCommand } from '../commands/forget.js';
import { teardown } from './teardown.js';
import { resetCommand } from '../commands/reset.js';
import { EngineError } from '../errors.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectIdFor } from '../project/identity.js';
import { recordProjectPath } from '../project/store.js';
import type { EnginePool } from '../engine/pool.js';

let root: string;
let dir: string;
let home: string;
let id: string;
let io: FakeIo;

function poolOf(...members: FakeEngine[]): EnginePool {
  return {
    members: members.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

function seeded(name: 'docker' | 'podman' = 'docker'): FakeEngine {
  const e = new FakeEngine({ name });
  e.volumes.set(`byre-${id}-state`, { 'byre.project': id });
  e.volumes.set(`byre-${id}-cache`, {});
  e.volumes.set(`byre-${id}-x-ffffff-state`, { 'byre.project': `${id}-x-ffffff` });
  e.volumes.set('byre-machine-u1000-auth', { 'byre.machine': '1' });
  e.volumes.set('byre-other-123456-state', { 'byre.project': 'other-123456' });
  e.images.set(`byre-${id}-u1000-g1000`, { id: 'sha256:1', labels: { 'byre.project': id } });
  e.images.set('debian:bookworm', { id: 'sha256:2', labels: {} });
  return e;
}

useTempDir('teardown', async (tmp) => {
  root = tmp;
  dir = path.join(root, 'proj');
  home = path.join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  id = projectIdFor(dir);
  await recordProjectPath(home, id, dir);
  writeFileSync(path.join(home, 'projects', id, 'byre.config'), 'agent = "none"\n');
  io = fakeIo({ cwd: dir, env: { BYRE_HOME: home } });
});

describe('reset', () => {
  it('wipes only this project’s volumes, names machine ones as left alone, keeps the image', async () => {
    const e = seeded();
    await resetCommand(io, { force: true }, { pool: poolOf(e) });
    expect([...e.volumes.keys()].sort()).toEqual(
      [`byre-${id}-x-ffffff-state`, 'byre-machine-u1000-auth', 'byre-other-123456-state'].sort(),
    );
    expect(e.images.has(`byre-${id}-u1000-g1000`)).toBe(true);
    const text = io.err;
    expect(text).toContain(
      'left alone (machine-scoped, shared by every project): byre-machine-u1000-auth',
    );
    expect(text).toContain(`docker volume byre-${id}-state`);
    expect(existsSync(path.join(home, 'projects', id))).toBe(true);
    // It confirms what it removed, item by item, after it removed it.
    const confirmation = text.slice(text.indexOf('byre: reset removed'));
    expect(confirmation).toBe(
      `byre: reset removed 2 volumes of project ${id}; the next byre develop starts them fresh:\n` +
        `  docker volume byre-${id}-cache\n` +
        `  docker volume byre-${id}-state\n`,
    );
  });

  it('removes a stopped box and the helper a killed byre left in its network, with no volume to wipe', async () => {
    const e = new FakeEngine({ name: 'podman' });
    const box = e.addContainer({ name: 'byre-x', labels: { 'byre.project': id }, running: false });
    const helper = e.addContainer({
      name: 'byre-netns-1',
      labels: { 'byre.project': '', 'byre.helper': id },
      running: false,
    });
    await resetCommand(io, { force: true }, { pool: poolOf(e) });
    expect(e.containers.size).toBe(0);
    expect(e.callsTo('remove')).toEqual([[helper.id], [box.id]]);
    const confirmation = io.err.slice(io.err.indexOf('byre: reset removed'));
    expect(confirmation).toBe(
      `byre: reset removed 2 stopped containers of project ${id}; the next byre develop starts them fresh:\n` +
        `  podman stopped container ${helper.id.slice(0, 12)}\n` +
        `  podman stopped container ${box.id.slice(0, 12)}\n`,
    );
  });

  it('confirms nothing when there was nothing to remove', async () => {
    await resetCommand(io, { force: true }, { pool: poolOf(new FakeEngine({ name: 'docker' })) });
    expect(io.err).toContain(`reset: nothing of project ${id} to remove`);
    expect(io.err).not.toContain('reset removed');
  });

  it('refuses while a session of the project is live (exit 3, adr/0023)', async () => {
    const e = seeded();
    e.addContainer({ name: 'byre-x', labels: { 'byre.project': id, 'byre.workdir': 'other-wt' } });
    await expect(resetCommand(io, { force: true }, { pool: poolOf(e) })).rejects.toMatchObject({
      rule: 'reset.session-live',
      exitCode: 3,
      remedy: expect.stringContaining('then run byre reset again'),
    });
    expect(e.volumes.has(`byre-${id}-state`)).toBe(true);
  });

  it('asks, and a no removes nothing', async () => {
    const e = seeded();
    const questions: string[] = [];
    const confirm = async (q: string): Promise<boolean> => {
      questions.push(q);
      return false;
    };
    await expect(resetCommand(io, {}, { pool: poolOf(e), confirm })).rejects.toMatchObject({
      rule: 'reset.cancelled',
    });
    expect(questions).toHaveLength(1);
    expect(e.volumes.has(`byre-${id}-state`)).toBe(true);
  });

  it('non-TTY without -y is refused before anything dies', async () => {
    const e = seeded();
    await expect(resetCommand(io, {}, { pool: poolOf(e) })).rejects.toMatchObject({
      rule: 'confirm.needs-yes',
    });
    expect(e.volumes.has(`byre-${id}-state`)).toBe(true);
  });

  it('does what it can, then fails naming the engine it could not reach', async () => {
    const docker = seeded('docker');
    const pool: EnginePool = {
      members: [
        { name: 'docker', state: 'ok', engine: docker },
        { name: 'podman', state: 'declined', path: `${dir}/bin/podman`, root: dir },
      ],
    };
    await expect(resetCommand(io, { force: true }, { pool })).rejects.toMatchObject({
      rule: 'reset.incomplete',
      message: expect.stringMatching(/podman/),
    });
    expect(docker.volumes.has(`byre-${id}-state`)).toBe(false);
  });
});

describe('forget', () => {
  it('removes volumes, images and the store, never the project tree or machine volumes', async () => {
    const e = seeded('podman');
    await forgetCommand(io, { force: true }, { pool: poolOf(e) });
    expect(e.images.has(`byre-${id}-u1000-g1000`)).toBe(false);
    expect(e.images.has('debian:bookworm')).toBe(true);
    expect(e.volumes.has('byre-machine-u1000-auth')).toBe(true);
    expect(e.volumes.has(`byre-${id}-state`)).toBe(false);
    expect(existsSync(path.join(home, 'projects', id))).toBe(false);
    expect(existsSync(dir)).toBe(true);
    const confirmation = io.err.slice(io.err.indexOf('byre: forget removed'));
    expect(confirmation).toBe(
      `byre: forget removed 4 items of project ${id}; ${dir} itself is untouched:\n` +
        `  podman volume byre-${id}-cache\n` +
        `  podman volume byre-${id}-state\n` +
        `  podman image byre-${id}-u1000-g1000:latest\n` +
        `  store ${path.join(home, 'projects', id)}\n`,
    );
  });

  it('refuses while a session of the project is live (exit 3, adr/0023)', async () => {
    const e = seeded();
    e.addContainer({ name: 'byre-x', labels: { 'byre.project': id, 'byre.workdir': id } });
    await expect(forgetCommand(io, { force: true }, { pool: poolOf(e) })).rejects.toMatchObject({
      rule: 'forget.session-live',
      exitCode: 3,
    });
    expect(existsSync(path.join(home, 'projects', id))).toBe(true);
  });

  it('removes a leftover stopped box before its volumes', async () => {
    const e = seeded();
    e.addContainer({ name: 'byre-stale', labels: { 'byre.project': id }, running: false });
    await forgetCommand(io, { force: true }, { pool: poolOf(e) });
    expect(e.containers.size).toBe(0);
  });

  it('removes the helpers a killed byre left in its boxes’ network before the boxes, and their edges after them; another project’s stays', async () => {
    const e = seeded('podman');
    const box = e.addContainer({
      name: 'byre-stale',
      labels: { 'byre.project': id },
      running: false,
    });
    const helper = (name: string, project: string) =>
      e.addContainer({
        name,
        labels: { 'byre.project': '', 'byre.helper': project },
        running: false,
      });
    const wall = helper('byre-netns-1', id);
    const edge = helper('byre-edge-1', id);
    const other = helper('byre-netns-2', 'other-x-999999');
    // The wall's helper joins the box's network; the box, its edge's (adr/0079).
    wall.networkMode = `container:${box.id}`;
    box.networkMode = `container:${edge.id}`;
    await forgetCommand(io, { force: true }, { pool: poolOf(e) });
    expect([...e.containers.keys()]).toEqual([other.id]);
    const removed = e.callsTo('remove').map(([target]) => target);
    expect(removed.indexOf(box.id)).toBeGreaterThan(removed.indexOf(wall.id));
    // Refused while the box joined it, then removed after the box.
    expect(removed.lastIndexOf(edge.id)).toBeGreaterThan(removed.indexOf(box.id));
  });

  it('says the project was NOT completely removed when an engine failed', async () => {
    const docker = seeded('docker');
    const podman = new FakeEngine({ name: 'podman' });
    podman.failNext('volumeList', undefined, 3);
    await expect(
      forgetCommand(io, { force: true }, { pool: poolOf(docker, podman) }),
    ).rejects.toMatchObject({
      rule: 'forget.incomplete',
      message: expect.stringMatching(/NOT completely removed.*podman/),
    });
    expect(docker.volumes.has(`byre-${id}-state`)).toBe(false);
  });

  it('quotes what the engine it could not check said, escaped', async () => {
    const docker = seeded('docker');
    const podman = new FakeEngine({ name: 'podman' });
    const failed = new EngineError('podman images failed (exit 125)', {
      engine: 'podman',
      argv: ['images'],
      stderr: 'Error: locating image with ID "7e3c\x1b[31m": image not known\n',
    });
    podman.failNext('imageList', failed, 3);
    await expect(
      forgetCommand(io, { force: true }, { pool: poolOf(docker, podman) }),
    ).rejects.toMatchObject({
      message: expect.stringContaining(
        'podman (podman images failed (exit 125): it said Error: locating image with ID "7e3c\\x1b[31m": image not known)',
      ),
    });
    expect(io.err).toContain(
      'could not check: podman (podman images failed (exit 125): it said Error',
    );
  });

  it('completes past an engine that refuses this user (docker socket, permission denied)', async () => {
    const podman = seeded('podman');
    const docker = new FakeEngine({ name: 'docker' });
    const denied = new EngineError('docker refused this user (permission denied on its socket)', {
      engine: 'docker',
      argv: ['ps'],
      rule: 'engine.denied',
    });
    for (const m of ['ps', 'volumeList', 'imageList'] as const) docker.failNext(m, denied, 5);
    await forgetCommand(io, { force: true }, { pool: poolOf(docker, podman) });
    expect(podman.volumes.has(`byre-${id}-state`)).toBe(false);
    expect(io.err).toContain('left unchecked, as this user may not use it: docker');
  });

  it('refuses while another byre is starting a box of the project, and leaves the box', async () => {
    const e = seeded();
    const starting = e.addContainer({
      name: 'byre-starting',
      labels: { 'byre.project': id, 'byre.client': String(process.ppid) },
      running: false,
    });
    await expect(forgetCommand(io, { force: true }, { pool: poolOf(e) })).rejects.toMatchObject({
      rule: 'forget.session-live',
    });
    expect(e.containers.has(starting.id)).toBe(true);
  });
});

describe('teardown: the warning over volumes that may hold state', () => {
  const ID = 'p-123456';
  /**
   * What a declined reset of project ID, holding `volumes`, says between
   * the listing and the notes; null when it says nothing there.
   */
  async function stateVolumeWarning(
    volumes: string[],
    volumeRoles: Map<string, 'state' | 'cache'> | null,
  ): Promise<string | null> {
    const e = new FakeEngine();
    for (const v of volumes) e.volumes.set(v, { 'byre.project': ID });
    let text = '';
    const outcome = await teardown({
      verb: 'reset',
      projectId: ID,
      pool: poolOf(e),
      images: false,
      storeDirs: [],
      yes: false,
      confirm: async () => false,
      stderr: { write: (s: string) => (text += s) },
      volumeRoles,
    }).catch((error: unknown) => error);
    // Declined, it stops before removing anything; with nothing to remove it asks nothing.
    if (volumes.length > 0) expect(outcome).toMatchObject({ rule: 'reset.cancelled' });
    const lines = text.split('\n').filter((l) => l !== '');
    const header = `byre: reset removes, for project ${ID}:`;
    if (!lines.includes(header)) {
      expect(lines).toEqual([`byre: reset: nothing of project ${ID} to remove`]);
      return null;
    }
    const rest = lines.filter((l) => l !== header && !l.startsWith('  '));
    expect(rest.length).toBeLessThanOrEqual(1);
    return rest[0]?.slice('byre: '.length) ?? null;
  }
  const roles = new Map<string, 'state' | 'cache'>([
    ['byre-p-123456-.claude', 'state'],
    ['byre-p-123456-npm', 'cache'],
  ]);

  it.each<[string, string[], Map<string, 'state' | 'cache'> | null, string | null]>([
    ['nothing but caches: no warning', ['byre-p-123456-npm'], roles, null],
    ['no volumes: no warning', [], roles, null],
    [
      'names the state volumes',
      ['byre-p-123456-.claude', 'byre-p-123456-npm'],
      roles,
      'state volumes hold agent logins and shell history and cannot be recovered: byre-p-123456-.claude',
    ],
    [
      'names an undeclared one as possibly state',
      ['byre-p-123456-old'],
      roles,
      'byre-p-123456-old may hold state too (the config no longer declares them)',
    ],
    [
      'without a config, every volume may hold state',
      ['byre-p-123456-npm'],
      null,
      'byre-p-123456-npm may hold state too (the config did not load)',
    ],
  ])('%s', async (_what, volumes, r, expected) => {
    expect(await stateVolumeWarning(volumes, r)).toBe(expected);
  });
});
