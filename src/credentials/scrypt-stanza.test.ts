import { Decrypter, Encrypter, Stanza } from 'age-encryption';
import { describe, expect, it } from 'vitest';

import { NativeScryptIdentity, NativeScryptRecipient, sealedWorkFactor } from './scrypt-stanza.js';

// A low work factor keeps the suite fast; the stanza is the same at any.
const FAST = 10;
const PASS = 'correct horse battery';

/** Sealed by the age CLI (1.1.1, Debian): `printf 'byre age-cli fixture\n' | age -p`, work factor 18. */
const AGE_CLI_FILE =
  'YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IHNjcnlwdCBCeGRIVVpsTU05ZCszTFBvWTVUb3hnIDE4ClFUekp0Q0hWYU44RzMvcHdSSFlPM1pIUmVKUGxVbXJ1VmQ0TkNRSFlSMHMKLS0tIDhlcEJNb2ZqVzBrRkw2MXhMTGJuRmxMZFozNTBGZVo5ZVl5aWE2OVdpWXcKe4h2KM44mHFi4LoGU8oLdThI8pPqLDVTNjps8pmR9Vif09YMqrK7YjBTYvOosciNV0e2PCo=';

async function sealNative(plaintext: string, passphrase = PASS, logN = FAST): Promise<Uint8Array> {
  const e = new Encrypter();
  e.addRecipient(new NativeScryptRecipient(passphrase, logN));
  return e.encrypt(plaintext);
}

async function openNative(file: Uint8Array, passphrase = PASS): Promise<string> {
  const d = new Decrypter();
  d.addIdentity(new NativeScryptIdentity(passphrase));
  return d.decrypt(file, 'text');
}

describe('age compatibility of the native scrypt stanza', () => {
  it('writes the header age writes for a passphrase', async () => {
    const head = new TextDecoder().decode((await sealNative('x')).subarray(0, 60));
    expect(head).toMatch(/^age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22} 10\n/);
  });

  it('opens what the age-encryption library sealed with a passphrase', async () => {
    const e = new Encrypter();
    e.setPassphrase(PASS);
    e.setScryptWorkFactor(FAST);
    expect(await openNative(await e.encrypt('from the library'))).toBe('from the library');
  });

  it('seals what the age-encryption library opens with the passphrase', async () => {
    const d = new Decrypter();
    d.addPassphrase(PASS);
    expect(await d.decrypt(await sealNative('from byre'), 'text')).toBe('from byre');
  });

  // The CLI always seals at 18: about a second idle, so a generous bound for a busy machine.
  it('opens a file the age CLI sealed (work factor 18)', { timeout: 60_000 }, async () => {
    expect(await openNative(Buffer.from(AGE_CLI_FILE, 'base64'))).toBe('byre age-cli fixture\n');
  });

  it('reads a wrong passphrase as no match, as the library does', async () => {
    const file = await sealNative('secret');
    await expect(openNative(file, 'battery staple')).rejects.toThrow(/no identity matched/);
    const d = new Decrypter();
    d.addPassphrase('battery staple');
    await expect(d.decrypt(file)).rejects.toThrow(/no identity matched/);
  });

  it('reads the work factor from the header alone', async () => {
    expect(sealedWorkFactor(await sealNative('x', PASS, 11))).toBe(11);
    expect(sealedWorkFactor(Buffer.from(AGE_CLI_FILE, 'base64'))).toBe(18);
    const e = new Encrypter();
    e.addRecipient('age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p');
    expect(sealedWorkFactor(await e.encrypt('x'))).toBeNull();
    expect(sealedWorkFactor(new Uint8Array())).toBeNull();
  });

  it.each([0, 21, 1.5])('refuses to seal at work factor %s', (logN) => {
    expect(() => new NativeScryptRecipient(PASS, logN)).toThrow(RangeError);
  });
});

describe('stanzas refused as age refuses them', () => {
  const SALT = 'AAAAAAAAAAAAAAAAAAAAAA';
  const BODY = new Uint8Array(32);
  const cases: [string, Stanza[], RegExp][] = [
    [
      'beside another stanza',
      [new Stanza(['scrypt', SALT, '10'], BODY), new Stanza(['X25519', 'x'], BODY)],
      /not the only one/,
    ],
    ['a missing work factor', [new Stanza(['scrypt', SALT], BODY)], /invalid scrypt stanza/],
    ['an extra argument', [new Stanza(['scrypt', SALT, '10', 'x'], BODY)], /invalid scrypt/],
    ['a padded salt', [new Stanza(['scrypt', `${SALT}==`, '10'], BODY)], /invalid scrypt/],
    ['a short salt', [new Stanza(['scrypt', 'AAAA', '10'], BODY)], /invalid scrypt/],
    [
      'a non-canonical salt',
      [new Stanza(['scrypt', 'AAAAAAAAAAAAAAAAAAAAAB', '10'], BODY)],
      /invalid/,
    ],
    ['a zero work factor', [new Stanza(['scrypt', SALT, '0'], BODY)], /invalid scrypt/],
    ['a leading zero', [new Stanza(['scrypt', SALT, '010'], BODY)], /invalid scrypt/],
    ['a work factor past 20', [new Stanza(['scrypt', SALT, '21'], BODY)], /too high/],
    ['a short body', [new Stanza(['scrypt', SALT, '10'], new Uint8Array(31))], /invalid stanza/],
  ];
  it.each(cases)('%s', async (_name, stanzas, error) => {
    await expect(new NativeScryptIdentity(PASS).unwrapFileKey(stanzas)).rejects.toThrow(error);
  });

  it('passes over stanzas of other kinds', async () => {
    const other = [new Stanza(['X25519', 'x'], new Uint8Array(32))];
    expect(await new NativeScryptIdentity(PASS).unwrapFileKey(other)).toBeNull();
  });
});
