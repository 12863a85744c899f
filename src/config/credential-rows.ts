// The grammar of a credential row and of the [credentials] table that opens
// it (adr/0012), and which rows of a resolved cascade a box takes. Pure text
// in, typed values out: nothing here decrypts or reads a file. The config
// rules, the merge and everything downstream read rows through this module;
// src/credentials/ does the cryptography and the delivery.
//
//   KEY = "encrypted:<key id>:<base64 age file>"        (exported as KEY=value)
//   KEY = "encrypted-file:<key id>:<base64 age file>"   (KEY=path of a 0600 file)
//   KEY = "injected:<key id>:<base64 age file>"         (presented at the edge, adr/0070;
//                                                         the box holds a sentinel)
//
// The key id names the [credentials] identity the row was sealed to: the first
// 16 hex digits of sha256 over that identity's age1 recipient.

import { createHash } from 'node:crypto';

import type { CredentialTable, EffectiveConfig, LayerRef, Sourced } from './types.js';

export type { CredentialTable } from './types.js';

export type CredentialKind = 'encrypted' | 'encrypted-file';

const CREDENTIAL_KINDS: readonly CredentialKind[] = ['encrypted', 'encrypted-file'];

/**
 * Every kind a row is sealed as: the delivered kinds and `injected`, whose
 * value only the edge receives (adr/0070). `credentialKindOf` answers for
 * the delivered kinds alone: an `injected:` row is never delivered into the
 * box (config/inject.ts reads it).
 */
export type SealedKind = CredentialKind | 'injected';

export const SEALED_KINDS: readonly SealedKind[] = [...CREDENTIAL_KINDS, 'injected'];

export interface SealedRow<K extends SealedKind = CredentialKind> {
  kind: K;
  keyId: string;
  /** The binary age file. */
  ciphertext: Uint8Array;
}

/** Plaintext values are capped: a credential is a token or a small file, never a payload. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;

const KEY_ID = /^[0-9a-f]{16}$/;
/** Standard base64 with padding, as `Buffer.toString('base64')` writes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** An age X25519 recipient: `age1` plus 58 bech32 characters. */
const RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

const AGE_MAGIC = 'age-encryption.org/v1\n';
const X25519_STANZA = '-> X25519 ';
const SCRYPT_STANZA = '-> scrypt ';

/** The kind a source names, or null when it is not a credential row. */
export function credentialKindOf(source: string): CredentialKind | null {
  if (source.startsWith('encrypted-file:')) return 'encrypted-file';
  if (source.startsWith('encrypted:')) return 'encrypted';
  return null;
}

export function isCredentialSource(source: string): boolean {
  return credentialKindOf(source) !== null;
}

/** The identity's key id: what every row sealed to it carries. */
export function keyIdOf(recipient: string): string {
  return createHash('sha256').update(recipient).digest('hex').slice(0, 16);
}

export function formatRow(kind: SealedKind, keyId: string, ciphertext: Uint8Array): string {
  return `${kind}:${keyId}:${Buffer.from(ciphertext).toString('base64')}`;
}

function decodeBase64(text: string): Uint8Array | null {
  if (text === '' || !BASE64.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function startsWithText(bytes: Uint8Array, text: string, at = 0): boolean {
  const want = Buffer.from(text, 'latin1');
  if (bytes.length < at + want.length) return false;
  return Buffer.from(bytes.subarray(at, at + want.length)).equals(want);
}

/** An age file whose first stanza is `-> <stanza>` (the header's second line). */
function hasAgeHeader(bytes: Uint8Array, stanza: string): boolean {
  return startsWithText(bytes, AGE_MAGIC) && startsWithText(bytes, stanza, AGE_MAGIC.length);
}

type RowParse<K extends SealedKind> =
  { ok: true; row: SealedRow<K> } | { ok: false; problem: string };

function parseRowAs<K extends SealedKind>(kind: K, source: string): RowParse<K> {
  const rest = source.slice(kind.length + 1);
  const colon = rest.indexOf(':');
  if (colon < 0) return { ok: false, problem: `${kind}: needs <key id>:<ciphertext>` };
  const keyId = rest.slice(0, colon);
  if (!KEY_ID.test(keyId)) {
    return { ok: false, problem: `${kind}: the key id must be 16 lowercase hex digits` };
  }
  const ciphertext = decodeBase64(rest.slice(colon + 1));
  if (ciphertext === null) {
    return { ok: false, problem: `${kind}: the ciphertext is not base64` };
  }
  if (!hasAgeHeader(ciphertext, X25519_STANZA)) {
    return {
      ok: false,
      problem: `${kind}: the ciphertext is not an age file sealed to an X25519 identity`,
    };
  }
  return { ok: true, row: { kind, keyId, ciphertext } };
}

/** Parse a credential source; the problem text never quotes the ciphertext back. */
export function parseRow(source: string): RowParse<CredentialKind> {
  const kind = credentialKindOf(source);
  if (kind === null) return { ok: false, problem: 'not an encrypted: or encrypted-file: row' };
  return parseRowAs(kind, source);
}

/** Parse an `injected:` source (adr/0070), as parseRow does the delivered kinds. */
export function parseInjectedRow(source: string): RowParse<'injected'> {
  if (!source.startsWith('injected:')) return { ok: false, problem: 'not an injected: row' };
  return parseRowAs('injected', source);
}

/** Why a [credentials] table is unusable, or null. `identity` plaintext keys are refused. */
export function tableProblem(
  table: CredentialTable,
): { field: keyof CredentialTable; problem: string } | null {
  if (!RECIPIENT.test(table.recipient)) {
    return { field: 'recipient', problem: 'recipient must be an age X25519 recipient (age1…)' };
  }
  if (/AGE-SECRET-KEY-/i.test(table.identity)) {
    return {
      field: 'identity',
      problem: 'identity holds an unprotected age secret key; it must be sealed with a passphrase',
    };
  }
  const sealed = decodeBase64(table.identity);
  if (sealed === null || !hasAgeHeader(sealed, SCRYPT_STANZA)) {
    return {
      field: 'identity',
      problem: 'identity must be the base64 of an age file sealed with a passphrase (scrypt)',
    };
  }
  return null;
}

/** The sealed identity's bytes; call only after tableProblem returned null. */
export function sealedIdentityBytes(table: CredentialTable): Uint8Array {
  return new Uint8Array(Buffer.from(table.identity, 'base64'));
}

// ---------------------------------------------------------------------------
// The rows a box takes: every env_from_host entry whose source is an
// encrypted kind, unless an explicit [env] key of the same name wins (as it
// does over any passthrough).

export interface CredentialRowRef {
  key: string;
  kind: CredentialKind;
  /** The row as written (`encrypted:<key id>:<ciphertext>`). */
  source: string;
  /** The file the row sits in; its own [credentials] identity opens it. */
  from: LayerRef;
  /** An [env] key of the same name wins; the row is not delivered. */
  overridden: boolean;
}

/** Every credential row in the cascade, sorted by key. */
export function credentialRows(config: EffectiveConfig): CredentialRowRef[] {
  return Object.keys(config.envFromHost)
    .sort()
    .flatMap((key) => {
      const entry = config.envFromHost[key] as Sourced<string>;
      const kind = credentialKindOf(entry.value);
      if (kind === null) return [];
      return [{ key, kind, source: entry.value, from: entry.from, overridden: key in config.env }];
    });
}

/** The rows a box takes: what develop decrypts and delivers. */
export function deliveredCredentialRows(config: EffectiveConfig): CredentialRowRef[] {
  return credentialRows(config).filter((r) => !r.overridden);
}

/** Whether two refs name the same config file. */
export function sameLayer(a: LayerRef, b: LayerRef): boolean {
  return a.kind === b.kind && a.name === b.name && a.path === b.path;
}
