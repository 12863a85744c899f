import { describe, expect, it } from 'vitest';

import type { StatusData } from './data-schema.js';
import { deniedRows, withWall } from './denials.js';
import { NO_WALL_EVENTS, parseWallLog } from './wall-events.js';

type Network = StatusData['network'];
const T = 1_764_660_000;

const egress = (host: string): Network['egress'][number] => ({
  host,
  port: 443,
  source: ['config'],
  enforced: true,
  closed_by: null,
  resolution: null,
});

const network = (posture: string, hosts: string[]): Network => ({
  posture,
  posture_skill: 'byre/firewall',
  warranted: true,
  degraded_by: [],
  egress: hosts.map(egress),
  offered: [],
  closed: [],
  denials: null,
});

const events = parseWallLog(
  [
    ...Array.from({ length: 12 }, () => `byre-wall 1 refused-name ${T} evil.example A`),
    `byre-wall 1 refused-name ${T + 5} b.example AAAA`,
    `byre-wall 1 refused-name ${T + 6} c.example A`,
    `byre-wall 1 refused-name ${T + 7} d.example A`,
    `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443 count=4`,
    `byre-wall 1 refused-connect ${T} udp 2001:db8::1 53`,
    `byre-wall 1 resolved ${T} github.com 1.2.3.4 60`,
  ].join('\n'),
);

const rowsOf = (n: Network) => deniedRows({ network: n } as StatusData);

describe('withWall', () => {
  it('no wall input leaves the facts as they are', () => {
    const n = network('deny-by-default', ['github.com']);
    expect(withWall(n, null)).toBe(n);
  });

  it('a running box: each open host resolved, not yet, or an address', () => {
    const n = withWall(
      network('deny-by-default', ['github.com', 'registry.npmjs.org', '10.1.2.3', '[::1]']),
      {
        of: 'running_box',
        events,
        error: null,
      },
    );
    expect(n.egress.map((e) => e.resolution)).toEqual([
      'resolved',
      'not_resolved',
      'address',
      'address',
    ]);
    expect(n.denials).toMatchObject({ of: 'running_box', error: null, ended: null, names_more: 0 });
    expect(n.denials?.names[0]).toEqual({
      name: 'evil.example',
      qtypes: ['A'],
      count: 12,
      // Seconds, in UTC, as status --data writes them.
      first: '2025-12-02T07:20:00Z',
      last: '2025-12-02T07:20:00Z',
    });
    expect(n.denials?.connects.map((c) => [c.address, c.count])).toEqual([
      ['10.0.0.5', 4],
      ['2001:db8::1', 1],
    ]);
  });

  it('a running box whose events cannot be read: unknown, never "resolved"', () => {
    const n = withWall(network('deny-by-default', ['github.com']), {
      of: 'running_box',
      events: null,
      error: 'the helper is gone',
    });
    expect(n.egress[0]?.resolution).toBe('unknown');
    expect(n.denials).toMatchObject({ error: 'the helper is gone', names: [] });
  });

  it('a denylist box: no resolution states (its hosts are not an allowlist)', () => {
    const n = withWall(network('open-denylist', ['github.com']), {
      of: 'running_box',
      events,
      error: null,
    });
    expect(n.egress[0]?.resolution).toBeNull();
    expect(n.denials?.names).toHaveLength(4);
  });

  it('the last session: its denials, when it ended, no resolution states', () => {
    const n = withWall(network('deny-by-default', ['github.com']), {
      of: 'last_session',
      record: { launch: 'f'.repeat(64), engine: 'podman', ended: T + 60, events },
    });
    expect(n.egress[0]?.resolution).toBeNull();
    expect(n.denials).toMatchObject({
      of: 'last_session',
      ended: '2025-12-02T07:21:00Z',
      launch_record: 'f'.repeat(64),
    });
  });
});

describe('the Denied rows', () => {
  it('the default tier summarises; the full tier lists every entry with its times', () => {
    const n = withWall(network('deny-by-default', []), { of: 'running_box', events, error: null });
    const rows = rowsOf(n);
    const summary =
      '4 names refused (evil.example ×12, d.example, c.example, …); 2 connects rejected (10.0.0.5:443/tcp ×4, [2001:db8::1]:53/udp)';
    expect(rows.filter((r) => r.tier !== 'full').map((r) => r.value)).toEqual([
      summary,
      'to allow a refused name: byre config (Egress); it applies at the next launch',
    ]);
    const full = rows.filter((r) => r.tier !== 'default').map((r) => r.value);
    expect(full).toContain(`name evil.example ×12  (A; ${'2025-12-02 07:20:00 UTC'})`);
    expect(full).toContain('name b.example  (AAAA; 2025-12-02 07:20:05 UTC)');
    expect(full).toContain('connect 10.0.0.5:443/tcp ×4  (2025-12-02 07:20:00 UTC)');
  });

  it('last session wording', () => {
    const n = withWall(network('deny-by-default', []), {
      of: 'last_session',
      record: { launch: 'f'.repeat(64), engine: 'docker', ended: T, events },
    });
    expect(rowsOf(n)[0]?.value).toMatch(
      /^last session \(ended 2025-12-02 07:20:00 UTC\): 4 names refused/,
    );
  });

  it.each([
    ['nothing refused', { ...NO_WALL_EVENTS }, 'nothing refused'],
    [
      'older events cut',
      { ...NO_WALL_EVENTS, partial: true },
      'nothing refused  (older events not read: counts are at least these)',
    ],
  ])('%s', (_name, e, value) => {
    const n = withWall(network('deny-by-default', []), {
      of: 'running_box',
      events: e,
      error: null,
    });
    expect(rowsOf(n).map((r) => r.value)).toEqual([value, value]);
  });

  it("under firewall-open an empty log is nothing refused: its closures' refused connects are events too", () => {
    const n = withWall(network('open-denylist', []), {
      of: 'running_box',
      events: { ...NO_WALL_EVENTS },
      error: null,
    });
    const value = 'nothing refused';
    expect(rowsOf(n).map((r) => r.value)).toEqual([value, value]);
  });

  it('unreadable events are never truncated away', () => {
    const n = withWall(network('deny-by-default', []), {
      of: 'running_box',
      events: null,
      error: 'gone',
    });
    expect(rowsOf(n)).toEqual([
      { label: 'Denied', value: 'unknown — gone', kind: 'never-truncate' },
    ]);
  });

  it('no wall, no row', () => {
    expect(rowsOf(network('open', []))).toEqual([]);
  });

  it('names over the bound are counted in the summary', () => {
    const n = withWall(network('deny-by-default', []), {
      of: 'running_box',
      events: { ...events, namesMore: 10 },
      error: null,
    });
    expect(rowsOf(n)[0]?.value).toMatch(/^14 names refused/);
  });
});
