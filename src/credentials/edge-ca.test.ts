// Minting the edge's CA and leaves (adr/0070), checked by Node's X.509 and by
// openssl: the leaves verify under the CA (strictly, for TLS servers), the
// CA's name constraint is critical and lists exactly the injected names, and
// the constraint is effective: a certificate for another name under a CA
// with the same constraint is refused.

import { execFileSync } from 'node:child_process';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { edgeNames, type EdgeSet, mintEdgeSet, nameConstraintsExtension } from './edge-ca.js';

const tmp = useTempDir('edge-ca');
const NAMES = ['github.com', 'api.anthropic.com', 'api.github.com'];

/** openssl verify's output and whether it accepted, never throwing. */
function opensslVerify(ca: string, leaf: string): { ok: boolean; out: string } {
  try {
    const out = execFileSync(
      '/usr/bin/openssl',
      ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', ca, leaf],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return { ok: true, out };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function caText(pem: string): string {
  const file = path.join(tmp.path, 'text-ca.crt');
  writeFileSync(file, pem);
  return execFileSync('/usr/bin/openssl', ['x509', '-in', file, '-noout', '-text'], {
    encoding: 'utf8',
  });
}

describe('mintEdgeSet', () => {
  let set: EdgeSet;
  const now = new Date('2026-12-03T08:00:00Z');
  beforeAll(async () => {
    set = await mintEdgeSet(NAMES, 'app-dev-abc123', now);
  });

  it('mints one leaf per name, sorted, each for exactly its name and not a CA', () => {
    expect(set.leaves.map((l) => l.name)).toEqual([
      'api.anthropic.com',
      'api.github.com',
      'github.com',
    ]);
    for (const leaf of set.leaves) {
      const cert = new X509Certificate(leaf.certPem);
      expect(cert.subjectAltName).toBe(`DNS:${leaf.name}`);
      expect(cert.ca).toBe(false);
      expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
      expect(cert.publicKey.asymmetricKeyType).toBe('ec');
      expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
      expect(days).toBe(397);
      expect(Date.parse(cert.validFrom)).toBeLessThanOrEqual(now.getTime());
    }
  });

  it('every leaf verifies under the CA (Node) and its key is its own', () => {
    const ca = new X509Certificate(set.caPem);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    for (const leaf of set.leaves) {
      const cert = new X509Certificate(leaf.certPem);
      expect(cert.checkIssued(ca)).toBe(true);
      expect(cert.verify(ca.publicKey)).toBe(true);
      expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
    }
  });

  it('every leaf verifies under the CA with openssl -x509_strict as a TLS server', () => {
    const caFile = path.join(tmp.path, 'ca.crt');
    writeFileSync(caFile, set.caPem);
    for (const leaf of set.leaves) {
      const file = path.join(tmp.path, `${leaf.name}.crt`);
      writeFileSync(file, leaf.certPem);
      expect(opensslVerify(caFile, file)).toEqual({ ok: true, out: `${file}: OK\n` });
    }
  });

  it("the CA's name constraint is critical and permits exactly the names", () => {
    const text = caText(set.caPem);
    const block = /X509v3 Name Constraints: critical\n\s+Permitted:\n((?:\s+DNS:.*\n)+)/.exec(text);
    expect(block).not.toBeNull();
    const permitted = (block?.[1] ?? '').trim().split(/\s+/);
    expect(permitted).toEqual(['DNS:api.anthropic.com', 'DNS:api.github.com', 'DNS:github.com']);
    expect(text).not.toContain('Excluded');
    expect(text).toMatch(/Basic Constraints: critical\n\s+CA:TRUE, pathlen:0/);
    expect(text).toMatch(/Key Usage: critical\n\s+Certificate Sign, CRL Sign/);
    // The store finds exactly these bytes in the CA.
    const der = Buffer.from(new X509Certificate(set.caPem).raw);
    expect(der.includes(nameConstraintsExtension(edgeNames(NAMES)))).toBe(true);
    expect(der.includes(nameConstraintsExtension(['api.github.com', 'github.com']))).toBe(false);
  });

  it('the constraint is effective: a CA with the same one cannot vouch for another name', async () => {
    // The minted CA's key is gone, so a second CA carrying the minted CA's
    // own name-constraint extension (its key kept here) signs an outside name.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    const minted = new x509.X509Certificate(set.caPem);
    const constraint = minted.getExtension('2.5.29.30');
    expect(constraint?.critical).toBe(true);
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const caKeys = (await webcrypto.subtle.generateKey(alg, false, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const testCa = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=test CA',
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: alg,
      keys: caKeys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
        ...(constraint === null ? [] : [constraint]),
      ],
    });
    const sign = async (name: string): Promise<string> => {
      const keys = (await webcrypto.subtle.generateKey(alg, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: '02',
        subject: `CN=${name}`,
        issuer: testCa.subject,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + 86_400_000),
        signingAlgorithm: alg,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }]),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
        ],
      });
      const file = path.join(tmp.path, `outside-${name}.crt`);
      writeFileSync(file, cert.toString('pem'));
      return file;
    };
    const caFile = path.join(tmp.path, 'test-ca.crt');
    writeFileSync(caFile, testCa.toString('pem'));
    // Inside the set it verifies (the test CA is sound) ...
    expect(opensslVerify(caFile, await sign('api.github.com')).ok).toBe(true);
    // ... and outside it does not.
    for (const outside of ['evil.example.com', 'github.com.evil.net', 'anthropic.com']) {
      const result = opensslVerify(caFile, await sign(outside));
      expect(result.ok).toBe(false);
      expect(result.out).toContain('permitted subtree violation');
    }
  });
});

describe('edgeNames', () => {
  it('sorts and de-duplicates', () => {
    expect(edgeNames(['b.example', 'a.example', 'b.example'])).toEqual(['a.example', 'b.example']);
  });

  it.each([
    [[]],
    [['localhost']],
    [['Upper.example']],
    [['*.example.com']],
    [['10.0.0.1']],
    [['a..example']],
    [['../x.example']],
    [['x.example/ca']],
    [Array.from({ length: 65 }, (_, i) => `h${i}.example`)],
  ])('refuses %j', (names) => {
    expect(() => edgeNames(names)).toThrow();
  });

  it('mints nothing for a name outside the grammar', async () => {
    await expect(mintEdgeSet(['ok.example', 'bad_name.example'], 'p')).rejects.toThrow(
      'bad_name.example',
    );
  });
});
