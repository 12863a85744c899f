// age's passphrase stanza (`-> scrypt <salt> <logN>`) with the key derivation
// in the runtime's native scrypt instead of age-encryption's JavaScript one,
// which cost seconds per unlock (adr/0054). The stanza, its parameters and
// the file-key wrap are age's own, so a file sealed here opens with the
// age-encryption library and the age CLI, and the other way round. No IO.

import { randomBytes, scrypt as scryptCallback } from 'node:crypto';

import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { Stanza, type Identity, type Recipient } from 'age-encryption';

/** age's scrypt label; the salt follows it. */
const LABEL = 'age-encryption.org/v1/scrypt';
const SALT_BYTES = 16;
/** age-encryption refuses a larger work factor (2^20 × 1 KiB = 1 GiB of memory). */
const MAX_WORK_FACTOR = 20;
/** age's wrap: ChaCha20-Poly1305 under the derived key with an all-zero nonce. */
const ZERO_NONCE = new Uint8Array(12);
const WRAPPED_BYTES = 32;

/** age's unpadded standard base64. */
function base64NoPad(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}

/** The salt, or null unless it is exactly 16 bytes in canonical unpadded base64. */
function parseSalt(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]{22}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === SALT_BYTES && base64NoPad(bytes) === text ? bytes : null;
}

/** scrypt(passphrase, label ‖ salt, N = 2^logN, r = 8, p = 1) → 32 bytes, natively. */
function deriveKey(passphrase: string, salt: Uint8Array, logN: number): Promise<Uint8Array> {
  const labelled = Buffer.concat([Buffer.from(LABEL, 'utf8'), salt]);
  const N = 2 ** logN;
  // scrypt needs 128·r·N bytes; Node's default cap (32 MiB) stops at 2^15.
  const maxmem = 128 * 8 * N + 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    scryptCallback(passphrase, labelled, 32, { N, r: 8, p: 1, maxmem }, (error, key) => {
      // bun passes `undefined` where Node passes `null` for no error.
      if (error) reject(error);
      else resolve(new Uint8Array(key));
    });
  });
}

/** Seals a file key to a passphrase, as age's scrypt recipient does. */
export class NativeScryptRecipient implements Recipient {
  constructor(
    private readonly passphrase: string,
    private readonly logN: number,
  ) {
    if (!Number.isInteger(logN) || logN < 1 || logN > MAX_WORK_FACTOR) {
      throw new RangeError(`scrypt work factor ${logN} is outside 1..${MAX_WORK_FACTOR}`);
    }
  }

  async wrapFileKey(fileKey: Uint8Array): Promise<Stanza[]> {
    const salt = new Uint8Array(randomBytes(SALT_BYTES));
    const key = await deriveKey(this.passphrase, salt, this.logN);
    const body = chacha20poly1305(key, ZERO_NONCE).encrypt(fileKey);
    return [new Stanza(['scrypt', base64NoPad(salt), String(this.logN)], body)];
  }
}

/**
 * Opens a file sealed to a passphrase, with age's rules: a scrypt stanza must
 * be the header's only one and well formed (else it throws, as age does); a
 * wrong passphrase is null, which age-encryption reports as "no identity
 * matched".
 */
export class NativeScryptIdentity implements Identity {
  constructor(private readonly passphrase: string) {}

  async unwrapFileKey(stanzas: Stanza[]): Promise<Uint8Array | null> {
    for (const s of stanzas) {
      if (s.args[0] !== 'scrypt') continue;
      if (stanzas.length !== 1)
        throw new Error('scrypt recipient is not the only one in the header');
      const [, saltText, logText] = s.args;
      const salt = s.args.length === 3 && saltText !== undefined ? parseSalt(saltText) : null;
      if (salt === null || logText === undefined || !/^[1-9][0-9]*$/.test(logText)) {
        throw new Error('invalid scrypt stanza');
      }
      const logN = Number(logText);
      if (logN > MAX_WORK_FACTOR) throw new Error('scrypt work factor is too high');
      if (s.body.length !== WRAPPED_BYTES) throw new Error('invalid stanza');
      const key = await deriveKey(this.passphrase, salt, logN);
      try {
        return chacha20poly1305(key, ZERO_NONCE).decrypt(s.body);
      } catch {
        return null;
      }
    }
    return null;
  }
}

/**
 * The work factor (logN) of an age file sealed to a passphrase, read from its
 * header; null for any other file. Nothing is decrypted.
 */
export function sealedWorkFactor(file: Uint8Array): number | null {
  const head = Buffer.from(file.subarray(0, 80)).toString('latin1');
  const m = /^age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22} ([1-9][0-9]?)\n/.exec(head);
  return m === null ? null : Number(m[1]);
}
