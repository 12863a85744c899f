import { describe, expect, it } from 'vitest';

import type { EnginePool } from '../engine/pool.js';
import { EngineError } from '../errors.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import type { ContainerFacts } from '../engine/types.js';
import { discoverBoxes, findBoxById } from './discover.js';

function boxOn(engine: FakeEngine, project: string, env: Record<string, string>) {
  return engine.addContainer({
    name: `byre-${project}`,
    labels: { 'byre.project': project, 'byre.workdir': project },
    env,
  });
}

describe('one box, judged', () => {
  /** What discovery makes of one box on `engine`, another uid's shown. */
  async function judged(engine: FakeEngine, env: Record<string, string>) {
    boxOn(engine, 'p', env);
    const pool: EnginePool = {
      members: [{ name: engine.facts.name, state: 'ok', engine }],
    };
    return (await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: true })).boxes;
  }
  it.each([
    [{}, 'unusable'],
    [{ BYRE_UID: 'x', BYRE_GID: '1000' }, 'unusable'],
    [{ BYRE_UID: '1000', BYRE_GID: '1000' }, 'ok'],
  ])('%j → %s', async (env, kind) => {
    expect(await judged(new FakeEngine(), env)).toHaveLength(kind === 'ok' ? 1 : 0);
  });
  it('marks another uid foreign on docker, never on rootless podman', async () => {
    const env = { BYRE_UID: '1001', BYRE_GID: '1001' };
    const docker = await judged(new FakeEngine(), env);
    const podman = await judged(new FakeEngine({ name: 'podman' }), env);
    expect(docker.map((b) => b.foreign)).toEqual([true]);
    expect(podman.map((b) => b.foreign)).toEqual([false]);
  });
});

describe('discoverBoxes', () => {
  it('hides foreign boxes unless asked, skips unusable ones, and sorts', async () => {
    const docker = new FakeEngine();
    boxOn(docker, 'zeta', { BYRE_UID: '1000', BYRE_GID: '1000' });
    boxOn(docker, 'alpha', { BYRE_UID: '1000', BYRE_GID: '1000' });
    boxOn(docker, 'other', { BYRE_UID: '1001', BYRE_GID: '1001' });
    boxOn(docker, 'broken', {});
    docker.addContainer({ name: 'unrelated', labels: {}, env: {} });
    const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine: docker }] };
    const d = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: false });
    expect(d.boxes.map((b) => b.projectId)).toEqual(['alpha', 'zeta']);
    expect(d.partial).toBe(false);
    expect(d.notes.join('\n')).toMatch(/no valid BYRE_UID/);
    // Kept aside: the cascade names them only where they change its choice.
    expect(d.notes.join('\n')).not.toMatch(/another uid/);
    expect(d.hidden.map((b) => b.projectId)).toEqual(['other']);
    const all = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: true });
    expect(all.boxes.map((b) => [b.projectId, b.foreign])).toContainEqual(['other', true]);
  });

  it('counts an unreachable engine as zero, and any other failure as a partial pool', async () => {
    const docker = new FakeEngine();
    const podman = new FakeEngine({ name: 'podman' });
    boxOn(podman, 'p', { BYRE_UID: '1000', BYRE_GID: '1000' });
    docker.failNext(
      'psLabels',
      new EngineError('docker is not answering', {
        engine: 'docker',
        argv: ['ps'],
        rule: 'engine.unreachable',
      }),
    );
    const pool: EnginePool = {
      members: [
        { name: 'docker', state: 'ok', engine: docker },
        { name: 'podman', state: 'ok', engine: podman },
      ],
    };
    const down = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: false });
    expect(down.partial).toBe(false);
    expect(down.boxes).toHaveLength(1);
    docker.failNext('psLabels');
    const failed = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: false });
    expect(failed.partial).toBe(true);
  });

  it('reads labelled boxes from ps alone, and inspects only boxes without the id labels', async () => {
    const docker = new FakeEngine();
    const labelled = docker.addContainer({
      name: 'byre-new',
      labels: { 'byre.project': 'new', 'byre.uid': '1000', 'byre.gid': '1000' },
      env: {},
    });
    const older = boxOn(docker, 'old', { BYRE_UID: '1000', BYRE_GID: '1000' });
    const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine: docker }] };
    const d = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: false });
    expect(d.boxes.map((b) => b.id).sort()).toEqual([labelled.id, older.id].sort());
    const asked = docker.calls.filter((c) => c.method === 'inspectContainers');
    expect(asked.map((c) => c.args[0])).toEqual([[older.id]]);
  });

  it('takes the in-box ids from the labels over the env', async () => {
    const docker = new FakeEngine();
    docker.addContainer({
      name: 'byre-p',
      labels: { 'byre.project': 'p', 'byre.uid': '501', 'byre.gid': '20' },
      env: { BYRE_UID: '0', BYRE_GID: '0' },
    });
    const pool: EnginePool = { members: [{ name: 'docker', state: 'ok', engine: docker }] };
    const d = await discoverBoxes(pool, { callerUid: 501, skipUidCheck: false });
    expect(d.boxes.map((b) => [b.uid, b.gid])).toEqual([[501, 20]]);
  });

  describe("podman's remembered answer (adr/0044)", () => {
    const labelled = (id: string, workdir: string) => ({
      id,
      labels: {
        'byre.project': 'proj',
        'byre.workdir': workdir,
        'byre.uid': '1000',
        'byre.gid': '1000',
      },
    });
    const poolOf = (podman: FakeEngine, docker = new FakeEngine()): EnginePool => ({
      members: [
        { name: 'docker', state: 'ok', engine: docker },
        { name: 'podman', state: 'ok', engine: podman },
      ],
    });

    it('answers for podman without its ps, and still asks docker', async () => {
      const podman = new FakeEngine({ name: 'podman' });
      const docker = new FakeEngine();
      boxOn(docker, 'd', { BYRE_UID: '1000', BYRE_GID: '1000' });
      const remembered: unknown[] = [];
      const d = await discoverBoxes(poolOf(podman, docker), {
        callerUid: 1000,
        skipUidCheck: false,
        podman: {
          known: () => [labelled('a'.repeat(64), 'wt')],
          remember: (rows) => remembered.push(rows),
        },
      });
      expect(podman.callsTo('psLabels')).toEqual([]);
      expect(docker.callsTo('psLabels')).toHaveLength(1);
      expect(d.boxes.map((b) => [b.engine, b.workdirId, b.uid])).toEqual([
        ['docker', 'd', 1000],
        ['podman', 'wt', 1000],
      ]);
      expect(remembered).toEqual([]);
    });

    it('asks podman when the answer is not known, and remembers the boxes that carry their ids', async () => {
      const podman = new FakeEngine({ name: 'podman' });
      const listed = boxOn(podman, 'p', { BYRE_UID: '1000', BYRE_GID: '1000' });
      podman.addContainer({
        name: 'byre-q',
        labels: { 'byre.project': 'q', 'byre.uid': '1000', 'byre.gid': '1000' },
        env: {},
      });
      const remembered: unknown[] = [];
      const d = await discoverBoxes(poolOf(podman), {
        callerUid: 1000,
        skipUidCheck: false,
        podman: { known: () => null, remember: (rows) => remembered.push(...rows) },
      });
      expect(podman.callsTo('psLabels')).toHaveLength(1);
      expect(d.boxes.map((b) => b.projectId)).toEqual(['p', 'q']);
      // The box without id labels (found through its env) is not remembered.
      expect(remembered).toHaveLength(1);
      expect(JSON.stringify(remembered)).toContain('"byre.project":"q"');
      expect(JSON.stringify(remembered)).not.toContain(listed.id);
    });
  });
});

describe('findBoxById', () => {
  const me = { callerUid: 1000, skipUidCheck: false };
  function twoEngines(): { docker: FakeEngine; podman: FakeEngine; pool: EnginePool } {
    const docker = new FakeEngine();
    const podman = new FakeEngine({ name: 'podman' });
    return {
      docker,
      podman,
      pool: {
        members: [
          { name: 'docker', state: 'ok', engine: docker },
          { name: 'podman', state: 'ok', engine: podman },
        ],
      },
    };
  }

  it('finds a box on whichever engine has it, without listing any engine', async () => {
    const { docker, podman, pool } = twoEngines();
    const box = boxOn(podman, 'p', { BYRE_UID: '1000', BYRE_GID: '1000' });
    const found = await findBoxById(pool, box.id, me);
    expect(found).toMatchObject({ id: box.id, engine: 'podman', projectId: 'p', uid: 1000 });
    expect(found?.handle).toBe(podman);
    expect([...docker.calls, ...podman.calls].map((c) => c.method)).not.toContain('psLabels');
  });

  it.each([
    ['a stopped box', { running: false }, me],
    ['a container that is not a byre box', { labels: {} }, me],
    ['a box of another uid', { env: { BYRE_UID: '1001', BYRE_GID: '1001' } }, me],
  ])('answers null for %s, so the full cascade explains', async (_what, change, who) => {
    const { docker, pool } = twoEngines();
    const box = docker.addContainer({
      name: 'byre-p',
      labels: { 'byre.project': 'p' },
      env: { BYRE_UID: '1000', BYRE_GID: '1000' },
      ...change,
    });
    expect(await findBoxById(pool, box.id, who)).toBeNull();
  });

  it('shows a box of another uid with --skip-uid-check', async () => {
    const { docker, pool } = twoEngines();
    const box = boxOn(docker, 'p', { BYRE_UID: '1001', BYRE_GID: '1001' });
    expect(await findBoxById(pool, box.id, { ...me, skipUidCheck: true })).toMatchObject({
      foreign: true,
    });
  });

  it('does not wait for a slower engine once one has the box, and cancels its query', async () => {
    const { docker, pool } = twoEngines();
    const box = boxOn(docker, 'p', { BYRE_UID: '1000', BYRE_GID: '1000' });
    let cancelled = false;
    const slow = new FakeEngine({ name: 'podman' });
    slow.inspectContainers = (_ids: readonly string[], options?: { signal?: AbortSignal }) =>
      new Promise<ContainerFacts[]>((_resolve, reject) => {
        options?.signal?.addEventListener('abort', () => {
          cancelled = true;
          reject(new Error('cancelled'));
        });
      });
    const members = [
      pool.members[0],
      { name: 'podman' as const, state: 'ok' as const, engine: slow },
    ];
    const found = await findBoxById({ members: members as EnginePool['members'] }, box.id, me);
    expect(found?.engine).toBe('docker');
    expect(cancelled).toBe(true);
  });
});
