// When the edge's stored certificates are read and when they are minted
// again (adr/0070): every reason to mint, in the order they are checked, and
// the one case that reads.

import { describe, expect, it } from 'vitest';

import {
  decideEdge,
  EDGE_RENEW_BEFORE_MS,
  type EdgeFacts,
  type LeafFacts,
} from './edge-decision.js';

const NOW = Date.parse('2026-12-03T00:00:00Z');
const YEAR = 365 * 24 * 60 * 60 * 1000;
const WANTED = ['api.github.com', 'github.com'];

const leaf = (name: string, over: Partial<LeafFacts> = {}): LeafFacts => ({
  name,
  notAfter: NOW + YEAR,
  sanIsName: true,
  signedByCa: true,
  keyMatches: true,
  isCa: false,
  ...over,
});

const read = (
  leaves: LeafFacts[] = WANTED.map((n) => leaf(n)),
  over: Partial<Extract<EdgeFacts, { kind: 'read' }>> = {},
): EdgeFacts => ({ kind: 'read', caMatchesLeaves: true, caNotAfter: NOW + YEAR, leaves, ...over });

describe('decideEdge', () => {
  it('reads a whole, consistent set for the same names, far from expiry', () => {
    expect(decideEdge(WANTED, read(), NOW)).toEqual({ action: 'read' });
    expect(decideEdge([...WANTED].reverse(), read(), NOW)).toEqual({ action: 'read' });
  });

  it.each<[string, EdgeFacts, readonly string[], string]>([
    ['nothing stored', { kind: 'missing' }, WANTED, 'missing'],
    ['a tampered store', { kind: 'unreadable', why: 'x.key is a FIFO' }, WANTED, 'unreadable'],
    [
      'a CA without the leaves’ exact constraint',
      read(undefined, { caMatchesLeaves: false }),
      WANTED,
      'inconsistent',
    ],
    ['no leaves', read([]), WANTED, 'inconsistent'],
    [
      'a name stored twice',
      read([leaf('github.com'), leaf('github.com')]),
      ['github.com'],
      'inconsistent',
    ],
    [
      'a leaf another CA signed',
      read([leaf('api.github.com'), leaf('github.com', { signedByCa: false })]),
      WANTED,
      'inconsistent',
    ],
    [
      'a leaf whose SAN is not its name',
      read([leaf('api.github.com', { sanIsName: false }), leaf('github.com')]),
      WANTED,
      'inconsistent',
    ],
    [
      'a key that is not its leaf’s',
      read([leaf('api.github.com'), leaf('github.com', { keyMatches: false })]),
      WANTED,
      'inconsistent',
    ],
    [
      'a leaf that is a CA',
      read([leaf('api.github.com', { isCa: true }), leaf('github.com')]),
      WANTED,
      'inconsistent',
    ],
    ['a name added', read(), [...WANTED, 'api.anthropic.com'], 'names-changed'],
    ['a name dropped', read(), ['github.com'], 'names-changed'],
    ['a name swapped', read(), ['api.github.com', 'gitlab.com'], 'names-changed'],
    [
      'a leaf within 30 days',
      read([
        leaf('api.github.com'),
        leaf('github.com', { notAfter: NOW + EDGE_RENEW_BEFORE_MS - 1 }),
      ]),
      WANTED,
      'expiring',
    ],
    [
      'a leaf exactly 30 days out',
      read([leaf('api.github.com', { notAfter: NOW + EDGE_RENEW_BEFORE_MS }), leaf('github.com')]),
      WANTED,
      'expiring',
    ],
    [
      'a leaf expired',
      read([leaf('api.github.com', { notAfter: NOW - 1 }), leaf('github.com')]),
      WANTED,
      'expiring',
    ],
    [
      'the CA within 30 days',
      read(undefined, { caNotAfter: NOW + EDGE_RENEW_BEFORE_MS - 1 }),
      WANTED,
      'expiring',
    ],
  ])('mints for %s', (_what, facts, wanted, reason) => {
    expect(decideEdge(wanted, facts, NOW)).toEqual({ action: 'mint', reason });
  });

  it('reads a leaf one millisecond past the 30 days', () => {
    const facts = read(
      [leaf('api.github.com', { notAfter: NOW + EDGE_RENEW_BEFORE_MS + 1 }), leaf('github.com')],
      {
        caNotAfter: NOW + EDGE_RENEW_BEFORE_MS + 1,
      },
    );
    expect(decideEdge(WANTED, facts, NOW)).toEqual({ action: 'read' });
  });

  it('an inconsistent set is re-minted even when its names also changed (inconsistency is checked first)', () => {
    expect(decideEdge(['x.example'], read(undefined, { caMatchesLeaves: false }), NOW)).toEqual({
      action: 'mint',
      reason: 'inconsistent',
    });
  });
});
