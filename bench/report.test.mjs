// The benchmark's pure parts: judging a row against its target, the tables,
// the box clocks it parses, and the interleaving order. No timing is asserted.

import { describe, expect, it } from 'vitest';
import { isoMs, probeMs } from './cases.mjs';
import { interleave } from './lib.mjs';
import {
  currentPageName,
  evaluate,
  formatTarget,
  historyRow,
  renderCurrentPage,
  renderReport,
  renderTable,
  scrubPaths,
  scrubResults,
} from './report.mjs';

const row = (show, raw, byre, target, extra = {}) => ({
  name: 'case',
  what: 'raw thing',
  show,
  target,
  raw: { byre: raw },
  byre: { byre },
  ...extra,
});

describe('evaluate', () => {
  it.each([
    ['time, ratio under the max', row('time', 100, 150, { of: 'ratio', max: 1.5 }), 1.5, 50, true],
    ['time, ratio over the max', row('time', 100, 151, { of: 'ratio', max: 1.5 }), 1.51, 51, false],
    [
      'time, delta under the max',
      row('time', 670, 900, { of: 'delta', max: 250 }),
      900 / 670,
      230,
      true,
    ],
    [
      'time, delta over the max',
      row('time', 670, 921, { of: 'delta', max: 250 }),
      921 / 670,
      251,
      false,
    ],
    ['speed, as fast as raw', row('speed', 1000, 1000, { of: 'ratio', min: 0.95 }), 1, 0, true],
    [
      'speed, slower than raw',
      row('speed', 950, 1000, { of: 'ratio', min: 0.96 }),
      0.95,
      50,
      false,
    ],
    ['cost, within the max', row('cost', 80, 140, { of: 'delta', max: 60 }), 1.75, 60, true],
    ['cost, over the max', row('cost', 80, 141, { of: 'delta', max: 60 }), 141 / 80, 61, false],
    ['no target', row('time', 10, 20, null), 2, 10, null],
  ])('%s', (_, r, ratio, delta, met) => {
    const e = evaluate(r, 'byre');
    expect(e.ratio).toBeCloseTo(ratio, 6);
    expect(e.delta).toBeCloseTo(delta, 6);
    expect(e.met).toBe(met);
  });
});

describe('formatTarget', () => {
  it.each([
    [null, '—'],
    [{ of: 'ratio', max: 1.5 }, '≤ 1.5×'],
    [{ of: 'ratio', min: 0.95 }, '≥ 0.95×'],
    [{ of: 'delta', max: 250 }, '≤ +250 ms'],
  ])('%j → %s', (t, text) => expect(formatTarget(t)).toBe(text));
});

describe('renderTable', () => {
  it('one binary: medians, the ratio and the verdict', () => {
    const t = renderTable([row('time', 100, 250, { of: 'ratio', max: 2 })], ['byre']);
    expect(t.split('\n')[0]).toBe(
      '| case | raw counterpart | raw | byre | byre vs raw | target |  |',
    );
    expect(t.split('\n')[2]).toBe(
      '| case | raw thing | 100 ms | 250 ms | 2.50× (+150 ms) | ≤ 2× | **not met** |',
    );
  });

  it('two binaries: both sides, the verdict of the after side, per-side raw counterparts', () => {
    const r = {
      ...row('speed', 0, 0, { of: 'ratio', min: 0.95 }, { bytes: 1e9 }),
      raw: { before: 1000, after: 1000 },
      byre: { before: 2000, after: 1000 },
    };
    const lines = renderTable([r], ['before', 'after']).split('\n');
    expect(lines[0]).toBe(
      '| case | raw counterpart | raw | before | after | before vs raw | after vs raw | target | after |',
    );
    expect(lines[2]).toBe(
      '| case | raw thing | 1000 ms (1000 MB/s) | 2000 ms (500 MB/s) | 1000 ms (1000 MB/s) | 0.50× | 1.00× | ≥ 0.95× | met |',
    );
    const own = {
      ...row('time', 0, 0, null),
      raw: { before: 20, after: 10 },
      byre: { before: 30, after: 30 },
    };
    expect(renderTable([own], ['before', 'after']).split('\n')[2]).toContain('| 20 ms / 10 ms |');
  });
});

const meta = {
  date: '2026-12-01 12:29 UTC',
  commit: '48cd3dfc86b2',
  bins: [
    {
      side: 'before',
      version: 'byre 0.1.0 (commit efb3449de34d, linux-x64)',
      built: '2026-12-01 10:41 UTC',
      checkout: 'unknown',
    },
    {
      side: 'after',
      version: 'byre 0.1.0 (commit 48cd3dfc86b2, linux-x64)',
      built: '2026-12-01 12:04 UTC',
      checkout: '48cd3dfc86b2',
    },
  ],
  cores: 2,
  cpu: 'AMD EPYC',
  memGiB: 24,
  kernel: '6.18.44',
  load: ['0.16', '1.39'],
  runs: 9,
  bigBytes: 1024 ** 3,
  files: 1000,
  quick: false,
  minutes: '1.3',
  note: '',
};
const two = (show, raw, byre, target) => ({
  ...row(show, 0, 0, target),
  raw: { before: raw, after: raw },
  byre: { before: byre, after: byre },
});
const flavour = {
  key: 'rootless',
  label: 'podman rootless as byretest',
  version: '4.3.1',
  rows: [
    { ...two('time', 100, 120, { of: 'ratio', max: 1.5 }), name: 'status' },
    { ...two('speed', 950, 1000, { of: 'ratio', min: 0.96 }), name: 'deliver | 1 GiB' },
    { ...two('time', 100, 300, null), name: 'exit' },
  ],
  absolute: [],
  notes: [],
};

describe('scrubPaths', () => {
  const places = [
    ['/work/wt/x/dist/byre', '<after binary>'],
    ['/work/wt/x', '<checkout>'],
    ['/tmp', '<tmp>'],
    ['/root', '~'],
    ['', 'never'],
  ];
  it.each([
    ['no path', 'no path'],
    ['/work/wt/x/dist/byre config exited 1', '<after binary> config exited 1'],
    ['python3 /work/wt/x/bench/first-frame.py', 'python3 <checkout>/bench/first-frame.py'],
    [
      '/tmp/byretest-bench-ab12cd-docker and /tmp/y',
      '<tmp>/byretest-bench-ab12cd-docker and <tmp>/y',
    ],
    ['HOME=/root', 'HOME=~'],
  ])('%s', (text, scrubbed) => expect(scrubPaths(text, places)).toBe(scrubbed));

  it('scrubs every flavour note and leaves the rest of the results as they were', () => {
    const [f] = scrubResults([{ ...flavour, notes: ['config failed: /tmp/a'] }], places);
    expect(f.notes).toEqual(['config failed: <tmp>/a']);
    expect(f.rows).toBe(flavour.rows);
  });
});

describe('pages', () => {
  it('name each binary by its version, build time and checkout, not by a path', () => {
    const lines = renderReport(meta, [flavour]).split('\n');
    expect(lines).toContain(
      '- Binary (after): byre 0.1.0 (commit 48cd3dfc86b2, linux-x64), built 2026-12-01 12:04 UTC, checkout 48cd3dfc86b2.',
    );
    expect(lines).toContain(
      '- Date: 2026-12-01 12:29 UTC; byre commit 48cd3dfc86b2; 1.3 min for this run.',
    );
    expect(renderReport(meta, [flavour])).not.toMatch(/\/(work|tmp|home|root)\b/);
  });

  it('a current page is one flavour under its own title and file name', () => {
    const page = renderCurrentPage(meta, flavour);
    expect(page.split('\n')[0]).toBe('# byre on podman rootless as byretest: current numbers');
    expect(page).toContain('- Engines: podman rootless as byretest 4.3.1.');
    expect(currentPageName(flavour)).toBe('rootless.md');
  });

  it('a history row: date, what ran, both binaries, and per flavour the targets the after side met', () => {
    const docker = { ...flavour, key: 'docker', rows: [flavour.rows[0]] };
    expect(historyRow({ ...meta, only: [], note: 'quiet | after ci' }, [docker, flavour])).toBe(
      '| 2026-12-01 12:29 UTC | all cases; 9 rounds; docker, rootless | byre 0.1.0 (commit 48cd3dfc86b2, linux-x64) | ' +
        'byre 0.1.0 (commit efb3449de34d, linux-x64) | docker 1/1, rootless 1/2 | rootless: deliver \\| 1 GiB | quiet \\| after ci |',
    );
    const one = { ...meta, only: ['status'], bins: [{ ...meta.bins[1], side: 'byre' }] };
    const single = { ...flavour, rows: [row('time', 100, 120, { of: 'ratio', max: 1.5 })] };
    expect(historyRow(one, [single])).toBe(
      '| 2026-12-01 12:29 UTC | status; 9 rounds; rootless | byre 0.1.0 (commit 48cd3dfc86b2, linux-x64) | — | rootless 1/1 | — | — |',
    );
  });
});

describe('box clocks', () => {
  it('takes the last line of digits a box printed, ignoring the banner', () => {
    expect(probeMs('welcome\n1796061660606102166\n')).toBeCloseTo(1796061660606.102, 3);
    expect(() => probeMs('no clock here\n')).toThrow(/printed no clock/);
  });

  it.each([
    ['2026-11-30T17:57:37.123456789Z', Date.UTC(2026, 10, 30, 17, 57, 37) + 123.456789],
    ['2026-11-30 17:57:37.5 +0000 UTC', Date.UTC(2026, 10, 30, 17, 57, 37) + 500],
    ['2026-11-30T17:57:37Z', Date.UTC(2026, 10, 30, 17, 57, 37)],
  ])('reads the engine start time %s', (text, ms) => expect(isoMs(text)).toBeCloseTo(ms, 3));
});

describe('interleave', () => {
  it('runs every side once a round in a rotating order and drops the warm-up round', () => {
    const calls = [];
    const side = (name) => () => {
      calls.push(name);
      return 1;
    };
    const samples = interleave({ a: side('a'), b: side('b'), c: side('c') }, 3);
    expect(calls.join('')).toBe('abc' + 'abc' + 'bca' + 'cab');
    expect(samples).toEqual({ a: [1, 1, 1], b: [1, 1, 1], c: [1, 1, 1] });
    calls.length = 0;
    interleave({ a: side('a'), b: side('b') }, 2, () => calls.push('-'), false);
    expect(calls.join('')).toBe('-a-b-b-a');
  });
});
