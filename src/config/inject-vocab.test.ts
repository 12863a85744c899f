// `inject` and the `injected:` row as config vocabulary (adr/0070), through
// the real parser and the real merge: every rule's refusal at the
// file:line:key a user sees, the cascade's choice of the winning row and its
// own file's rules, and the cross-file host conflict.

import { beforeAll, describe, expect, it } from 'vitest';

import { createIdentity, sealInjected, sealValue } from '../credentials/seal.js';
import { checkEffective } from './check-effective.js';
import type { CredentialTable } from './credential-rows.js';
import { mergeLayers } from './merge.js';
import { parseLayer } from './parse.js';
import type { LayerKind, LayerRef } from './types.js';

const FAST = 10;
const value = new TextEncoder().encode('sk-test-value');
const RULES = [
  { hosts: [{ name: 'api.example.com', port: 443 }], presentation: { kind: 'bearer' as const } },
];

let mine: CredentialTable;
let theirs: CredentialTable;
let injectedRow: string;
let foreignRow: string;
let encryptedRow: string;

beforeAll(async () => {
  mine = (await createIdentity('one', FAST)).table;
  theirs = (await createIdentity('two', FAST)).table;
  injectedRow = await sealInjected(mine.recipient, 'API_KEY', RULES, value);
  foreignRow = await sealInjected(theirs.recipient, 'API_KEY', RULES, value);
  encryptedRow = await sealValue(mine.recipient, 'encrypted', 'API_KEY', value);
});

function table(t: CredentialTable): string {
  return `\n[credentials]\nrecipient = "${t.recipient}"\nidentity = "${t.identity}"\n`;
}

const FILE = '/store/byre.config';

function parse(text: string, kind: LayerKind = 'project', file = FILE) {
  return parseLayer(text, { file, kind, name: kind });
}

function rowFile(rules: string, row = injectedRow): string {
  return `[env_from_host]\nAPI_KEY = "${row}"\n\n${rules}${table(mine)}`;
}

const BEARER = '[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbearer = true\n';

describe('a file’s inject rules, located', () => {
  it('accepts an injected row with its rules', () => {
    const r = parse(rowFile(BEARER));
    expect(r.issues).toEqual([]);
    expect(r.value?.inject?.['API_KEY']).toEqual([{ hosts: ['api.example.com'], bearer: true }]);
  });

  it.each([
    [
      'rules without a row',
      () => `[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbearer = true\n`,
      'config.inject-no-row',
      { line: 1, key: 'inject.API_KEY' },
    ],
    [
      'a host given twice',
      () =>
        rowFile(
          `${BEARER}\n[[inject.API_KEY]]\nhosts = ["API.example.com:443"]\nheader = "x-api-key"\n`,
        ),
      'config.inject-host-twice',
      { line: 9, key: 'inject.API_KEY[1].hosts[0]' },
    ],
    [
      'a host that is a URL',
      () => rowFile('[[inject.API_KEY]]\nhosts = ["https://api.example.com/v1"]\nbearer = true\n'),
      'config.inject-host-invalid',
      { line: 5, key: 'inject.API_KEY[0].hosts[0]' },
    ],
    [
      'no host',
      () => rowFile('[[inject.API_KEY]]\nhosts = []\nbearer = true\n'),
      'config.inject-hosts-empty',
      { line: 5, key: 'inject.API_KEY[0].hosts' },
    ],
    [
      'two presentations',
      () =>
        rowFile(
          '[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbearer = true\nheader = "x-api-key"\n',
        ),
      'config.inject-presentation',
      { line: 4, key: 'inject.API_KEY[0]' },
    ],
    [
      'a header that routes the request',
      () => rowFile('[[inject.API_KEY]]\nhosts = ["api.example.com"]\nheader = "Host"\n'),
      'config.inject-presentation',
      { line: 6, key: 'inject.API_KEY[0].header' },
    ],
    [
      'a Basic user with a colon',
      () => rowFile('[[inject.API_KEY]]\nhosts = ["api.example.com"]\nbasic = "a:b"\n'),
      'config.inject-presentation',
      { line: 6, key: 'inject.API_KEY[0].basic' },
    ],
    [
      'a BYRE_ key',
      () => '[[inject.BYRE_X]]\nhosts = ["api.example.com"]\nbearer = true\n',
      'config.env-key-invalid',
      { line: 1, key: 'inject.BYRE_X' },
    ],
  ])('refuses %s', (_why, text, rule, at) => {
    const r = parse(text());
    expect(r.value).toBeNull();
    expect(r.issues[0]).toMatchObject({ rule, location: { file: FILE, ...at } });
  });

  it('refuses an injected row without rules, at the row', () => {
    const r = parse(rowFile(''));
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'config.inject-undeclared',
        location: { file: FILE, line: 2, column: 1, key: 'env_from_host.API_KEY' },
      }),
    ]);
  });

  it('refuses rules beside a delivered row of the same key', () => {
    const r = parse(rowFile(BEARER, encryptedRow));
    expect(r.issues.map((i) => i.rule)).toEqual(['config.inject-no-row']);
  });

  it('refuses an injected row sealed to another file, or in a file with no identity', () => {
    expect(parse(rowFile(BEARER, foreignRow)).issues[0]).toMatchObject({
      rule: 'config.credential-foreign',
      location: { line: 2, key: 'env_from_host.API_KEY' },
    });
    const bare = parse(`[env_from_host]\nAPI_KEY = "${injectedRow}"\n\n${BEARER}`);
    expect(bare.issues[0]).toMatchObject({
      rule: 'config.credential-no-identity',
      location: { line: 2, key: 'env_from_host.API_KEY' },
    });
  });

  it('refuses a malformed injected row without quoting it', () => {
    const mangled = `${injectedRow}!`;
    const r = parse(rowFile(BEARER, mangled));
    expect(r.issues[0]).toMatchObject({
      rule: 'config.env-source-invalid',
      location: { line: 2, key: 'env_from_host.API_KEY' },
    });
    expect(r.issues[0]?.message).not.toContain(mangled.slice(30, 60));
  });

  it('is banned in a template', () => {
    const r = parse(BEARER, 'template');
    expect(r.issues.map((i) => i.rule)).toContain('config.key-banned-here');
  });
});

describe('the cascade’s injections', () => {
  const ref = (kind: LayerKind, path: string): LayerRef => ({ kind, name: kind, path });

  function cascade(...files: { kind: LayerKind; text: string }[]) {
    const layers = files.map((f, i) => {
      const path = `/f${i}`;
      const parsed = parse(f.text, f.kind, path);
      if (parsed.value === null)
        throw new Error(`fixture ${i} invalid: ${parsed.issues[0]?.message}`);
      return { ref: ref(f.kind, path), raw: parsed.value, text: f.text };
    });
    const config = mergeLayers(layers);
    return { config, issues: checkEffective(config, layers) };
  }

  it('injects a key whose winning row is injected, with that file’s rules', () => {
    const { config, issues } = cascade({ kind: 'project', text: rowFile(BEARER) });
    expect(issues).toEqual([]);
    expect(config.injections).toEqual([
      { key: 'API_KEY', rules: RULES, from: ref('project', '/f0') },
    ]);
  });

  it('never mixes rules across files: the winning file’s rules alone', () => {
    const lower = rowFile(
      '[[inject.API_KEY]]\nhosts = ["old.example.com"]\nheader = "x-api-key"\n',
    );
    const { config } = cascade(
      { kind: 'default', text: lower },
      { kind: 'project', text: rowFile(BEARER) },
    );
    expect(config.injections).toEqual([
      { key: 'API_KEY', rules: RULES, from: ref('project', '/f1') },
    ]);
  });

  it.each([
    ['a higher "" disables it', `[env_from_host]\nAPI_KEY = ""\n`],
    ['a higher encrypted row delivers it instead', (): string => rowFile('', encryptedRow)],
    ['an [env] key of the name wins', `[env]\nAPI_KEY = "literal"\n`],
  ])('%s', (_why, upper) => {
    const text = typeof upper === 'string' ? upper : upper();
    const { config } = cascade(
      { kind: 'default', text: rowFile(BEARER) },
      { kind: 'project', text },
    );
    expect(config.injections).toEqual([]);
  });

  it('refuses one host injected by two files, in the later key’s file', async () => {
    const other = await sealInjected(mine.recipient, 'OTHER_KEY', RULES, value);
    const upper = `[env_from_host]\nOTHER_KEY = "${other}"\n\n[[inject.OTHER_KEY]]\nhosts = ["api.example.com"]\nbearer = true\n${table(mine)}`;
    const { issues } = cascade(
      { kind: 'default', text: rowFile(BEARER) },
      { kind: 'project', text: upper },
    );
    expect(issues).toEqual([
      expect.objectContaining({
        rule: 'config.inject-host-twice',
        location: { file: '/f1', line: 5, column: 10, key: 'inject.OTHER_KEY[0].hosts[0]' },
      }),
    ]);
  });
});
