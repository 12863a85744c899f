import { describe, expect, it } from 'vitest';

import { keyIdOf, parseRow, tableProblem, type SealedRow } from '../config/credential-rows.js';
import {
  createIdentity,
  openRow,
  sealValue,
  unlockIdentity,
  valueProblem,
  type UnlockedIdentity,
} from './seal.js';

// A low scrypt work factor keeps the suite fast; the format is the same.
const FAST = 10;
const SECRET = 'sk-planted-3c5e1f0a9b';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

async function fresh(passphrase = 'correct horse'): Promise<{
  table: Awaited<ReturnType<typeof createIdentity>>['table'];
  identity: UnlockedIdentity;
}> {
  return createIdentity(passphrase, FAST);
}

function rowOf(text: string): SealedRow {
  const parsed = parseRow(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.row;
}

function expectNoSecret(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(SECRET);
}

describe('identities', () => {
  it('creates a passphrase-sealed identity that the same passphrase opens', async () => {
    const { table, identity } = await fresh();
    expect(tableProblem(table)).toBeNull();
    expect(table.identity).not.toContain('AGE-SECRET-KEY');
    const opened = await unlockIdentity(table, 'correct horse');
    expect(opened).toEqual({ ok: true, identity });
    expect(identity.keyId).toBe(keyIdOf(table.recipient));
  });

  it('refuses a wrong passphrase without saying anything about the key', async () => {
    const { table, identity } = await fresh();
    const opened = await unlockIdentity(table, 'battery staple');
    expect(opened).toMatchObject({ ok: false, rule: 'credential.wrong-passphrase' });
    expect(JSON.stringify(opened)).not.toContain(identity.secretKey);
  });

  it('refuses a table whose recipient and identity come from different tables', async () => {
    const a = await fresh();
    const b = await fresh();
    const opened = await unlockIdentity(
      { recipient: b.table.recipient, identity: a.table.identity },
      'correct horse',
    );
    expect(opened).toMatchObject({ ok: false, rule: 'credential.identity-mismatch' });
  });

  it('refuses a damaged sealed identity', async () => {
    const { table } = await fresh();
    const raw = Buffer.from(table.identity, 'base64');
    raw[raw.length - 2] = (raw[raw.length - 2] ?? 0) ^ 0xff;
    const opened = await unlockIdentity(
      { ...table, identity: raw.toString('base64') },
      'correct horse',
    );
    expect(opened).toMatchObject({ ok: false, rule: 'credential.identity-unreadable' });
  });

  it('seals each identity under its own passphrase only', async () => {
    const { table, identity } = await fresh('new phrase');
    expect(await unlockIdentity(table, 'new phrase')).toEqual({ ok: true, identity });
    expect(await unlockIdentity(table, 'correct horse')).toMatchObject({ ok: false });
  });
});

describe('rows', () => {
  it('round-trips an environment value and a binary file', async () => {
    const { identity } = await fresh();
    const env = await sealValue(identity.recipient, 'encrypted', 'API_KEY', bytes(SECRET));
    expect(env).toMatch(/^encrypted:[0-9a-f]{16}:/);
    expect(env).not.toContain(SECRET);
    expect(await openRow(identity, 'API_KEY', rowOf(env))).toEqual({
      ok: true,
      value: bytes(SECRET),
    });

    const binary = Uint8Array.from([0, 1, 2, 255, 10, 0]);
    const file = await sealValue(identity.recipient, 'encrypted-file', 'CERT', binary);
    expect(file).toMatch(/^encrypted-file:/);
    expect(await openRow(identity, 'CERT', rowOf(file))).toEqual({ ok: true, value: binary });
  });

  it('refuses tampered ciphertext anywhere in the file', async () => {
    const { identity } = await fresh();
    const row = rowOf(await sealValue(identity.recipient, 'encrypted', 'API_KEY', bytes(SECRET)));
    for (const at of [row.ciphertext.length - 1, row.ciphertext.length - 20, 60]) {
      const ciphertext = Uint8Array.from(row.ciphertext);
      ciphertext[at] = (ciphertext[at] ?? 0) ^ 0x01;
      const opened = await openRow(identity, 'API_KEY', { ...row, ciphertext });
      expect(opened.ok).toBe(false);
      expect(opened).toMatchObject({ rule: expect.stringMatching(/^credential\.row-/) });
      expectNoSecret(opened);
    }
  });

  it('refuses a row sealed to another identity, by key id and by cryptography', async () => {
    const mine = await fresh();
    const theirs = await fresh();
    const foreign = rowOf(
      await sealValue(theirs.identity.recipient, 'encrypted', 'API_KEY', bytes(SECRET)),
    );
    expect(await openRow(mine.identity, 'API_KEY', foreign)).toMatchObject({
      ok: false,
      rule: 'credential.row-foreign',
    });
    const relabelled = { ...foreign, keyId: mine.identity.keyId };
    const opened = await openRow(mine.identity, 'API_KEY', relabelled);
    expect(opened).toMatchObject({ ok: false, rule: 'credential.row-foreign' });
    expectNoSecret(opened);
  });

  it('refuses a row moved to another key or kind, naming only what it was sealed as', async () => {
    const { identity } = await fresh();
    const text = await sealValue(identity.recipient, 'encrypted', 'API_KEY', bytes(SECRET));
    const moved = await openRow(identity, 'OTHER_KEY', rowOf(text));
    expect(moved).toMatchObject({ ok: false, rule: 'credential.row-moved' });
    expect(moved.ok ? '' : moved.message).toContain('encrypted API_KEY');
    expectNoSecret(moved);
    const asFile = rowOf(text.replace(/^encrypted:/, 'encrypted-file:'));
    expect(await openRow(identity, 'API_KEY', asFile)).toMatchObject({
      ok: false,
      rule: 'credential.row-moved',
    });
  });

  it.each([
    ['encrypted', new Uint8Array(), 'empty'],
    ['encrypted', Uint8Array.from([65, 0, 66]), 'NUL'],
    ['encrypted-file', new Uint8Array(64 * 1024 + 1), 'capped'],
  ] as const)('refuses a %s value that is %s', (kind, value, why) => {
    expect(valueProblem(kind, value)).toContain(why);
  });

  it('accepts NUL bytes in a file value', () => {
    expect(valueProblem('encrypted-file', Uint8Array.from([0]))).toBeNull();
  });
});

describe('grammar', () => {
  const AGE_X25519 = Buffer.from('age-encryption.org/v1\n-> X25519 abc\n').toString('base64');
  const AGE_SCRYPT = Buffer.from('age-encryption.org/v1\n-> scrypt abc 18\n').toString('base64');

  it.each([
    ['encrypted:0123456789abcdef:' + AGE_X25519, true],
    ['encrypted-file:0123456789abcdef:' + AGE_X25519, true],
    ['encrypted:0123456789ABCDEF:' + AGE_X25519, false],
    ['encrypted:0123:' + AGE_X25519, false],
    ['encrypted:0123456789abcdef', false],
    ['encrypted:0123456789abcdef:', false],
    ['encrypted:0123456789abcdef:not base64!', false],
    ['encrypted:0123456789abcdef:' + AGE_SCRYPT, false],
    ['encrypted:0123456789abcdef:' + Buffer.from('hello').toString('base64'), false],
    ['env:HOME', false],
  ])('parseRow(%j) ok=%s', (source, ok) => {
    expect(parseRow(source).ok).toBe(ok);
  });

  it('never quotes the ciphertext back in a problem', () => {
    const parsed = parseRow('encrypted:0123456789abcdef:c2VjcmV0');
    expect(parsed.ok).toBe(false);
    expect(JSON.stringify(parsed)).not.toContain('c2VjcmV0');
  });

  it.each([
    [{ recipient: 'age1xyz', identity: AGE_SCRYPT }, 'recipient'],
    [
      {
        recipient: 'age1' + 'q'.repeat(58),
        identity: 'AGE-SECRET-KEY-1' + 'Q'.repeat(58),
      },
      'identity',
    ],
    [{ recipient: 'age1' + 'q'.repeat(58), identity: AGE_X25519 }, 'identity'],
    [{ recipient: 'age1' + 'q'.repeat(58), identity: 'nope' }, 'identity'],
  ])('tableProblem(%j) blames %s', (table, field) => {
    expect(tableProblem(table)?.field).toBe(field);
  });

  it('accepts a well-formed table', () => {
    expect(tableProblem({ recipient: 'age1' + 'q'.repeat(58), identity: AGE_SCRYPT })).toBeNull();
  });
});
