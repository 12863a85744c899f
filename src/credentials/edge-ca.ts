// Minting a project's edge certificates (adr/0070): an ECDSA P-256 CA whose
// critical name constraint permits only the project's injected names, one
// leaf per name, and nothing else. The CA's private key is made
// non-extractable, used to sign the leaves and dropped: it is never written,
// never returned, and no certificate can be signed under the CA afterwards.
// No IO: the store (edge-store.ts) writes what this returns.
//
// @peculiar/x509 (and the Reflect polyfill its dependency injection needs)
// is imported on first use, as adr/0041 loads libraries few commands call:
// minting happens only when a project's injected names change or its leaves
// near expiry, so no other command evaluates it.

import { randomBytes, webcrypto } from 'node:crypto';

/** A leaf's lifetime: the longest a public CA may issue, which clients with their own cap accept. */
const LEAF_DAYS = 397;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Leaves start a minute back, so a clock a little behind the host's still accepts them. */
const BACKDATE_MS = 60 * 1000;
/** More names than any project injects; it bounds the CA and the store's listing. */
export const MAX_EDGE_NAMES = 64;
const MAX_NAME_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** One leaf: its name, its certificate and its private key (PKCS#8), PEM. */
export interface EdgeLeaf {
  name: string;
  certPem: string;
  keyPem: string;
}

/** What a mint yields: the CA's certificate (for the image) and one leaf per name, sorted by name. */
export interface EdgeSet {
  caPem: string;
  leaves: EdgeLeaf[];
}

/** An exact, lowercase DNS name with a dot (the grammar of an injected host's name), or false. */
export function isEdgeName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return false;
  return !/^[0-9.]+$/.test(name);
}

/** The names as a set, sorted; throws on a name an injection cannot have, or none, or too many. */
export function edgeNames(names: readonly string[]): string[] {
  const out = [...new Set(names)].sort();
  const bad = out.find((n) => !isEdgeName(n));
  if (bad !== undefined) throw new Error(`"${bad}" is not a DNS name the edge can serve`);
  if (out.length === 0 || out.length > MAX_EDGE_NAMES) {
    throw new Error(`the edge serves 1 to ${MAX_EDGE_NAMES} names, not ${out.length}`);
  }
  return out;
}

function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x100) return [0x81, n];
  if (n < 0x10000) return [0x82, n >> 8, n & 0xff];
  throw new Error('DER value too long');
}

function tlv(tag: number, content: readonly number[]): number[] {
  return [tag, ...derLength(content.length), ...content];
}

/** NameConstraints with one permitted dNSName subtree per name (RFC 5280), DER. */
function nameConstraintsValue(names: readonly string[]): number[] {
  const subtrees = names.flatMap((n) => tlv(0x30, tlv(0x82, [...Buffer.from(n, 'ascii')])));
  return tlv(0x30, tlv(0xa0, subtrees));
}

/**
 * The whole critical nameConstraints extension for `names` (sorted), as it
 * appears in the CA's DER: the store checks a CA by finding exactly these
 * bytes, without loading the certificate library.
 */
export function nameConstraintsExtension(names: readonly string[]): Buffer {
  const oid = [0x06, 0x03, 0x55, 0x1d, 0x1e];
  const critical = [0x01, 0x01, 0xff];
  return Buffer.from(tlv(0x30, [...oid, ...critical, ...tlv(0x04, nameConstraintsValue(names))]));
}

type X509 = typeof import('@peculiar/x509');
let x509: X509 | null = null;

async function x509Lib(): Promise<X509> {
  if (x509 === null) {
    await import('reflect-metadata');
    const lib = await import('@peculiar/x509');
    // Node's WebCrypto, named rather than found on a global.
    lib.cryptoProvider.set(
      webcrypto as unknown as Parameters<X509['PublicKey']['create']>[1] & object,
    );
    x509 = lib;
  }
  return x509;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

function serial(): string {
  // Positive (the high bit clear) and never zero-led to a shorter length.
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${(b64.match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Mints a CA for exactly `names` and a leaf for each, valid from `now` (a
 * minute back) for 397 days. `label` names the CA's subject (the project id).
 */
export async function mintEdgeSet(
  names: readonly string[],
  label: string,
  now: Date = new Date(),
): Promise<EdgeSet> {
  const wanted = edgeNames(names);
  const lib = await x509Lib();
  const subtle = webcrypto.subtle;
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const notAfter = new Date(notBefore.getTime() + LEAF_DAYS * DAY_MS);
  // Not extractable: the CA key cannot be exported even by this process.
  const caKeys = (await subtle.generateKey(EC, false, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const caName = `CN=byre edge CA ${label.replace(/[^A-Za-z0-9._-]/g, '-')}`;
  const ca = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: caName,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING,
    keys: caKeys,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      new lib.Extension('2.5.29.30', true, Uint8Array.from(nameConstraintsValue(wanted))),
    ],
  });
  const leaves: EdgeLeaf[] = [];
  for (const name of wanted) {
    const keys = (await subtle.generateKey(EC, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const leaf = await lib.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${name}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      extensions: [
        new lib.BasicConstraintsExtension(false, undefined, true),
        new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
        new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth], false),
        new lib.SubjectAlternativeNameExtension([{ type: 'dns', value: name }], false),
        await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await lib.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    const pkcs8 = await subtle.exportKey('pkcs8', keys.privateKey);
    leaves.push({ name, certPem: leaf.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', pkcs8) });
  }
  return { caPem: ca.toString('pem') + '\n', leaves };
}
