import { describe, expect, it } from 'vitest';

import type { EnginePool } from '../box/pool.js';
import { EngineError } from '../errors.js';
import { FakeEngine } from '../engine/fake-engine.js';
import { assessBox, discoverBoxes } from './discover.js';

function boxOn(engine: FakeEngine, project: string, env: Record<string, string>) {
  return engine.addContainer({
    name: `byre-${project}`,
    labels: { 'byre.project': project, 'byre.workdir': project },
    env,
  });
}

describe('assessBox', () => {
  const base = { id: 'a'.repeat(64), labels: { 'byre.project': 'p' }, callerUid: 1000 };
  it.each([
    [{}, 'unusable'],
    [{ BYRE_UID: 'x', BYRE_GID: '1000' }, 'unusable'],
    [{ BYRE_UID: '1000', BYRE_GID: '1000' }, 'ok'],
  ])('%j → %s', (env, kind) => {
    expect(assessBox({ ...base, engine: 'docker', env }).kind).toBe(kind);
  });
  it('marks another uid foreign on docker, never on rootless podman', () => {
    const env = { BYRE_UID: '1001', BYRE_GID: '1001' };
    const docker = assessBox({ ...base, engine: 'docker', env });
    const podman = assessBox({ ...base, engine: 'podman', env });
    expect(docker.kind === 'ok' && docker.box.foreign).toBe(true);
    expect(podman.kind === 'ok' && podman.box.foreign).toBe(false);
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
    expect(d.notes.join('\n')).toMatch(/1 box of another uid hidden/);
    const all = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: true });
    expect(all.boxes.map((b) => [b.projectId, b.foreign])).toContainEqual(['other', true]);
  });

  it('counts an unreachable engine as zero, and any other failure as a partial pool', async () => {
    const docker = new FakeEngine();
    const podman = new FakeEngine({ name: 'podman' });
    boxOn(podman, 'p', { BYRE_UID: '1000', BYRE_GID: '1000' });
    docker.failNext(
      'ps',
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
    docker.failNext('ps');
    const failed = await discoverBoxes(pool, { callerUid: 1000, skipUidCheck: false });
    expect(failed.partial).toBe(true);
  });
});
