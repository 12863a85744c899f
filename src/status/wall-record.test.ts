import { describe, expect, it } from 'vitest';

import { parseWallLog } from './wall-events.js';
import {
  WALL_RECORD_MAX_BYTES,
  parseWallRecord,
  renderWallRecord,
  wallRecordFileName,
  type WallRecord,
} from './wall-record.js';

const T = 1_764_660_000;
const events = parseWallLog(
  [
    `byre-wall 1 refused-name ${T} evil.example A`,
    `byre-wall 1 refused-name ${T + 3} a\\027b.example TXT`,
    `byre-wall 1 refused-connect ${T + 1} tcp 10.0.0.5 443`,
    `byre-wall 1 refused-connect ${T + 1} udp ::1 53 count=4`,
    `byre-wall 1 resolved ${T} github.com 1.2.3.4 60`,
  ].join('\n'),
);
const record: WallRecord = { launch: 'a'.repeat(64), engine: 'docker', ended: T + 60, events };

type Entry = Record<string, unknown>;
interface Doc extends Entry {
  events: Entry & { names: Entry[]; connects: Entry[]; resolved: Entry[] };
}
const first = (list: Entry[]): Entry => list[0] ?? {};

/** The rendered record with one change made to its JSON. */
function edited(change: (doc: Doc) => void): string {
  const doc = JSON.parse(renderWallRecord(record)) as Doc;
  change(doc);
  return JSON.stringify(doc);
}

describe('the last-session wall record', () => {
  it('round-trips', () => {
    expect(parseWallRecord(renderWallRecord(record))).toEqual(record);
  });

  it('the largest record the bounds allow fits under the byte cap', () => {
    const name = (i: number): string => `${String(i).padStart(3, '0')}${'\\255'.repeat(62)}.x`;
    const lines = Array.from({ length: 200 }, (_, i) => [
      `byre-wall 1 refused-name ${T} ${name(i)} TYPE65535`,
      `byre-wall 1 refused-connect ${T} tcp ffff:ffff:ffff:ffff:ffff:ffff:ffff:${i.toString(16)} 65535`,
      ...Array.from(
        { length: 16 },
        (_, j) =>
          `byre-wall 1 resolved ${T} ${name(i)} ffff:ffff:ffff:ffff:ffff:ffff:ff${j.toString(16)}:${i.toString(16)} 60`,
      ),
    ]).flat();
    const big = parseWallLog(lines.join('\n'));
    expect(big.names).toHaveLength(200);
    expect(big.resolved).toHaveLength(200);
    const text = renderWallRecord({ ...record, events: big });
    expect(Buffer.byteLength(text)).toBeLessThan(WALL_RECORD_MAX_BYTES);
    expect(parseWallRecord(text)?.events.names).toHaveLength(200);
  });

  it.each([
    ['not JSON', 'not json'],
    ['another format', edited((d) => (d['format'] = 'other'))],
    ['another version', edited((d) => (d['version'] = 2))],
    ['a launch that is not a hash', edited((d) => (d['launch'] = 'x'))],
    ['an unknown engine', edited((d) => (d['engine'] = 'lxc'))],
    ['a negative end time', edited((d) => (d['ended'] = -1))],
    ['a name with an ESC', edited((d) => (first(d.events.names).name = 'evil\u001b[2J'))],
    ['a name with a newline', edited((d) => (first(d.events.names).name = 'a\nb'))],
    ['a forged qtype', edited((d) => (first(d.events.names).qtypes = ['\u001b']))],
    ['a fractional count', edited((d) => (first(d.events.names).count = 1.5))],
    ['first after last', edited((d) => (first(d.events.names).first = T + 999))],
    ['an address that is a name', edited((d) => (first(d.events.connects).address = 'x.example'))],
    ['an unknown protocol', edited((d) => (first(d.events.connects).proto = 'sctp'))],
    ['a port over 65535', edited((d) => (first(d.events.connects).port = 70000))],
    ['a forged resolved address', edited((d) => (first(d.events.resolved).addresses = ['x']))],
    [
      'too many entries',
      edited((d) => (d.events.names = Array<Entry>(201).fill(first(d.events.names)))),
    ],
    ['a missing bound count', edited((d) => delete d.events['namesMore'])],
    ['a missing partial flag', edited((d) => delete d.events['partial'])],
    ['an array', '[]'],
    ['over the byte cap', ' '.repeat(WALL_RECORD_MAX_BYTES + 1)],
  ])('is not a record: %s', (_name, text) => {
    expect(parseWallRecord(text)).toBeNull();
  });

  it('the file is named for the worktree, and only for an id', () => {
    expect(wallRecordFileName('proj-abc123')).toBe('last-session-proj-abc123.json');
    expect(() => wallRecordFileName('../x')).toThrow(RangeError);
    expect(() => wallRecordFileName('')).toThrow(RangeError);
  });
});
