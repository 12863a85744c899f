// A project's edge certificates on the host (adr/0070): `ca.crt` and, per
// injected name, `<name>.crt` and `<name>.key`, in `$BYRE_HOME/edge/<project
// id>/` (0700, every file 0600). The directory is treated as possibly
// tampered: nothing is followed through a link, no FIFO is waited on, no
// read is unbounded, and anything unexpected is a reason to mint afresh.
// A set is published whole: staged beside the directory, then swapped in,
// so a reader sees the old set, the new set or none, never a mix. The CA's
// private key never reaches this module (edge-ca.ts drops it).

import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import path from 'node:path';

import { writeFileAtomic } from '../host/atomic-write.js';
import { makeDirSync, ensurePrivateDirSync } from '../host/make-dirs.js';
import { entryKind, listEntries, lstatOrNull } from '../host/path-view.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { removeTree, replaceTree } from '../host/remove.js';
import {
  type EdgeLeaf,
  type EdgeSet,
  edgeNames,
  isEdgeName,
  MAX_EDGE_NAMES,
  mintEdgeSet,
  nameConstraintsExtension,
} from './edge-ca.js';
import { decideEdge, type EdgeFacts, type EdgeMintReason } from './edge-decision.js';

const CA_FILE = 'ca.crt';
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
/** A PEM certificate or P-256 key is under 2 KiB; anything far larger was not written by byre. */
const MAX_FILE_BYTES = 16 * 1024;

/** What is in the store: a whole set, or why there is none to use. */
type StoredEdge =
  { kind: 'missing' } | { kind: 'unreadable'; why: string } | { kind: 'set'; set: EdgeSet };

function readPrivateText(file: string): { ok: true; text: string } | { ok: false; why: string } {
  const read = readRegularFile(file, MAX_FILE_BYTES);
  const name = path.basename(file);
  switch (read.kind) {
    case 'missing':
      return { ok: false, why: `${name} is missing` };
    case 'not-regular':
      return { ok: false, why: `${name} is ${describeNotRegular(read.what)}` };
    case 'too-large':
      return { ok: false, why: `${name} is over ${MAX_FILE_BYTES} bytes` };
    case 'ok':
      if ((read.mode & 0o777) !== PRIVATE_FILE_MODE) {
        return { ok: false, why: `${name} is not 0600` };
      }
      return { ok: true, text: read.bytes.toString('utf8') };
  }
}

/** The names the directory's entries stand for, or why they are not a set byre wrote. */
function storedNames(entries: readonly string[]): string[] | string {
  if (entries.length > 2 * MAX_EDGE_NAMES + 1) return 'too many entries';
  if (!entries.includes(CA_FILE)) return `${CA_FILE} is missing`;
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry === CA_FILE) continue;
    const match = /^(.+)\.(crt|key)$/.exec(entry);
    if (match === null || !isEdgeName(match[1] ?? '')) return `${entry} is not byre's`;
    names.add(match[1] ?? '');
  }
  for (const name of names) {
    for (const ext of ['crt', 'key']) {
      if (!entries.includes(`${name}.${ext}`)) return `${name}.${ext} is missing`;
    }
  }
  return names.size === 0 ? 'no leaves' : [...names].sort();
}

/** Reads the set at `dir` without trusting it: any link, FIFO, stray entry or loose mode is `unreadable`. */
export function readEdgeStore(dir: string): StoredEdge {
  const parentKind = entryKind(path.dirname(dir));
  if (parentKind === 'missing') return { kind: 'missing' };
  if (parentKind !== 'dir')
    return { kind: 'unreadable', why: `${path.dirname(dir)} is not a directory` };
  const stat = lstatOrNull(dir);
  if (stat === null) return { kind: 'missing' };
  if (!stat.isDirectory()) return { kind: 'unreadable', why: `${dir} is not a directory` };
  if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE)
    return { kind: 'unreadable', why: `${dir} is not 0700` };
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    return { kind: 'unreadable', why: `${dir} is not this user's` };
  }
  let entries: string[];
  try {
    entries = listEntries(dir);
  } catch (error) {
    return { kind: 'unreadable', why: error instanceof Error ? error.message : String(error) };
  }
  const names = storedNames(entries);
  if (typeof names === 'string') return { kind: 'unreadable', why: names };
  const ca = readPrivateText(path.join(dir, CA_FILE));
  if (!ca.ok) return { kind: 'unreadable', why: ca.why };
  const leaves: EdgeLeaf[] = [];
  for (const name of names) {
    const cert = readPrivateText(path.join(dir, `${name}.crt`));
    if (!cert.ok) return { kind: 'unreadable', why: cert.why };
    const key = readPrivateText(path.join(dir, `${name}.key`));
    if (!key.ok) return { kind: 'unreadable', why: key.why };
    leaves.push({ name, certPem: cert.text, keyPem: key.text });
  }
  return { kind: 'set', set: { caPem: ca.text, leaves } };
}

function keyMatches(cert: X509Certificate, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** The facts decideEdge weighs, from a stored set's certificates (Node's X.509: no library loaded). */
function inspectEdgeSet(set: EdgeSet): EdgeFacts {
  let ca: X509Certificate;
  const leaves: { leaf: EdgeLeaf; cert: X509Certificate }[] = [];
  try {
    ca = new X509Certificate(set.caPem);
    for (const leaf of set.leaves) leaves.push({ leaf, cert: new X509Certificate(leaf.certPem) });
  } catch {
    return { kind: 'unreadable', why: 'a certificate does not parse' };
  }
  const names = [...new Set(set.leaves.map((l) => l.name))].sort();
  const caMatchesLeaves =
    ca.ca &&
    ca.checkIssued(ca) &&
    ca.verify(ca.publicKey) &&
    Buffer.from(ca.raw).includes(nameConstraintsExtension(names));
  return {
    kind: 'read',
    caMatchesLeaves,
    caNotAfter: Date.parse(ca.validTo),
    leaves: leaves.map(({ leaf, cert }) => ({
      name: leaf.name,
      notAfter: Date.parse(cert.validTo),
      sanIsName: cert.subjectAltName === `DNS:${leaf.name}`,
      signedByCa: cert.checkIssued(ca) && cert.verify(ca.publicKey),
      keyMatches: keyMatches(cert, leaf.keyPem),
      isCa: cert.ca,
    })),
  };
}

type WriteFile = (target: string, data: string, mode: number) => Promise<void>;

/**
 * Publishes `set` at `dir` whole: every file written (fsynced, 0600) into a
 * fresh staging directory beside it, which then replaces `dir`. A failure
 * part-way leaves `dir` as it was and no staging directory. `write` is the
 * file writer (a test passes one that fails).
 */
export async function writeEdgeStore(
  dir: string,
  set: EdgeSet,
  write: WriteFile = writeFileAtomic,
): Promise<void> {
  const root = path.dirname(dir);
  ensurePrivateDirSync(root);
  const prefix = `.${path.basename(dir)}.new-`;
  // A staging directory a crash left behind is never used: clear it.
  for (const entry of listEntries(root)) {
    if (entry.startsWith(prefix)) await removeTree(path.join(root, entry));
  }
  const staged = path.join(root, `${prefix}${randomBytes(6).toString('hex')}`);
  makeDirSync(staged, PRIVATE_DIR_MODE);
  try {
    await write(path.join(staged, CA_FILE), set.caPem, PRIVATE_FILE_MODE);
    for (const leaf of set.leaves) {
      await write(path.join(staged, `${leaf.name}.crt`), leaf.certPem, PRIVATE_FILE_MODE);
      await write(path.join(staged, `${leaf.name}.key`), leaf.keyPem, PRIVATE_FILE_MODE);
    }
    await replaceTree(staged, dir);
  } catch (error) {
    await removeTree(staged);
    throw error;
  }
}

/** The set to use for `names`: the stored one when it holds, else a fresh one, published. */
export async function ensureEdgeSet(
  dir: string,
  names: readonly string[],
  label: string,
  now: Date = new Date(),
): Promise<{ set: EdgeSet; minted: EdgeMintReason | null }> {
  const wanted = edgeNames(names);
  const stored = readEdgeStore(dir);
  const facts = stored.kind === 'set' ? inspectEdgeSet(stored.set) : stored;
  const decision = decideEdge(wanted, facts, now.getTime());
  if (decision.action === 'read' && stored.kind === 'set') return { set: stored.set, minted: null };
  const set = await mintEdgeSet(wanted, label, now);
  await writeEdgeStore(dir, set);
  return { set, minted: decision.action === 'mint' ? decision.reason : 'inconsistent' };
}
