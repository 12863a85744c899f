import { describe, expect, it } from 'vitest';

import {
  envKeysOf,
  launchRecordHash,
  launchTimestamp,
  parseLaunchRecord,
  renderLaunchRecord,
} from './launch-record.js';
import type { LaunchRecord } from './launch-record.js';
import { expectGolden } from '../../test/support/golden.js';
import { sampleRecord } from '../../test/support/launch-record.js';

function roundTrip(record: LaunchRecord): LaunchRecord {
  const parsed = parseLaunchRecord(renderLaunchRecord(record));
  if (parsed.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(parsed)}`);
  return parsed.record;
}

describe('renderLaunchRecord', () => {
  it('matches test/golden/launch-record.toml byte for byte', () => {
    expectGolden('launch-record.toml', renderLaunchRecord(sampleRecord()));
  });

  it('is byte-stable: the same input renders the same bytes and hash', () => {
    const a = renderLaunchRecord(sampleRecord());
    const b = renderLaunchRecord(sampleRecord());
    expect(a).toBe(b);
    expect(launchRecordHash(a)).toBe(launchRecordHash(b));
  });

  it('opens with the fixed five-line header', () => {
    const lines = renderLaunchRecord(sampleRecord()).split('\n');
    expect(lines.slice(0, 5).every((line) => line.startsWith('# '))).toBe(true);
    expect(lines[5]).toBe('record = 1');
    expect(lines.slice(0, 5).join(' ')).toContain('do not edit');
  });

  it('writes digest_error only when present, between digest and base', () => {
    const record = sampleRecord();
    record.image = { tag: 't', digest: '', digestError: 'inspect failed', base: 'b' };
    expect(renderLaunchRecord(record)).toContain(
      '[image]\ntag = "t"\ndigest = ""\ndigest_error = "inspect failed"\nbase = "b"\n',
    );
    expect(renderLaunchRecord(sampleRecord())).not.toContain('digest_error');
  });

  it('writes wiring (a bound wiring, adr/0075) only when present, after base, and reads it back', () => {
    const record = sampleRecord();
    record.image = { tag: 't', digest: 'd', base: 'b', wiring: '/s/wiring/p/ab' };
    expect(renderLaunchRecord(record)).toContain(
      '[image]\ntag = "t"\ndigest = "d"\nbase = "b"\nwiring = "/s/wiring/p/ab"\n',
    );
    expect(roundTrip(record).image).toEqual(record.image);
    expect(renderLaunchRecord(sampleRecord())).not.toContain('wiring');
  });

  it('omits empty arrays of tables', () => {
    const record = { ...sampleRecord(), binds: [], ports: [], volumes: [], skills: [] };
    const text = renderLaunchRecord(record);
    expect(text).not.toContain('[[');
    expect(text.endsWith('raw_build = false\n')).toBe(true);
    expect(roundTrip(record)).toEqual(record);
  });

  it.each([
    ['created with milliseconds', { created: '2026-03-04T05:06:07.123Z' }],
    ['created with an offset', { created: '2026-03-04T05:06:07+01:00' }],
    ['a lone surrogate', { workdir: '/a\ud800b' }],
    ['a port out of range', { ports: [{ interface: '127.0.0.1', host: 70000, container: 1 }] }],
    ['a fractional port', { ports: [{ interface: '127.0.0.1', host: 1.5, container: 1 }] }],
  ] as const)('refuses %s', (_name, patch) => {
    expect(() =>
      renderLaunchRecord({ ...sampleRecord(), ...(patch as Partial<LaunchRecord>) }),
    ).toThrow(RangeError);
  });

  it('refuses egress entries that would not survive space-joining', () => {
    const record = sampleRecord();
    record.network = { ...record.network, egress: ['a.com', 'b.com c.com'] };
    expect(() => renderLaunchRecord(record)).toThrow(RangeError);
  });

  it('refuses env keys that carry a value even when forced past the type', () => {
    const record = sampleRecord();
    record.envKeys = ['TOKEN=hunter2'] as unknown as LaunchRecord['envKeys'];
    expect(() => renderLaunchRecord(record)).toThrow(RangeError);
  });
});

describe('envKeysOf', () => {
  it('keeps only the keys, sorted by code point', () => {
    const keys = envKeysOf(
      new Map([
        ['b', 'x'],
        ['B', 'y'],
        ['a_', 'z'],
        ['Ä', 'w'],
      ]),
    );
    expect([...keys]).toEqual(['B', 'a_', 'b', 'Ä']);
  });

  it('never lets a value reach the rendered record', () => {
    const text = renderLaunchRecord({
      ...sampleRecord(),
      envKeys: envKeysOf({ SECRET: 'sk-live-123' }),
    });
    expect(text).toContain('env_keys = ["SECRET"]');
    expect(text).not.toContain('sk-live-123');
  });

  it('cannot be satisfied by a plain string list (type-level)', () => {
    const record = sampleRecord();
    // @ts-expect-error EnvKeys is minted only by envKeysOf: a KEY=value list does not type-check.
    const forged: LaunchRecord = { ...record, envKeys: ['TOKEN=hunter2'] };
    expect(forged.envKeys).toEqual(['TOKEN=hunter2']);
  });

  it('rejects a key containing "="', () => {
    expect(() => envKeysOf({ 'A=B': '' })).toThrow(RangeError);
  });
});

describe('launchTimestamp', () => {
  it('is UTC truncated to seconds', () => {
    expect(launchTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999)))).toBe(
      '2026-01-02T03:04:05Z',
    );
  });
});

/** How the record writes `value` as a TOML string: its workdir line, after `workdir = `. */
function tomlString(value: string): string {
  const lines = renderLaunchRecord({ ...sampleRecord(), workdir: value }).split('\n');
  const line = lines.find((l) => l.startsWith('workdir = '));
  if (line === undefined) throw new Error('the record has no workdir line');
  return line.slice('workdir = '.length);
}

describe('renderLaunchRecord: TOML strings', () => {
  it.each([
    ['plain', 'abc', '"abc"'],
    ['quote and backslash', 'a"b\\c', '"a\\"b\\\\c"'],
    ['short escapes', '\b\t\n\f\r', '"\\b\\t\\n\\f\\r"'],
    ['other C0 controls and DEL', '\u0000\u001b\u007f', '"\\u0000\\u001B\\u007F"'],
    ['C1 and bidi controls', '\u0085\u202e\u2066', '"\\u0085\\u202E\\u2066"'],
    ['non-ASCII kept as UTF-8', 'café ☕ 𝄞', '"café ☕ 𝄞"'],
  ])('%s', (_name, input, expected) => {
    expect(tomlString(input)).toBe(expected);
  });
});

describe('render -> hash -> parse round trip', () => {
  it('parses back to the same record', () => {
    const record = sampleRecord();
    const text = renderLaunchRecord(record);
    expect(launchRecordHash(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(roundTrip(record)).toEqual(record);
    expect(renderLaunchRecord(roundTrip(record))).toBe(text);
  });

  it('round-trips digest_error', () => {
    const record = sampleRecord();
    record.image = { ...record.image, digest: '', digestError: 'no such image' };
    expect(roundTrip(record)).toEqual(record);
  });

  const hostile = [
    'quote"s',
    'back\\slash\\',
    'new\nline',
    'carriage\rreturn',
    'tab\there',
    'nul\u0000byte',
    'esc\u001b[31mred',
    'del\u007f',
    'bidi\u202eevil',
    "single'quote",
    '"""triple"""',
    '# not a comment',
    'x = "injected"\n[image]\ntag = "evil"',
    '\\u0041 not an escape',
    'emoji 🐄 and 𝄞',
    '',
  ];

  it.each(hostile)('survives a hostile path %j', (value) => {
    const record = sampleRecord();
    record.workdir = value;
    record.binds = [{ host: value, target: `/t/${value}`, mode: 'rw' }];
    record.runArgs = [value, '--x'];
    record.image = { ...record.image, base: value, digestError: value };
    record.volumes = [{ ...record.volumes[0]!, target: value }];
    const text = renderLaunchRecord(record);
    expect(text.split('\n').slice(0, 5)).toEqual(
      renderLaunchRecord(sampleRecord()).split('\n').slice(0, 5),
    );
    expect(roundTrip(record)).toEqual(record);
  });
});

describe('parseLaunchRecord', () => {
  const good = renderLaunchRecord(sampleRecord());

  it.each([
    ['TOML syntax error', good.replace('record = 1', 'record = = 1'), 'launch.toml-syntax'],
    ['missing record', good.replace('record = 1\n', ''), 'launch.record-version'],
    ['record = 0', good.replace('record = 1', 'record = 0'), 'launch.record-version'],
    ['record is a string', good.replace('record = 1', 'record = "1"'), 'launch.record-version'],
    ['record is a float', good.replace('record = 1', 'record = 1.5'), 'launch.record-version'],
    [
      'unknown key',
      good.replace('engine = "docker"', 'engine = "docker"\nextra = 1'),
      'launch.schema',
    ],
    ['unknown engine', good.replace('engine = "docker"', 'engine = "lxc"'), 'launch.schema'],
    ['bad bind mode', good.replace('mode = "ro"', 'mode = "rx"'), 'launch.schema'],
    [
      'missing [network]',
      good.replace(/\[network\][\s\S]*?\n\n(?=\[\[binds)/u, ''),
      'launch.schema',
    ],
    [
      'created as a string',
      good.replace('created = 2026-03-04T05:06:07Z', 'created = "x"'),
      'launch.schema',
    ],
    ['created local', good.replace('07Z', '07'), 'launch.schema'],
    ['created with ms', good.replace('07Z', '07.5Z'), 'launch.schema'],
    ['env key with a value', good.replace('"TERM"]', '"TERM=xterm"]'), 'launch.schema'],
    ['port out of range', good.replace('host = 3000', 'host = 99999'), 'launch.schema'],
    [
      '__proto__ key',
      good.replace('engine = "docker"', 'engine = "docker"\n__proto__ = 1'),
      'launch.toml-syntax',
    ],
  ])('%s is invalid', (_name, text, rule) => {
    const parsed = parseLaunchRecord(text);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind === 'invalid') expect(parsed.rule).toBe(rule);
  });

  it('reports a newer schema before looking at the shape', () => {
    expect(parseLaunchRecord('record = 2\nwhatever = "future"\n')).toEqual({
      kind: 'newer_schema',
      version: 2,
    });
  });
});

describe('credential keys', () => {
  it('are written after env_keys only when present, and parse back', () => {
    const record: LaunchRecord = { ...sampleRecord(), credentialKeys: ['API_KEY', 'CERT'] };
    const text = renderLaunchRecord(record);
    expect(text).toContain('env_keys = [');
    expect(text).toMatch(/^env_keys = .*\ncredential_keys = \["API_KEY", "CERT"\]\nrun_args/m);
    expect(parseLaunchRecord(text)).toEqual({ kind: 'ok', record });
    expect(renderLaunchRecord(sampleRecord())).not.toContain('credential_keys');
  });

  it('refuse a key that is not a name (values never fit)', () => {
    expect(() =>
      renderLaunchRecord({ ...sampleRecord(), credentialKeys: ['API_KEY=sk-123'] }),
    ).toThrow(RangeError);
  });
});
