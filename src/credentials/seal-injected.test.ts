// The sealed frame of an injected credential (adr/0070): the value sealed with
// the canonical binding of its rules, opened back as both; every refusal
// (moved key, wrong kind, a binding line not byre's, a foreign identity)
// checked never to quote the value; and rekey's halves carrying the frame
// through unchanged.

import { Encrypter } from 'age-encryption';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  formatRow,
  keyIdOf,
  parseInjectedRow,
  parseRow,
  type SealedRow,
} from '../config/credential-rows.js';
import {
  injectionBinding,
  parseInjectHost,
  type InjectHost,
  type InjectRule,
} from '../config/inject.js';
import type { LayerRef } from '../config/types.js';
import { clearSecrets } from '../output/redact.js';
import { openFileRow, resealRow } from './open.js';
import {
  createIdentity,
  openInjected,
  openRow,
  sealInjected,
  sealValue,
  type UnlockedIdentity,
} from './seal.js';

const FAST = 10;
const SECRET = 'ghp-planted-7d1e5a0c2b';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const FILE: LayerRef = { kind: 'project', name: 'project', path: '/s/projects/p/byre.config' };
const RULES: InjectRule[] = [
  {
    hosts: [parseInjectHost('github.com') as InjectHost],
    presentation: { kind: 'basic', user: 'x-access-token' },
  },
  { hosts: [parseInjectHost('api.github.com') as InjectHost], presentation: { kind: 'bearer' } },
];
const BINDING = '[["api.github.com:443","bearer"],["github.com:443","basic x-access-token"]]';

let identity: UnlockedIdentity;

beforeAll(async () => {
  identity = (await createIdentity('correct horse', FAST)).identity;
});

afterEach(() => clearSecrets());

function injectedRow(text: string): SealedRow<'injected'> {
  const parsed = parseInjectedRow(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.row;
}

function deliveredRow(text: string): SealedRow {
  const parsed = parseRow(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.row;
}

/** A row of `kind` whose plaintext is exactly `plaintext`: what a forger with the recipient can make. */
async function forged(
  kind: 'injected',
  plaintext: string | Uint8Array,
): Promise<SealedRow<'injected'>> {
  const encrypter = new Encrypter();
  encrypter.addRecipient(identity.recipient);
  const ciphertext = await encrypter.encrypt(
    typeof plaintext === 'string' ? bytes(plaintext) : plaintext,
  );
  return injectedRow(formatRow(kind, keyIdOf(identity.recipient), ciphertext));
}

function expectNoSecret(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(SECRET);
  expect(JSON.stringify(value)).not.toContain(Buffer.from(SECRET).toString('base64'));
}

describe('sealing and opening an injected row', () => {
  it('opens the value and the binding sealed with it', async () => {
    const text = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    expect(text).toMatch(/^injected:[0-9a-f]{16}:/);
    expect(text).not.toContain(SECRET);
    const opened = await openInjected(identity, 'GITHUB_TOKEN', injectedRow(text));
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(Buffer.from(opened.value).toString()).toBe(SECRET);
    expect(opened.binding).toBe(BINDING);
    expect(opened.binding).toBe(injectionBinding(RULES));
    expect(injectionBinding(opened.rules)).toBe(BINDING);
  });

  it('seals the frame byre-credential/v1, injected, KEY, binding, value', async () => {
    // Opening a hand-made frame of exactly that shape proves the layout.
    const row = await forged(
      'injected',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n${BINDING}\n${SECRET}`,
    );
    const opened = await openInjected(identity, 'GITHUB_TOKEN', row);
    expect(opened).toMatchObject({ ok: true, binding: BINDING });
  });

  it('keeps a value that holds line breaks whole (only the first line after the key is the binding)', async () => {
    const value = `${SECRET}\nsecond line`;
    const text = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(value));
    const opened = await openInjected(identity, 'GITHUB_TOKEN', injectedRow(text));
    expect(opened.ok && Buffer.from(opened.value).toString()).toBe(value);
  });

  it.each([
    ['no rule', []],
    ['a rule naming no host', [{ hosts: [], presentation: { kind: 'bearer' } }]],
    [
      'a host twice',
      [
        ...RULES,
        { hosts: [parseInjectHost('github.com') as InjectHost], presentation: { kind: 'bearer' } },
      ],
    ],
  ] as [string, InjectRule[]][])('refuses to seal %s', async (_why, rules) => {
    await expect(
      sealInjected(identity.recipient, 'GITHUB_TOKEN', rules, bytes(SECRET)),
    ).rejects.toThrow(/at least one host, each once/);
  });

  it('refuses an empty value as the delivered kinds do', async () => {
    await expect(
      sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, new Uint8Array()),
    ).rejects.toThrow(/empty/);
  });
});

describe('refusals, none quoting the value', () => {
  it('refuses a row moved to another key', async () => {
    const text = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    const moved = await openInjected(identity, 'OTHER_TOKEN', injectedRow(text));
    expect(moved).toMatchObject({ ok: false, rule: 'credential.row-moved' });
    expect(moved.ok ? '' : moved.message).toContain('sealed as injected GITHUB_TOKEN');
    expectNoSecret(moved);
  });

  it('refuses an injected row opened as a delivered kind', async () => {
    const text = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    for (const kind of ['encrypted', 'encrypted-file']) {
      const relabelled = deliveredRow(text.replace(/^injected:/, `${kind}:`));
      const opened = await openRow(identity, 'GITHUB_TOKEN', relabelled);
      expect(opened).toMatchObject({ ok: false, rule: 'credential.row-moved' });
      expect(opened.ok ? '' : opened.message).toContain('sealed as injected GITHUB_TOKEN');
      expectNoSecret(opened);
    }
  });

  it('refuses a delivered row opened as injected', async () => {
    for (const kind of ['encrypted', 'encrypted-file'] as const) {
      const text = await sealValue(identity.recipient, kind, 'GITHUB_TOKEN', bytes(SECRET));
      const relabelled = injectedRow(text.replace(`${kind}:`, 'injected:'));
      const opened = await openInjected(identity, 'GITHUB_TOKEN', relabelled);
      expect(opened).toMatchObject({ ok: false, rule: 'credential.row-moved' });
      expect(opened.ok ? '' : opened.message).toContain(`sealed as ${kind} GITHUB_TOKEN`);
      expectNoSecret(opened);
    }
  });

  it('refuses a row sealed to another identity', async () => {
    const theirs = (await createIdentity('another', FAST)).identity;
    const text = await sealInjected(theirs.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    const opened = await openInjected(identity, 'GITHUB_TOKEN', injectedRow(text));
    expect(opened).toMatchObject({ ok: false, rule: 'credential.row-foreign' });
    expectNoSecret(opened);
  });

  it.each([
    ['no binding line at all', `byre-credential/v1\ninjected\nGITHUB_TOKEN\n${SECRET}`],
    [
      'the value where the binding goes',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n${SECRET}\n${SECRET}`,
    ],
    ['an empty binding line', `byre-credential/v1\ninjected\nGITHUB_TOKEN\n\n${SECRET}`],
    ['an empty list', `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[]\n${SECRET}`],
    [
      'spaces in the JSON',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["api.github.com:443", "bearer"]]\n${SECRET}`,
    ],
    [
      'unsorted pairs',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["github.com:443","bearer"],["api.github.com:443","bearer"]]\n${SECRET}`,
    ],
    [
      'a port left out',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["api.github.com","bearer"]]\n${SECRET}`,
    ],
    [
      'a host twice',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["a.example.com:443","bearer"],["a.example.com:443","bearer"]]\n${SECRET}`,
    ],
    [
      'an unknown presentation',
      `byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["api.github.com:443","cookie"]]\n${SECRET}`,
    ],
    [
      'a line that is not UTF-8',
      Buffer.concat([
        Buffer.from('byre-credential/v1\ninjected\nGITHUB_TOKEN\n[["github.com:443","basic '),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(`"]]\n${SECRET}`),
      ]),
    ],
  ])('refuses a frame with %s: credential.binding-invalid', async (_why, plaintext) => {
    const opened = await openInjected(
      identity,
      'GITHUB_TOKEN',
      await forged('injected', plaintext),
    );
    expect(opened).toMatchObject({ ok: false, rule: 'credential.binding-invalid' });
    expectNoSecret(opened);
  });

  it('refuses a frame whose binding is canonical but whose value is empty', async () => {
    const opened = await openInjected(
      identity,
      'GITHUB_TOKEN',
      await forged('injected', `byre-credential/v1\ninjected\nGITHUB_TOKEN\n${BINDING}\n`),
    );
    expect(opened).toMatchObject({ ok: false, rule: 'credential.row-invalid' });
  });

  it('refuses an altered ciphertext', async () => {
    const row = injectedRow(
      await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET)),
    );
    const ciphertext = Uint8Array.from(row.ciphertext);
    ciphertext[ciphertext.length - 1] = (ciphertext[ciphertext.length - 1] ?? 0) ^ 1;
    const opened = await openInjected(identity, 'GITHUB_TOKEN', { ...row, ciphertext });
    expect(opened).toMatchObject({ ok: false, rule: 'credential.row-unreadable' });
    expectNoSecret(opened);
  });
});

describe("rekey's halves", () => {
  it('carry an injected frame to a new identity unchanged', async () => {
    const next = (await createIdentity('new passphrase', FAST)).identity;
    const source = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    const opened = await openFileRow(identity, { key: 'GITHUB_TOKEN', source, from: FILE });
    expect(opened.kind).toBe('injected');
    const resealed = await resealRow(next.recipient, opened);
    expect(resealed).toMatch(new RegExp(`^injected:${next.keyId}:`));
    expect(await openInjected(identity, 'GITHUB_TOKEN', injectedRow(resealed))).toMatchObject({
      ok: false,
      rule: 'credential.row-foreign',
    });
    const again = await openInjected(next, 'GITHUB_TOKEN', injectedRow(resealed));
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.binding).toBe(BINDING);
    expect(Buffer.from(again.value).toString()).toBe(SECRET);
  });

  it('carry a delivered row as before', async () => {
    const next = (await createIdentity('new passphrase', FAST)).identity;
    const source = await sealValue(identity.recipient, 'encrypted-file', 'CERT', bytes(SECRET));
    const opened = await openFileRow(identity, { key: 'CERT', source, from: FILE });
    const resealed = await resealRow(next.recipient, opened);
    const again = await openRow(next, 'CERT', deliveredRow(resealed));
    expect(again.ok && Buffer.from(again.value).toString()).toBe(SECRET);
  });

  it('refuse, located and without the value, an injected row moved to another key', async () => {
    const source = await sealInjected(identity.recipient, 'GITHUB_TOKEN', RULES, bytes(SECRET));
    const error = await openFileRow(identity, { key: 'OTHER', source, from: FILE }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      rule: 'credential.row-moved',
      location: { file: FILE.path, key: 'env_from_host.OTHER' },
    });
    expect(String((error as Error).message)).not.toContain(SECRET);
  });
});
