// The credential rows of GRANTS: each file's own identity, and the
// credentials injected at the edge (adr/0070) with the hosts they go to.
// `byre credential` writes both; the editor only shows them, read-only, and
// says which verb owns them. Pure.

import { injectionDetailText } from '../../../status/injection.js';
import { heading, originTag, row, sourcedRow, type RowBuilders, type RowContext } from './kit.js';
import type { Item } from './types.js';

/** Each file's own credential identity: `byre credential` writes it; the editor only shows it. */
function credentials(ctx: RowContext): Item[] {
  const owner = 'byre credential add|list|remove|rekey owns it (docs/CREDENTIALS.md)';
  const tables = ctx.derived.config.credentials;
  if (tables.length === 0) {
    return [
      row(ctx, 'none', {
        depth: 1,
        label: 'Credentials',
        value: 'none sealed',
        tone: 'dim',
        act: { note: owner },
      }),
    ];
  }
  return [
    heading(ctx, 'identities that open encrypted host env rows'),
    ...tables.map((t) =>
      row(ctx, `id:${originTag(t.from)}`, {
        label: t.value.recipient,
        ...sourcedRow(ctx, t),
        tone: 'dim',
        act: { note: owner, remove: owner },
      }),
    ),
  ];
}

/** The effective injections: for which hosts and how; sealed with the value, so never edited here. */
function inject(ctx: RowContext): Item[] {
  const owner =
    'sealed with its value: byre credential add KEY --inject HOST … adds a host, byre credential remove KEY --inject HOST drops one (docs/CREDENTIALS.md)';
  const injections = ctx.derived.config.injections;
  if (injections.length === 0) {
    return [
      row(ctx, 'none', {
        depth: 1,
        label: 'Injected',
        value: 'none injected at the edge',
        tone: 'dim',
        act: { note: owner },
      }),
    ];
  }
  return [
    heading(ctx, 'presented at the edge; the box holds a sentinel'),
    ...injections.map((inj) =>
      row(ctx, `inject:${inj.key}`, {
        label: inj.key,
        value: injectionDetailText(inj),
        ...sourcedRow(ctx, { value: inj, from: inj.from }),
        tone: 'dim',
        act: { note: owner, remove: owner },
      }),
    ),
  ];
}

export const buildCredentialRows = { credentials, inject } satisfies RowBuilders;
