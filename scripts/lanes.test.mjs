import { describe, expect, it } from 'vitest';
import { planLanes, requiredEngines } from './lanes.mjs';

describe('planLanes', () => {
  it('gives each engine its own engine-tier lane beside the host tiers, cross-engine files after', () => {
    const plan = planLanes(['docker', 'podman'], ['test/engine/x.test.ts']);
    expect(plan.lanes).toEqual([
      {
        name: 'host',
        argv: ['run', '--project', 'unit', '--project', 'cli', '--project', 'tui'],
        nice: 10,
      },
      {
        name: 'docker',
        argv: ['run', '--project', 'engine', '--exclude', 'test/engine/x.test.ts'],
        env: { BYRE_TEST_ENGINES: 'docker' },
      },
      {
        name: 'podman',
        argv: ['run', '--project', 'engine', '--exclude', 'test/engine/x.test.ts'],
        env: { BYRE_TEST_ENGINES: 'podman' },
      },
    ]);
    expect(plan.after).toEqual([
      {
        name: 'cross',
        argv: ['run', '--project', 'engine', 'test/engine/x.test.ts'],
        env: { BYRE_TEST_ENGINES: 'docker,podman' },
      },
    ]);
  });

  it('with one engine, its cross-engine files run in no lane (they need both)', () => {
    const plan = planLanes(['podman'], ['test/engine/x.test.ts']);
    expect(plan.lanes.map((l) => l.name)).toEqual(['host', 'podman']);
    expect(plan.after).toEqual([]);
  });

  it('with no engine, the engine tier still runs once, to report what it skipped', () => {
    const plan = planLanes([], ['test/engine/x.test.ts']);
    expect(plan.lanes.map((l) => [l.name, l.env])).toEqual([
      ['host', undefined],
      ['engine', undefined],
    ]);
    expect(plan.after).toEqual([]);
  });
});

describe('requiredEngines', () => {
  it.each([
    [undefined, null],
    ['', null],
    [' , ', null],
    ['docker', ['docker']],
    [' docker , podman ', ['docker', 'podman']],
  ])('%j -> %j', (raw, want) => {
    expect(requiredEngines(raw)).toEqual(want);
  });
});
