// Rules for a file's [credentials] table and its sealed env_from_host rows
// (adr/0012; injected rows too, adr/0070): the table is well formed and passphrase-protected, and every
// row is sealed to this file's own identity. A row copied from another file
// is refused here, at its own line, before anyone is asked for a passphrase.

import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';
import {
  credentialKindOf,
  keyIdOf,
  parseInjectedRow,
  parseRow,
  tableProblem,
} from '../credential-rows.js';
import { isInjectedSource } from '../inject.js';
import { finding, type Finding } from './finding.js';

const RESEAL_FIX = (key: string): string =>
  `rows are sealed to the file they live in: remove it here and run \`byre credential add ${key}\` for this file`;

/** The table: both halves present, a recipient, and an identity sealed with a passphrase. */
export function checkCredentialsTable(layer: RawLayer): Finding[] {
  const table = layer.credentials;
  if (table === undefined) return [];
  const missing = (['recipient', 'identity'] as const).filter((k) => table[k] === undefined);
  if (missing.length > 0) {
    return missing.map((k) =>
      finding(
        'config.missing-key',
        ['credentials', k],
        `[credentials] needs ${k}`,
        'restore the table byre credential wrote, or remove [credentials] and every encrypted row',
      ),
    );
  }
  const problem = tableProblem({
    recipient: table.recipient as string,
    identity: table.identity as string,
  });
  if (problem === null) return [];
  return [
    finding(
      'config.credential-identity-invalid',
      ['credentials', problem.field],
      `[credentials] ${problem.problem}`,
      'restore the table byre credential wrote; a new identity cannot open the existing rows',
    ),
  ];
}

/** Every sealed row (encrypted, or injected at the edge): well formed, with an identity in this file, and sealed to it. */
export function checkCredentialRows(layer: RawLayer): Finding[] {
  const table = layer.credentials;
  const recipient =
    table?.recipient !== undefined && table.identity !== undefined ? table.recipient : null;
  const keyId = recipient === null ? null : keyIdOf(recipient);
  return Object.entries(layer.env_from_host ?? {}).flatMap(([key, source]): Finding[] => {
    const injected = isInjectedSource(source);
    if (credentialKindOf(source) === null && !injected) return [];
    const path: PathSegment[] = ['env_from_host', key];
    const parsed = injected ? parseInjectedRow(source) : parseRow(source);
    if (!parsed.ok) {
      return [
        finding(
          'config.env-source-invalid',
          path,
          `env_from_host ${key}: ${parsed.problem}`,
          `encrypted rows are written by byre credential; run \`byre credential add ${key}\` again`,
        ),
      ];
    }
    if (table === undefined) {
      return [
        finding(
          'config.credential-no-identity',
          path,
          `env_from_host ${key} is an encrypted row, but this file has no [credentials] identity to open it`,
          RESEAL_FIX(key),
        ),
      ];
    }
    if (keyId === null || parsed.row.keyId === keyId) return [];
    return [
      finding(
        'config.credential-foreign',
        path,
        `env_from_host ${key} was sealed to another file's identity (key id ${parsed.row.keyId}; this file's is ${keyId})`,
        RESEAL_FIX(key),
      ),
    ];
  });
}
