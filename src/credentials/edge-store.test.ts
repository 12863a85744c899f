// The edge's certificates on the host (adr/0070), on real temp directories
// under an isolated BYRE_HOME: modes, no CA key anywhere on disk, a stored
// set read back and re-minted when its names change or it nears expiry,
// every tampered store (a link, a FIFO, an oversize file, a stray entry, a
// loose mode, a leaf from another CA) re-minted rather than trusted, and a
// re-mint published whole or not at all.

import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { projectStorePaths } from '../project/store-layout.js';
import { type EdgeSet, mintEdgeSet } from './edge-ca.js';
import { ensureEdgeSet, readEdgeStore, writeEdgeStore } from './edge-store.js';

const tmp = useTempDir('edge-store');
const ID = 'app-dev-abc123';
const NAMES = ['api.github.com', 'github.com'];
const NOW = new Date('2026-12-03T08:00:00Z');
const DAY = 86_400_000;

const home = (): string => path.join(tmp.path, 'home');
const edgeDir = (): string => projectStorePaths(home(), ID).edge;

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

function spki(key: ReturnType<typeof createPublicKey>): string {
  return key.export({ type: 'spki', format: 'der' }).toString('hex');
}

async function stored(): Promise<EdgeSet> {
  return (await ensureEdgeSet(edgeDir(), NAMES, ID, NOW)).set;
}

describe('ensureEdgeSet', () => {
  it('mints into $BYRE_HOME/edge/<id>/, beside projects/<id>, 0700 with every file 0600', async () => {
    const first = await ensureEdgeSet(edgeDir(), NAMES, ID, NOW);
    expect(first.minted).toBe('missing');
    expect(edgeDir()).toBe(path.join(home(), 'edge', ID));
    expect(statSync(edgeDir()).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(edgeDir())).mode & 0o777).toBe(0o700);
    expect(readdirSync(edgeDir()).sort()).toEqual([
      'api.github.com.crt',
      'api.github.com.key',
      'ca.crt',
      'github.com.crt',
      'github.com.key',
    ]);
    for (const file of readdirSync(edgeDir())) {
      expect(statSync(path.join(edgeDir(), file)).mode & 0o777).toBe(0o600);
    }
    expect(readdirSync(path.join(home(), 'edge'))).toEqual([ID]);
    expect(readFileSync(path.join(edgeDir(), 'ca.crt'), 'utf8')).toBe(first.set.caPem);
  });

  it("the CA's private key is nowhere on disk: every stored key is a leaf's", async () => {
    const set = await stored();
    const caKey = spki(new X509Certificate(set.caPem).publicKey);
    const leafKeys = set.leaves.map((l) => spki(new X509Certificate(l.certPem).publicKey));
    const found: string[] = [];
    for (const file of allFiles(tmp.path)) {
      const text = readFileSync(file, 'latin1');
      for (const block of text.match(
        /-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]+-----END [A-Z ]*PRIVATE KEY-----/g,
      ) ?? []) {
        found.push(spki(createPublicKey(createPrivateKey(block))));
      }
    }
    expect(found).not.toContain(caKey);
    expect(found.sort()).toEqual([...leafKeys].sort());
    expect(JSON.stringify(set)).not.toContain(caKey);
  });

  it('reads the stored set back while the names hold and nothing nears expiry', async () => {
    const first = await stored();
    const again = await ensureEdgeSet(
      edgeDir(),
      [...NAMES].reverse(),
      ID,
      new Date(NOW.getTime() + 300 * DAY),
    );
    expect(again).toEqual({ set: first, minted: null });
  });

  it('re-mints the whole directory when the names change: no old name is left', async () => {
    const first = await stored();
    const next = await ensureEdgeSet(edgeDir(), ['api.anthropic.com', 'github.com'], ID, NOW);
    expect(next.minted).toBe('names-changed');
    expect(next.set.caPem).not.toBe(first.caPem);
    expect(readdirSync(edgeDir()).sort()).toEqual([
      'api.anthropic.com.crt',
      'api.anthropic.com.key',
      'ca.crt',
      'github.com.crt',
      'github.com.key',
    ]);
    expect(readdirSync(path.join(home(), 'edge'))).toEqual([ID]);
  });

  it('re-mints when a leaf is within 30 days of expiry', async () => {
    await stored();
    const late = new Date(NOW.getTime() + (397 - 30) * DAY);
    expect((await ensureEdgeSet(edgeDir(), NAMES, ID, late)).minted).toBe('expiring');
    const fresh = await ensureEdgeSet(edgeDir(), NAMES, ID, late);
    expect(fresh.minted).toBeNull();
  });

  const key = (): string => path.join(edgeDir(), 'github.com.key');
  const crt = (): string => path.join(edgeDir(), 'github.com.crt');
  const tampered: [string, () => void | Promise<void>, string][] = [
    [
      'a key replaced by a link',
      () => {
        const elsewhere = path.join(tmp.path, 'elsewhere.key');
        copyFileSync(key(), elsewhere);
        rmSync(key());
        symlinkSync(elsewhere, key());
      },
      'unreadable',
    ],
    [
      'the directory replaced by a link',
      () => {
        const moved = path.join(tmp.path, 'moved');
        execFileSync('/bin/mv', [edgeDir(), moved]);
        symlinkSync(moved, edgeDir());
      },
      'unreadable',
    ],
    [
      'a FIFO as a certificate',
      () => {
        rmSync(crt());
        execFileSync('/usr/bin/mkfifo', ['-m', '600', crt()]);
      },
      'unreadable',
    ],
    [
      'an oversize certificate',
      () => {
        writeFileSync(crt(), 'A'.repeat(64 * 1024), { mode: 0o600 });
      },
      'unreadable',
    ],
    [
      'a stray entry',
      () => {
        writeFileSync(path.join(edgeDir(), 'notes.txt'), 'x', { mode: 0o600 });
      },
      'unreadable',
    ],
    [
      'a leaf without its key',
      () => {
        rmSync(key());
      },
      'unreadable',
    ],
    [
      'a key made readable by others',
      () => {
        chmodSync(key(), 0o644);
      },
      'unreadable',
    ],
    [
      'the directory made searchable by others',
      () => {
        chmodSync(edgeDir(), 0o755);
      },
      'unreadable',
    ],
    [
      'a certificate that does not parse',
      () => {
        writeFileSync(crt(), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', {
          mode: 0o600,
        });
      },
      'unreadable',
    ],
    [
      'a leaf and key from another CA',
      async () => {
        const other = await mintEdgeSet(NAMES, 'other', NOW);
        const leaf = other.leaves.find((l) => l.name === 'github.com');
        writeFileSync(crt(), leaf?.certPem ?? '', { mode: 0o600 });
        writeFileSync(key(), leaf?.keyPem ?? '', { mode: 0o600 });
      },
      'inconsistent',
    ],
    [
      'a key swapped between two leaves',
      () => {
        const otherKey = path.join(edgeDir(), 'api.github.com.key');
        const a = readFileSync(key());
        writeFileSync(key(), readFileSync(otherKey), { mode: 0o600 });
        writeFileSync(otherKey, a, { mode: 0o600 });
      },
      'inconsistent',
    ],
    [
      'a CA from another mint',
      async () => {
        const other = await mintEdgeSet(NAMES, 'other', NOW);
        writeFileSync(path.join(edgeDir(), 'ca.crt'), other.caPem, { mode: 0o600 });
      },
      'inconsistent',
    ],
    [
      'a leaf’s files renamed to another name',
      () => {
        for (const ext of ['crt', 'key']) {
          execFileSync('/bin/mv', [
            path.join(edgeDir(), `github.com.${ext}`),
            path.join(edgeDir(), `gitlab.com.${ext}`),
          ]);
        }
      },
      'inconsistent',
    ],
  ];

  it.each(tampered)('re-mints over %s, never trusting it', async (_what, tamper, reason) => {
    await stored();
    await tamper();
    const next = await ensureEdgeSet(edgeDir(), NAMES, ID, NOW);
    expect(next.minted).toBe(reason);
    // What replaced it is a whole, private, consistent set of real files.
    const back = readEdgeStore(edgeDir());
    expect(back).toEqual({ kind: 'set', set: next.set });
    expect(statSync(edgeDir()).mode & 0o777).toBe(0o700);
    expect((await ensureEdgeSet(edgeDir(), NAMES, ID, NOW)).minted).toBeNull();
  });

  it('reads a FIFO without waiting on it', async () => {
    await stored();
    rmSync(key());
    execFileSync('/usr/bin/mkfifo', ['-m', '600', key()]);
    expect(readEdgeStore(edgeDir())).toEqual({
      kind: 'unreadable',
      why: 'github.com.key is a FIFO',
    });
  });

  it('refuses a link planted where edge/ itself is', async () => {
    const outside = path.join(tmp.path, 'outside');
    mkdirSync(outside, { mode: 0o700 });
    mkdirSync(home(), { recursive: true });
    symlinkSync(outside, path.join(home(), 'edge'));
    expect(readEdgeStore(edgeDir()).kind).toBe('unreadable');
    await expect(ensureEdgeSet(edgeDir(), NAMES, ID, NOW)).rejects.toThrow();
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('writeEdgeStore', () => {
  it('is all or nothing: a write failing part-way leaves the old set whole and no staging', async () => {
    const old = await stored();
    const next = await mintEdgeSet(['api.anthropic.com', 'github.com'], ID, NOW);
    let writes = 0;
    const failing = async (target: string, data: string, mode: number): Promise<void> => {
      writes += 1;
      if (writes === 3) throw new Error('disk full');
      await writeFileAtomic(target, data, mode);
    };
    await expect(writeEdgeStore(edgeDir(), next, failing)).rejects.toThrow('disk full');
    expect(readEdgeStore(edgeDir())).toEqual({ kind: 'set', set: old });
    expect(readdirSync(path.join(home(), 'edge'))).toEqual([ID]);
  });

  it('clears a staging directory a crash left behind', async () => {
    await stored();
    const stale = path.join(home(), 'edge', `.${ID}.new-000000000000`);
    mkdirSync(stale, { mode: 0o700 });
    writeFileSync(path.join(stale, 'ca.crt'), 'half', { mode: 0o600 });
    await writeEdgeStore(edgeDir(), await mintEdgeSet(NAMES, ID, NOW));
    expect(readdirSync(path.join(home(), 'edge'))).toEqual([ID]);
  });
});
