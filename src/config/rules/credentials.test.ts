// Credential rows and tables through the real parser, so every refusal is
// checked with the location a user sees (file, line, column, key).

import { beforeAll, describe, expect, it } from 'vitest';

import { createIdentity, sealValue } from '../../credentials/seal.js';
import type { CredentialTable } from '../credential-rows.js';
import { mergeLayers } from '../merge.js';
import { parseLayer } from '../parse.js';
import type { LayerKind, LayerRef } from '../types.js';

const FAST = 10;
const value = new TextEncoder().encode('sk-test-value');

let mine: CredentialTable;
let theirs: CredentialTable;
let ownRow: string;
let foreignRow: string;

beforeAll(async () => {
  const a = await createIdentity('one', FAST);
  const b = await createIdentity('two', FAST);
  mine = a.table;
  theirs = b.table;
  ownRow = await sealValue(mine.recipient, 'encrypted', 'API_KEY', value);
  foreignRow = await sealValue(theirs.recipient, 'encrypted', 'API_KEY', value);
});

function table(t: CredentialTable): string {
  return `[credentials]\nrecipient = "${t.recipient}"\nidentity = "${t.identity}"\n`;
}

function parse(text: string, kind: LayerKind = 'project') {
  return parseLayer(text, { file: '/store/byre.config', kind, name: kind });
}

describe('credential rows', () => {
  it('accepts a row sealed to this file’s identity', () => {
    const r = parse(`[env_from_host]\nAPI_KEY = "${ownRow}"\n\n${table(mine)}`);
    expect(r.issues).toEqual([]);
    expect(r.value?.credentials).toEqual(mine);
  });

  it('refuses a row copied from another file, at its line and key', () => {
    const r = parse(
      `engine = "auto"\n\n[env_from_host]\nAPI_KEY = "${foreignRow}"\n\n${table(mine)}`,
    );
    expect(r.value).toBeNull();
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({
      rule: 'config.credential-foreign',
      location: { file: '/store/byre.config', line: 4, column: 1, key: 'env_from_host.API_KEY' },
    });
    expect(r.issues[0]?.message).toContain("another file's identity");
    expect(r.issues[0]?.fix).toContain('byre credential add API_KEY');
  });

  it('refuses a row in a file with no identity', () => {
    const r = parse(`[env_from_host]\nAPI_KEY = "${ownRow}"\n`);
    expect(r.issues[0]).toMatchObject({
      rule: 'config.credential-no-identity',
      location: { line: 2, key: 'env_from_host.API_KEY' },
    });
  });

  it.each([
    ['a bad key id', (row: string) => row.replace(/^encrypted:[0-9a-f]{16}/, 'encrypted:XYZ')],
    ['a ciphertext that is not base64', (row: string) => `${row}!`],
    ['no ciphertext', () => 'encrypted:0123456789abcdef'],
  ])('refuses a row with %s, without quoting it', (_why, mangle) => {
    const row = mangle(ownRow);
    const r = parse(`[env_from_host]\nAPI_KEY = "${row}"\n\n${table(mine)}`);
    expect(r.issues[0]).toMatchObject({ rule: 'config.env-source-invalid' });
    if (row.length > 60) expect(r.issues[0]?.message).not.toContain(row.slice(30, 60));
  });

  it('lets "" disable a credential from a lower layer', () => {
    const r = parse(`[env_from_host]\nAPI_KEY = ""\n`);
    expect(r.issues).toEqual([]);
  });
});

describe('the [credentials] table', () => {
  it('refuses an unprotected secret key', () => {
    const r = parse(
      `[credentials]\nrecipient = "${mine.recipient}"\nidentity = "AGE-SECRET-KEY-1${'Q'.repeat(58)}"\n`,
    );
    expect(r.issues[0]).toMatchObject({
      rule: 'config.credential-identity-invalid',
      location: { line: 3, key: 'credentials.identity' },
    });
    expect(r.issues[0]?.message).toContain('unprotected');
  });

  it('refuses a half table and unknown keys', () => {
    expect(parse(`[credentials]\nrecipient = "${mine.recipient}"\n`).issues[0]).toMatchObject({
      rule: 'config.missing-key',
      location: { key: 'credentials.identity' },
    });
    expect(parse(`${table(mine)}passphrase = "x"\n`).issues[0]).toMatchObject({
      rule: 'config.unknown-key',
      location: { key: 'credentials.passphrase' },
    });
  });

  it('is banned in a template, which others install', () => {
    const r = parse(table(mine), 'template');
    expect(r.issues.map((i) => i.rule)).toContain('config.key-banned-here');
  });
});

describe('merge', () => {
  it('keeps each file’s identity with its layer and merges rows per key', () => {
    const ref = (kind: LayerKind, path: string): LayerRef => ({ kind, name: kind, path });
    const lower = parse(`[env_from_host]\nAPI_KEY = "${ownRow}"\n\n${table(mine)}`).value;
    const upper = parse(`[env_from_host]\nAPI_KEY = ""\n`).value;
    if (lower === null || upper === null) throw new Error('fixture invalid');
    const config = mergeLayers([
      { ref: ref('default', '/d'), raw: lower },
      { ref: ref('project', '/p'), raw: upper },
    ]);
    expect(config.credentials).toEqual([{ value: mine, from: ref('default', '/d') }]);
    expect(config.envFromHost['API_KEY']).toEqual({ value: '', from: ref('project', '/p') });
  });
});
