import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { LABEL } from '../gen/names.js';
import { censusSessions, pidAlive } from './census.js';

const alive = (pid: number): boolean => pid === 4242;

describe('how a box of the project is judged', () => {
  it.each([
    ['running, whoever made it', true, { [LABEL.client]: '99' }, 'session'],
    ['created by a byre that is alive', false, { [LABEL.client]: '4242' }, 'session'],
    ['created by a byre that is gone', false, { [LABEL.client]: '99' }, 'stale'],
    [
      'created by this very byre (a leftover of a pid reused)',
      false,
      { [LABEL.client]: '7' },
      'stale',
    ],
    ['no client label', false, {}, 'stale'],
    ['a client label that is no pid', false, { [LABEL.client]: '42x' }, 'stale'],
    ['pid 0 is no byre', false, { [LABEL.client]: '0' }, 'stale'],
  ] as const)('%s', async (_label, running, labels, expected) => {
    const engine = new FakeEngine();
    engine.addContainer({ name: 'a', labels: { ...labels, [LABEL.project]: 'p' }, running });
    const pool = { members: [{ name: 'docker' as const, state: 'ok' as const, engine }] };
    // This byre (pid 7) is alive, as it always is to itself.
    const census = await censusSessions(
      pool,
      { projectId: 'p' },
      (pid) => alive(pid) || pid === 7,
      7,
    );
    expect([census.boxes.length, census.stale.length]).toEqual(
      expected === 'session' ? [1, 0] : [0, 1],
    );
  });

  it('reads this process as alive and an unused pid as gone', () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(2 ** 22 + 12345)).toBe(false);
  });
});

describe('censusSessions', () => {
  it('counts running and starting boxes as sessions and leaves only gone creators stale', async () => {
    const engine = new FakeEngine();
    const labels = { [LABEL.project]: 'p', [LABEL.workdir]: 'p' };
    const running = engine.addContainer({ name: 'a', labels, running: true });
    const starting = engine.addContainer({
      name: 'b',
      labels: { ...labels, [LABEL.client]: '4242' },
      running: false,
    });
    const stale = engine.addContainer({
      name: 'c',
      labels: { ...labels, [LABEL.client]: '99' },
      running: false,
    });
    engine.addContainer({ name: 'other', labels: { [LABEL.project]: 'q' }, running: true });
    const pool = { members: [{ name: 'docker' as const, state: 'ok' as const, engine }] };
    const census = await censusSessions(pool, { projectId: 'p', worktreeId: 'p' }, alive, 7);
    expect(census.boxes.map((b) => b.id).sort()).toEqual([running.id, starting.id].sort());
    expect(census.stale.map((b) => b.id)).toEqual([stale.id]);
    expect(census.unchecked).toEqual([]);
  });
});
