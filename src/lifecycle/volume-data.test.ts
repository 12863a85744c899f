import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import type { EnginePool } from '../engine/pool.js';
import { clearMachineVolume } from './volume-data.js';

const VOLUME = 'byre-machine-u1000-claude-identity';

function poolOf(...members: FakeEngine[]): EnginePool {
  return {
    members: members.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

function engines(): { docker: FakeEngine; podman: FakeEngine } {
  const docker = new FakeEngine();
  const podman = new FakeEngine({ name: 'podman', path: '/usr/bin/podman' });
  docker.volumes.set(VOLUME, {});
  podman.volumes.set(VOLUME, {});
  return { docker, podman };
}

function box(engine: FakeEngine, running: boolean, volumes: string[] = [VOLUME]): void {
  engine.addContainer({
    id: 'c1',
    name: 'byre-other-project',
    labels: { 'byre.project': 'other-1a2b3c' },
    running,
    image: 'byre-other',
    volumes,
  });
}

describe('clearing a machine volume’s data', () => {
  it('deletes it on every engine that has it', async () => {
    const { docker, podman } = engines();
    podman.volumes.delete(VOLUME);
    const r = await clearMachineVolume(poolOf(docker, podman), VOLUME);
    expect(r).toEqual({
      ok: true,
      message: `${VOLUME} cleared (deleted on docker); the next box starts it empty`,
    });
    expect(docker.volumes.has(VOLUME)).toBe(false);
  });

  it('is refused while a running byre box on any engine mounts it, and deletes nothing', async () => {
    const { docker, podman } = engines();
    box(podman, true);
    const r = await clearMachineVolume(poolOf(docker, podman), VOLUME);
    expect(r.ok).toBe(false);
    expect(r.message).toBe(
      `${VOLUME} kept: 1 running byre box mounts it; end that session, then clear it`,
    );
    expect(docker.volumes.has(VOLUME)).toBe(true);
    expect(podman.volumes.has(VOLUME)).toBe(true);
  });

  it('a running box that does not mount it does not hold it', async () => {
    const { docker, podman } = engines();
    box(podman, true, ['byre-other-1a2b3c-cache']);
    expect((await clearMachineVolume(poolOf(docker, podman), VOLUME)).ok).toBe(true);
    expect(docker.volumes.has(VOLUME)).toBe(false);
  });

  it('a stopped box does not count as a session', async () => {
    const { docker } = engines();
    box(docker, false);
    expect((await clearMachineVolume(poolOf(docker), VOLUME)).ok).toBe(true);
  });

  it('is refused when an engine cannot be asked whether a session runs', async () => {
    const { docker, podman } = engines();
    podman.failNext('ps');
    const r = await clearMachineVolume(poolOf(docker, podman), VOLUME);
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/could not ask podman/);
    expect(docker.volumes.has(VOLUME)).toBe(true);
  });

  it('says which engine refused the delete', async () => {
    const { docker, podman } = engines();
    podman.failNext('volumeRemove');
    const r = await clearMachineVolume(poolOf(docker, podman), VOLUME);
    expect(r).toMatchObject({ ok: false });
    expect(r.message).toMatch(/deleted on docker, but not cleared on podman/);
  });

  it('touches nothing but a machine-scoped volume', async () => {
    const { docker } = engines();
    docker.volumes.set('byre-app-1a2b3c-cache', {});
    const r = await clearMachineVolume(poolOf(docker), 'byre-app-1a2b3c-cache');
    expect(r.ok).toBe(false);
    expect(docker.callsTo('volumeRemove')).toEqual([]);
  });
});
