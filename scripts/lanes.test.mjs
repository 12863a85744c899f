import { describe, expect, it } from 'vitest';
import {
  cpuSummary,
  failureRecap,
  machineCpuSeconds,
  planLanes,
  reapedCpuSeconds,
  requiredEngines,
} from './lanes.mjs';

describe('planLanes', () => {
  it('gives each engine its own engine-tier lane beside the host tiers, cross-engine files after', () => {
    const plan = planLanes(['docker', 'podman'], { cross: ['test/engine/x.test.ts'] });
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
        name: 'after',
        argv: ['run', '--project', 'engine', 'test/engine/x.test.ts'],
        env: { BYRE_TEST_ENGINES: 'docker,podman' },
      },
    ]);
  });

  it("split, rootless podman runs in a lane of its own after the host tiers; docker as the user stays in docker's", () => {
    const plan = planLanes(['docker', 'podman'], {}, { splitRootless: true });
    expect(plan.lanes.map((l) => [l.name, l.env, l.next?.name, l.next?.env])).toEqual([
      ['host', undefined, 'rootless', { BYRE_TEST_ENGINES: 'podman', BYRE_TEST_FLAVORS: 'user' }],
      ['docker', { BYRE_TEST_ENGINES: 'docker' }, undefined, undefined],
      ['podman', { BYRE_TEST_ENGINES: 'podman', BYRE_TEST_FLAVORS: 'root' }, undefined, undefined],
    ]);
    expect(plan.lanes[0]?.next?.argv).toEqual(['run', '--project', 'engine']);
  });

  it('without podman under test there is no rootless lane to split', () => {
    const plan = planLanes(['docker'], {}, { splitRootless: true });
    expect(plan.lanes.map((l) => [l.name, l.next])).toEqual([
      ['host', undefined],
      ['docker', undefined],
    ]);
  });

  it('by default rootless podman stays in the podman lane, every flavour in it', () => {
    const plan = planLanes(['docker', 'podman'], {});
    expect(plan.lanes.map((l) => [l.name, l.env])).toEqual([
      ['host', undefined],
      ['docker', { BYRE_TEST_ENGINES: 'docker' }],
      ['podman', { BYRE_TEST_ENGINES: 'podman' }],
    ]);
  });

  it('with one engine, its cross-engine files run in no lane (they need both)', () => {
    const plan = planLanes(['podman'], { cross: ['test/engine/x.test.ts'] });
    expect(plan.lanes.map((l) => l.name)).toEqual(['host', 'podman']);
    expect(plan.after).toEqual([]);
  });

  it('files that need the machine alone run after the lanes, with one engine too', () => {
    const plan = planLanes(['podman'], {
      cross: ['test/engine/x.test.ts'],
      alone: ['test/engine/y.test.ts'],
    });
    expect(plan.lanes[1]?.argv).toEqual([
      'run',
      '--project',
      'engine',
      '--exclude',
      'test/engine/x.test.ts',
      '--exclude',
      'test/engine/y.test.ts',
    ]);
    expect(plan.after).toEqual([
      {
        name: 'after',
        argv: ['run', '--project', 'engine', 'test/engine/y.test.ts'],
        env: { BYRE_TEST_ENGINES: 'podman' },
      },
    ]);
  });

  it('with no engine, the engine tier still runs once, to report what it skipped', () => {
    const plan = planLanes([], { cross: ['test/engine/x.test.ts'] });
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

describe('failureRecap', () => {
  const feed = (lines, limits) => {
    const recap = failureRecap(limits);
    for (const line of lines) recap.push(line);
    return recap.lines();
  };

  it('keeps each failure banner and what follows, up to the run summary, without colour', () => {
    const lines = [
      ' ✓ test/a.test.ts (2 tests) 10ms',
      '\x1b[31m⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯\x1b[39m',
      ' FAIL  test/engine/b.test.ts > b on docker > does it',
      'AssertionError: expected 1 to be 0',
      ' Test Files  1 failed | 1 passed (2)',
      '      Tests  1 failed | 2 passed (3)',
    ];
    expect(feed(lines)).toEqual([
      '⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯',
      ' FAIL  test/engine/b.test.ts > b on docker > does it',
      'AssertionError: expected 1 to be 0',
    ]);
  });

  it('keeps suites and unhandled errors too, each banner in order', () => {
    const lines = [
      '⎯⎯ Failed Suites 1 ⎯⎯',
      ' FAIL  test/x.test.ts',
      '⎯⎯ Unhandled Errors 2 ⎯⎯',
      'Error: boom',
      ' Test Files  1 failed (1)',
    ];
    expect(feed(lines)).toEqual(lines.slice(0, 4));
  });

  it('caps a long recap and says how much it left out', () => {
    const lines = ['⎯⎯ Failed Tests 9 ⎯⎯', 'a', 'b', 'c', 'd'];
    expect(feed(lines, { max: 3 })).toEqual([
      '⎯⎯ Failed Tests 9 ⎯⎯',
      'a',
      'b',
      "… 2 more lines in the lane's output above",
    ]);
  });

  it('without a banner (the run crashed), repeats the last lines', () => {
    const lines = ['one', 'two', 'three', 'Error: worker exited'];
    expect(feed(lines, { tail: 2 })).toEqual(['three', 'Error: worker exited']);
  });
});

describe('reapedCpuSeconds', () => {
  it('adds cutime and cstime, whatever the command name holds', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
    const stat =
      '4242 (node) x) (y) S 1 4242 4242 0 -1 4194560 100 200 0 0 700 300 1234 566 20 0 11 0';
    expect(reapedCpuSeconds(stat)).toBe(18);
    expect(reapedCpuSeconds(stat, 1000)).toBeCloseTo(1.8);
  });
});

describe('machineCpuSeconds', () => {
  it('counts idle and iowait as not busy', () => {
    const text = 'cpu  100 5 50 800 40 0 5 0 0 0\ncpu0 50 2 25 400 20 0 3 0 0 0\nintr 1\n';
    expect(machineCpuSeconds(text)).toEqual({ busy: 1.6, total: 10 });
  });
});

describe('cpuSummary', () => {
  it('says how busy the machine was and splits the lanes from the rest', () => {
    const line = cpuSummary({ busy: 100, total: 1000 }, { busy: 1900, total: 3000 }, 1200.4);
    expect(line).toBe(
      "cpu: the machine was 90% busy (1800 of 2000 cpu-seconds); the lanes' processes used 1200, engines' daemons, boxes and the rest 600",
    );
  });
});
