// Whether a project's stored edge certificates (adr/0070) can be used as they
// are or must be minted again, decided from facts the store's reader found.
// Pure: the reader (edge-store.ts) does the IO and the certificate checks;
// this only weighs them. Anything doubtful mints: a fresh set costs a few
// milliseconds and one image layer, a wrong one would break TLS in the box.

/** Re-mint leaves this close to their end, so a long session never sees one expire. */
export const EDGE_RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** One stored leaf, as the reader found it against the stored CA. */
export interface LeafFacts {
  /** The name its files are stored under. */
  name: string;
  /** Its notAfter, ms since the epoch. */
  notAfter: number;
  /** Its subjectAltName is exactly this one DNS name. */
  sanIsName: boolean;
  /** The stored CA issued it and its signature verifies under the CA's key. */
  signedByCa: boolean;
  /** Its stored private key is the one for its public key. */
  keyMatches: boolean;
  /** It is a CA itself (a leaf never is). */
  isCa: boolean;
}

/** What the reader found in the store. */
export type EdgeFacts =
  | { kind: 'missing' }
  /** A link, a FIFO, an oversize or unparsable file, a stray entry, a loose mode: never trusted. */
  | { kind: 'unreadable'; why: string }
  | {
      kind: 'read';
      /** The CA is a CA and carries the critical name constraint for exactly the stored leaves' names. */
      caMatchesLeaves: boolean;
      /** The CA's notAfter, ms since the epoch. */
      caNotAfter: number;
      leaves: LeafFacts[];
    };

export type EdgeMintReason =
  'missing' | 'unreadable' | 'inconsistent' | 'names-changed' | 'expiring';

type EdgeDecision = { action: 'read' } | { action: 'mint'; reason: EdgeMintReason };

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((n, i) => n === y[i]);
}

/** Read the stored set, or mint a new one and why: the first failing check wins. */
export function decideEdge(
  wanted: readonly string[],
  facts: EdgeFacts,
  nowMs: number,
): EdgeDecision {
  if (facts.kind === 'missing') return { action: 'mint', reason: 'missing' };
  if (facts.kind === 'unreadable') return { action: 'mint', reason: 'unreadable' };
  const names = facts.leaves.map((l) => l.name);
  const consistent =
    facts.caMatchesLeaves &&
    facts.leaves.length > 0 &&
    new Set(names).size === names.length &&
    facts.leaves.every((l) => l.sanIsName && l.signedByCa && l.keyMatches && !l.isCa);
  if (!consistent) return { action: 'mint', reason: 'inconsistent' };
  if (!sameNames(names, wanted)) return { action: 'mint', reason: 'names-changed' };
  const renewAt = nowMs + EDGE_RENEW_BEFORE_MS;
  if (facts.caNotAfter <= renewAt || facts.leaves.some((l) => l.notAfter <= renewAt)) {
    return { action: 'mint', reason: 'expiring' };
  }
  return { action: 'read' };
}
