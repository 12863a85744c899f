import { describe, expect, it } from 'vitest';

import {
  NO_WALL_EVENTS,
  WALL_LOG_TAIL_LINES,
  WALL_MAX_ADDRESSES,
  WALL_MAX_COUNT,
  WALL_MAX_ENTRIES,
  hostResolution,
  parseWallLine,
  parseWallLog,
  wallAddress,
  wallName,
} from './wall-events.js';

const T = 1_764_660_000;

describe('parseWallLine: each event, and every shape it refuses', () => {
  it.each([
    [
      'resolved v4',
      `byre-wall 1 resolved ${T} github.com 140.82.121.4 60`,
      { kind: 'resolved', time: T, name: 'github.com', address: '140.82.121.4', ttl: 60 },
    ],
    [
      'resolved v6, canonicalised',
      `byre-wall 1 resolved ${T} github.com 2001:DB8:0:0:0:0:0:1 300`,
      { kind: 'resolved', time: T, name: 'github.com', address: '2001:db8::1', ttl: 300 },
    ],
    [
      'refused name',
      `byre-wall 1 refused-name ${T} evil.example A`,
      { kind: 'refused-name', time: T, name: 'evil.example', qtype: 'A' },
    ],
    [
      'refused name, escaped bytes and a numeric type',
      `byre-wall 1 refused-name ${T} a\\027b.x TYPE65`,
      { kind: 'refused-name', time: T, name: 'a\\027b.x', qtype: 'TYPE65' },
    ],
    [
      'refused connect',
      `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443`,
      {
        kind: 'refused-connect',
        time: T,
        proto: 'tcp',
        address: '10.0.0.5',
        port: 443,
        running: null,
      },
    ],
    [
      'refused connect with a running count',
      `byre-wall 1 refused-connect ${T} udp 10.0.0.5 53 count=7`,
      {
        kind: 'refused-connect',
        time: T,
        proto: 'udp',
        address: '10.0.0.5',
        port: 53,
        running: 7,
      },
    ],
    [
      'a portless protocol',
      `byre-wall 1 refused-connect ${T} icmp 10.0.0.5 0`,
      {
        kind: 'refused-connect',
        time: T,
        proto: 'icmp',
        address: '10.0.0.5',
        port: 0,
        running: null,
      },
    ],
  ])('%s', (_name, line, expected) => {
    expect(parseWallLine(line)).toEqual(expected);
  });

  const long = 'a'.repeat(600);
  it.each([
    ['another version', `byre-wall 2 refused-name ${T} evil.example A`],
    ['another prefix', `byre-wal 1 refused-name ${T} evil.example A`],
    ['an unknown event', `byre-wall 1 allowed ${T} evil.example A`],
    ['a missing field', `byre-wall 1 refused-name ${T} evil.example`],
    ['an extra field', `byre-wall 1 refused-name ${T} evil.example A B`],
    ['two spaces', `byre-wall 1 refused-name ${T}  evil.example A`],
    ['a leading space', ` byre-wall 1 refused-name ${T} evil.example A`],
    ['a time with letters', `byre-wall 1 refused-name 12x evil.example A`],
    ['a negative time', `byre-wall 1 refused-name -1 evil.example A`],
    ['a time with a leading zero', `byre-wall 1 refused-name 0${T} evil.example A`],
    ['an uppercase name', `byre-wall 1 refused-name ${T} Evil.example A`],
    ['an ESC in the name', `byre-wall 1 refused-name ${T} evil\x1b[31m.example A`],
    ['a NUL in the name', `byre-wall 1 refused-name ${T} evil\x00.example A`],
    ['a DEL byte', `byre-wall 1 refused-name ${T} evil\x7f.example A`],
    ['a C1 byte', `byre-wall 1 refused-name ${T} evil\u009b.example A`],
    ['a bidi override', `byre-wall 1 refused-name ${T} evil\u202e.example A`],
    ['a tab', `byre-wall 1 refused-name ${T}\tevil.example A`],
    ['an escape over 255', `byre-wall 1 refused-name ${T} a\\256 A`],
    ['a short escape', `byre-wall 1 refused-name ${T} a\\25 A`],
    ['a slash', `byre-wall 1 refused-name ${T} a/b A`],
    ['a lowercase qtype', `byre-wall 1 refused-name ${T} evil.example a`],
    ['a qtype too long', `byre-wall 1 refused-name ${T} evil.example ABCDEFGHIJK`],
    ['over 600 bytes', `byre-wall 1 refused-name ${T} ${long} A`],
    ['a name over 255 octets', `byre-wall 1 refused-name ${T} ${'ab.'.repeat(86)}x A`],
    ['an unknown protocol', `byre-wall 1 refused-connect ${T} sctp 10.0.0.5 443`],
    ['a port over 65535', `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 65536`],
    ['a port with a sign', `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 +443`],
    ['a non-canonical v4', `byre-wall 1 refused-connect ${T} tcp 010.0.0.5 443`],
    ['an octet over 255', `byre-wall 1 refused-connect ${T} tcp 10.0.0.256 443`],
    ['a host name as address', `byre-wall 1 refused-connect ${T} tcp evil.example 443`],
    ['a zoned v6', `byre-wall 1 refused-connect ${T} tcp fe80::1%eth0 443`],
    ['a bracketed v6', `byre-wall 1 refused-connect ${T} tcp [::1] 443`],
    ['a zero count', `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443 count=0`],
    ['a stray last field', `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443 n=3`],
    ['a resolved name with no ttl', `byre-wall 1 resolved ${T} github.com 1.2.3.4`],
    ['a ttl over 32 bits', `byre-wall 1 resolved ${T} github.com 1.2.3.4 4294967296`],
    ['an empty line', ''],
    ['dnsmasq chatter', 'dnsmasq[12]: query[A] evil.example from 10.0.0.2'],
  ])('drops %s', (_name, line) => {
    expect(parseWallLine(line)).toBeNull();
  });
});

describe('wallName and wallAddress', () => {
  it.each([
    ['a.b', 'a.b'],
    ['_dmarc.x-y.example', '_dmarc.x-y.example'],
    ['\\255', '\\255'],
    ['\\000', '\\000'],
    ['', null],
    ['a\\', null],
    ['a b', null],
    ['é.example', null],
  ])('name %j', (text, expected) => {
    expect(wallName(text)).toBe(expected);
  });
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::1', '::1'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['1.2.3', null],
    ['::g', null],
    [':'.repeat(46), null],
  ])('address %j', (text, expected) => {
    expect(wallAddress(text)).toBe(expected);
  });
});

const refused = (name: string, t = T, qtype = 'A'): string =>
  `byre-wall 1 refused-name ${t} ${name} ${qtype}`;

describe('parseWallLog: aggregated, ordered, bounded', () => {
  it('aggregates names and connects with counts, first and last times', () => {
    const log = [
      refused('evil.example', T + 5),
      'some diagnostic line',
      refused('evil.example', T, 'AAAA'),
      refused('evil.example', T + 9, 'A'),
      refused('other.example', T + 1),
      `byre-wall 1 refused-connect ${T + 2} tcp 10.0.0.5 443`,
      `byre-wall 1 refused-connect ${T + 3} tcp 10.0.0.5 443`,
      `byre-wall 1 refused-connect ${T + 4} udp 10.0.0.5 443`,
      `byre-wall 1 resolved ${T} github.com 1.2.3.4 60`,
      `byre-wall 1 resolved ${T + 1} github.com 1.2.3.5 60`,
      `byre-wall 1 resolved ${T + 2} github.com 1.2.3.4 60`,
      '',
    ].join('\n');
    const e = parseWallLog(log);
    expect(e.names).toEqual([
      { name: 'evil.example', qtypes: ['A', 'AAAA'], count: 3, first: T, last: T + 9 },
      { name: 'other.example', qtypes: ['A'], count: 1, first: T + 1, last: T + 1 },
    ]);
    expect(e.connects).toEqual([
      { proto: 'tcp', address: '10.0.0.5', port: 443, count: 2, first: T + 2, last: T + 3 },
      { proto: 'udp', address: '10.0.0.5', port: 443, count: 1, first: T + 4, last: T + 4 },
    ]);
    expect(e.resolved).toEqual([
      { name: 'github.com', addresses: ['1.2.3.5', '1.2.3.4'], first: T, last: T + 2 },
    ]);
    expect(e.partial).toBe(false);
  });

  it('a running count is the latest total, not a sum; CRLF lines are read', () => {
    const e = parseWallLog(
      [
        `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443 count=3\r`,
        `byre-wall 1 refused-connect ${T + 1} tcp 10.0.0.5 443 count=9\r`,
        `byre-wall 1 refused-connect ${T + 2} tcp 10.0.0.5 443 count=4\r`,
      ].join('\n'),
    );
    expect(e.connects).toEqual([
      { proto: 'tcp', address: '10.0.0.5', port: 443, count: 9, first: T, last: T + 2 },
    ]);
  });

  it('counts saturate', () => {
    const e = parseWallLog(
      [
        `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443 count=9999999999`,
        `byre-wall 1 refused-connect ${T} tcp 10.0.0.5 443`,
      ].join('\n'),
    );
    expect(e.connects[0]?.count).toBe(WALL_MAX_COUNT);
  });

  it('10,000 distinct names: the tail is read, 200 kept, the rest counted', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => refused(`n${i}.example`, T + i));
    const e = parseWallLog(lines.join('\n'));
    expect(e.names).toHaveLength(WALL_MAX_ENTRIES);
    expect(e.namesMore).toBe(WALL_LOG_TAIL_LINES - WALL_MAX_ENTRIES);
    expect(e.partial).toBe(true);
    // Equal counts: the most recent first.
    expect(e.names[0]?.name).toBe('n9999.example');
  });

  it('the most frequent names are the ones kept', () => {
    const noise = Array.from({ length: 300 }, (_, i) => refused(`n${i}.x`, T + 100));
    const loud = Array.from({ length: 5 }, () => refused('loud.example', T));
    const e = parseWallLog([...loud, ...noise].join('\n'));
    expect(e.names[0]).toMatchObject({ name: 'loud.example', count: 5 });
    expect(e.namesMore).toBe(101);
  });

  it('oversize text: only the tail bytes are read, never half a line', () => {
    const junk = 'x'.repeat(5_000_000);
    const e = parseWallLog(`${junk}\n${refused('late.example')}\n`);
    expect(e.names.map((n) => n.name)).toEqual(['late.example']);
    expect(e.partial).toBe(true);
  });

  it('a line cut in two by the byte bound is not read as an event', () => {
    const tail = refused('whole.example');
    const body = `${'y'.repeat(4_000_000)}\n`.repeat(1);
    const e = parseWallLog(`${body}${tail}`);
    expect(e.names.map((n) => n.name)).toEqual(['whole.example']);
  });

  it('addresses per name are bounded, the latest kept', () => {
    const lines = Array.from(
      { length: 40 },
      (_, i) => `byre-wall 1 resolved ${T + i} cdn.example 10.0.0.${i} 30`,
    );
    const e = parseWallLog(lines.join('\n'));
    expect(e.resolved[0]?.addresses).toHaveLength(WALL_MAX_ADDRESSES);
    expect(e.resolved[0]?.addresses.at(-1)).toBe('10.0.0.39');
  });

  it('hostile lines alone give nothing', () => {
    const e = parseWallLog(
      ['\x1b]0;pwned\x07', `byre-wall 1 refused-name ${T} \x1b[2J A`, '\u0000'.repeat(700)].join(
        '\n',
      ),
    );
    expect(e).toEqual(NO_WALL_EVENTS);
  });
});

describe('hostResolution', () => {
  const e = parseWallLog(
    [
      `byre-wall 1 resolved ${T} github.com 1.2.3.4 60`,
      `byre-wall 1 resolved ${T} api.npm.example 1.2.3.4 60`,
    ].join('\n'),
  );
  it.each([
    ['github.com', 'resolved'],
    ['GitHub.com', 'resolved'],
    ['npm.example', 'resolved'],
    ['registry.npmjs.org', 'not_resolved'],
    ['hub.com', 'not_resolved'],
  ] as const)('%s', (host, expected) => {
    expect(hostResolution(e, host)).toBe(expected);
  });
  it('unknown when resolved names were left out by the bound', () => {
    expect(hostResolution({ ...e, resolvedMore: 1 }, 'registry.npmjs.org')).toBe('unknown');
  });
});
