// The cryptography of credentials (adr/0012), over the age-encryption package:
// a file's identity is an age X25519 key sealed with the passphrase through
// age's scrypt recipient (its key derivation native, adr/0054); each row is an age file sealed to that identity's
// recipient, whose plaintext names the row's kind and key so a row moved to
// another key (or another file) is refused rather than delivered. An
// injected row (adr/0070) also seals the canonical binding of its rules, so a
// file edited to send the secret elsewhere no longer matches what it opens.
//
// Nothing here reads files or prints. Failures come back as data whose text
// never contains a passphrase, a secret key or a decrypted value.

import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';

import {
  formatRow,
  keyIdOf,
  MAX_CREDENTIAL_BYTES,
  SEALED_KINDS,
  sealedIdentityBytes,
  type CredentialKind,
  type CredentialTable,
  type SealedKind,
  type SealedRow,
} from '../config/credential-rows.js';
import { injectionBinding, parseInjectionBinding, type InjectRule } from '../config/inject.js';
import { NativeScryptIdentity, NativeScryptRecipient } from './scrypt-stanza.js';

/** An opened identity. Holds the secret key: never logged, never written unsealed. */
export interface UnlockedIdentity {
  recipient: string;
  keyId: string;
  secretKey: string;
}

interface Failure {
  ok: false;
  rule: string;
  message: string;
}

type Result<T> = ({ ok: true } & T) | Failure;

/**
 * The scrypt work factor new identities are sealed with (2^16, 64 MiB):
 * about 0.3 s per unlock with native scrypt on these machines, right or wrong
 * passphrase. age's own default, 2^18, cost 1.2 s (adr/0054). Any factor up
 * to age's limit still opens.
 */
export const DEFAULT_WORK_FACTOR = 16;

const FRAME_MAGIC = 'byre-credential/v1';
const SECRET_KEY = /^AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}$/;

function fail(rule: string, message: string): Failure {
  return { ok: false, rule, message };
}

/** A fresh identity sealed with `passphrase`, as the table to write and the opened key. */
export async function createIdentity(
  passphrase: string,
  workFactor: number = DEFAULT_WORK_FACTOR,
): Promise<{ table: CredentialTable; identity: UnlockedIdentity }> {
  const secretKey = await generateX25519Identity();
  const recipient = await identityToRecipient(secretKey);
  const identity: UnlockedIdentity = { recipient, keyId: keyIdOf(recipient), secretKey };
  return { table: await sealIdentity(identity, passphrase, workFactor), identity };
}

/** Seal an opened identity with a (new) passphrase. */
async function sealIdentity(
  identity: UnlockedIdentity,
  passphrase: string,
  workFactor: number = DEFAULT_WORK_FACTOR,
): Promise<CredentialTable> {
  const encrypter = new Encrypter();
  encrypter.addRecipient(new NativeScryptRecipient(passphrase, workFactor));
  const sealed = await encrypter.encrypt(identity.secretKey);
  return { recipient: identity.recipient, identity: Buffer.from(sealed).toString('base64') };
}

/**
 * Open a table's identity with the passphrase. The table must already have
 * passed `tableProblem`. A wrong passphrase and a table whose two halves no
 * longer belong together are told apart.
 */
export async function unlockIdentity(
  table: CredentialTable,
  passphrase: string,
): Promise<Result<{ identity: UnlockedIdentity }>> {
  const decrypter = new Decrypter();
  decrypter.addIdentity(new NativeScryptIdentity(passphrase));
  let secretKey: string;
  try {
    secretKey = await decrypter.decrypt(sealedIdentityBytes(table), 'text');
  } catch (error) {
    const text = error instanceof Error ? error.message : '';
    if (/no identity matched/.test(text)) {
      return fail('credential.wrong-passphrase', 'the passphrase does not open this identity');
    }
    return fail(
      'credential.identity-unreadable',
      'the sealed identity is damaged (it does not decrypt as an age file)',
    );
  }
  if (!SECRET_KEY.test(secretKey)) {
    return fail(
      'credential.identity-unreadable',
      'the sealed identity does not hold an age X25519 secret key',
    );
  }
  const recipient = await identityToRecipient(secretKey);
  if (recipient !== table.recipient) {
    return fail(
      'credential.identity-mismatch',
      'recipient and identity do not belong together (the table was edited)',
    );
  }
  return { ok: true, identity: { recipient, keyId: keyIdOf(recipient), secretKey } };
}

function frame(kind: SealedKind, key: string): Uint8Array {
  return new TextEncoder().encode(`${FRAME_MAGIC}\n${kind}\n${key}\n`);
}

/** Why a plaintext cannot be a credential of this kind, or null. Never quotes the value. */
export function valueProblem(kind: SealedKind, value: Uint8Array): string | null {
  if (value.length === 0) return 'the value is empty';
  if (value.length > MAX_CREDENTIAL_BYTES) {
    return `the value is ${value.length} bytes; credentials are capped at ${MAX_CREDENTIAL_BYTES} bytes`;
  }
  if (kind !== 'encrypted-file' && value.includes(0)) {
    return 'an environment value cannot contain a NUL byte (seal it as a file instead)';
  }
  return null;
}

/** Encrypt `head` + `value` to a recipient as a row of `kind`; the plaintext is wiped after. */
async function sealFrame(
  recipient: string,
  kind: SealedKind,
  head: Uint8Array,
  value: Uint8Array,
): Promise<string> {
  const problem = valueProblem(kind, value);
  if (problem !== null) throw new RangeError(problem);
  const plaintext = new Uint8Array(head.length + value.length);
  plaintext.set(head, 0);
  plaintext.set(value, head.length);
  const encrypter = new Encrypter();
  encrypter.addRecipient(recipient);
  const ciphertext = await encrypter.encrypt(plaintext);
  plaintext.fill(0);
  return formatRow(kind, keyIdOf(recipient), ciphertext);
}

/** Seal `value` for `key` to a recipient; returns the row text. No passphrase needed. */
export async function sealValue(
  recipient: string,
  kind: CredentialKind,
  key: string,
  value: Uint8Array,
): Promise<string> {
  return sealFrame(recipient, kind, frame(kind, key), value);
}

/** The head of an injected frame: kind, key, then the binding line (adr/0070). */
function injectedHead(key: string, binding: string): Uint8Array {
  const head = frame('injected', key);
  const line = new TextEncoder().encode(`${binding}\n`);
  const out = new Uint8Array(head.length + line.length);
  out.set(head, 0);
  out.set(line, head.length);
  return out;
}

/**
 * Seal `value` for `key` with the rules that say where the edge presents it:
 * the frame is `byre-credential/v1\ninjected\n<KEY>\n<binding>\n<value>`, the
 * binding `injectionBinding(rules)`. Rules naming no host, or a host twice,
 * are refused (the config rules refuse them first).
 */
export async function sealInjected(
  recipient: string,
  key: string,
  rules: readonly InjectRule[],
  value: Uint8Array,
): Promise<string> {
  const binding = injectionBinding(rules);
  if (parseInjectionBinding(binding) === null) {
    throw new RangeError('the rules must name at least one host, each once');
  }
  return sealFrame(recipient, 'injected', injectedHead(key, binding), value);
}

function sameBytes(a: Uint8Array, b: Uint8Array, at: number): boolean {
  if (a.length < at + b.length) return false;
  for (let i = 0; i < b.length; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

/** The key and kind a plaintext was sealed for, read from its frame (for the refusal text). */
function sealedFor(plaintext: Uint8Array): string | null {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(plaintext.subarray(0, 200));
  const [magic, kind, key] = text.split('\n');
  // Only a well-formed frame is quoted back: anything else could be value bytes.
  if (magic !== FRAME_MAGIC || key === undefined) return null;
  if (!SEALED_KINDS.some((k) => k === kind) || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(key)) {
    return null;
  }
  return `${kind} ${key}`;
}

/** Decrypt a row and check its frame's kind and key; the plaintext whole (caller wipes it). */
async function openFrame(
  identity: UnlockedIdentity,
  key: string,
  row: SealedRow<SealedKind>,
): Promise<Result<{ plaintext: Uint8Array; at: number }>> {
  if (row.keyId !== identity.keyId) {
    return fail(
      'credential.row-foreign',
      `the row was sealed to another identity (key id ${row.keyId}; this file's is ${identity.keyId})`,
    );
  }
  const decrypter = new Decrypter();
  decrypter.addIdentity(identity.secretKey);
  let plaintext: Uint8Array;
  try {
    plaintext = await decrypter.decrypt(row.ciphertext);
  } catch (error) {
    const text = error instanceof Error ? error.message : '';
    if (/no identity matched/.test(text)) {
      return fail(
        'credential.row-foreign',
        "the row was sealed to another identity (its key id was edited to match this file's)",
      );
    }
    return fail('credential.row-unreadable', 'the ciphertext was altered or is damaged');
  }
  const head = frame(row.kind, key);
  if (!sameBytes(plaintext, head, 0)) {
    const was = sealedFor(plaintext);
    plaintext.fill(0);
    return fail(
      'credential.row-moved',
      was === null
        ? 'the row does not carry a byre credential'
        : `the row was sealed as ${was}, not ${row.kind} ${key}; rows cannot be moved between keys`,
    );
  }
  return { ok: true, plaintext, at: head.length };
}

/**
 * Open a row sealed for `key`. A row sealed to another identity, sealed for
 * another key or kind, or altered in any byte is refused.
 */
export async function openRow(
  identity: UnlockedIdentity,
  key: string,
  row: SealedRow,
): Promise<Result<{ value: Uint8Array }>> {
  const opened = await openFrame(identity, key, row);
  if (!opened.ok) return opened;
  const value = opened.plaintext.slice(opened.at);
  opened.plaintext.fill(0);
  const problem = valueProblem(row.kind, value);
  if (problem !== null) return fail('credential.row-invalid', problem);
  return { ok: true, value };
}

/** The longest binding line read: far beyond any real rule set, short of any value. */
const MAX_BINDING_BYTES = 64 * 1024;

/**
 * Open an injected row sealed for `key` (adr/0070): the value and the binding
 * sealed with it (its canonical text and the rules it names), which develop
 * compares with the file's rules (`bindingFindings`). Refused as openRow
 * refuses, and when the binding line is missing or not exactly what
 * injectionBinding writes. No refusal quotes the value or the binding.
 */
export async function openInjected(
  identity: UnlockedIdentity,
  key: string,
  row: SealedRow<'injected'>,
): Promise<Result<{ value: Uint8Array; binding: string; rules: InjectRule[] }>> {
  const opened = await openFrame(identity, key, row);
  if (!opened.ok) return opened;
  const { plaintext, at } = opened;
  const end = plaintext.subarray(at, at + MAX_BINDING_BYTES + 1).indexOf(0x0a);
  let line: string | null = null;
  try {
    if (end >= 0)
      line = new TextDecoder('utf-8', { fatal: true }).decode(plaintext.subarray(at, at + end));
  } catch {
    line = null;
  }
  const rules = line === null ? null : parseInjectionBinding(line);
  if (line === null || rules === null) {
    plaintext.fill(0);
    return fail(
      'credential.binding-invalid',
      `the injected row for ${key} does not carry the canonical binding of its rules`,
    );
  }
  const value = plaintext.slice(at + end + 1);
  plaintext.fill(0);
  const problem = valueProblem('injected', value);
  if (problem !== null) return fail('credential.row-invalid', problem);
  return { ok: true, value, binding: line, rules };
}
