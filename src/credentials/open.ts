// Opening the credential rows a box takes (adr/0012): each file's identity is
// unlocked once with the one passphrase develop asked for, then every row is
// opened with the identity of the file it sits in. Values stay in memory and
// are registered with the redactor the moment they exist. Also rekey's two
// halves: open every sealed row of a file, and seal each frame again as it
// was, injected rows included (adr/0070). No IO.

import type { EffectiveConfig, LayerRef } from '../config/types.js';
import { ByreError, type Location } from '../errors.js';
import { registerSecret } from '../output/redact.js';
import type { DeliveredValue } from './channel.js';
import {
  parseInjectedRow,
  parseRow,
  sealedIdentityBytes,
  type CredentialTable,
} from '../config/credential-rows.js';
import { bindingFindings, isInjectedSource, type InjectRule } from '../config/inject.js';
import {
  deliveredCredentialRows,
  sameLayer,
  type CredentialRowRef,
} from '../config/credential-rows.js';
import { sealedWorkFactor } from './scrypt-stanza.js';
import {
  DEFAULT_WORK_FACTOR,
  openInjected,
  openRow,
  sealInjected,
  sealValue,
  unlockIdentity,
  type UnlockedIdentity,
} from './seal.js';

/** Identities already unlocked this run, by file and sealed identity. */
export type UnlockCache = Map<string, UnlockedIdentity>;

function fileOf(from: LayerRef): string {
  return from.path ?? `${from.kind} ${from.name}`;
}

function located(from: LayerRef, key: string): Location {
  return { file: fileOf(from), key };
}

const REMEDIES: Record<string, string> = {
  'credential.wrong-passphrase':
    'type the passphrase again; every file that holds credentials for this project shares the one passphrase develop asks (byre credential rekey changes a file’s)',
  'credential.identity-mismatch':
    'restore the [credentials] table byre credential wrote; its two halves no longer belong together',
  'credential.identity-unreadable': 'restore the [credentials] table byre credential wrote',
};

function rowRemedy(key: string): string {
  return `remove the row and seal the value again: byre credential add ${key}`;
}

/** Unlock a file's identity; a located ByreError when the passphrase or the table is wrong. */
export async function unlockFor(
  from: LayerRef,
  table: CredentialTable,
  passphrase: string,
  cache: UnlockCache,
): Promise<UnlockedIdentity> {
  const cacheKey = `${fileOf(from)}\0${table.recipient}\0${table.identity}`;
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;
  const opened = await unlockIdentity(table, passphrase);
  if (!opened.ok) {
    throw new ByreError(`[credentials]: ${opened.message}`, {
      rule: opened.rule,
      location: located(from, 'credentials.identity'),
      ...(REMEDIES[opened.rule] === undefined ? {} : { remedy: REMEDIES[opened.rule] }),
    });
  }
  cache.set(cacheKey, opened.identity);
  return opened.identity;
}

function tableFor(
  config: EffectiveConfig,
  row: Pick<CredentialRowRef, 'key' | 'from'>,
): CredentialTable {
  const table = config.credentials.find((t) => sameLayer(t.from, row.from));
  if (table === undefined) {
    throw new ByreError(
      `env_from_host ${row.key} is an encrypted row, but its file has no [credentials] identity`,
      {
        rule: 'config.credential-no-identity',
        location: located(row.from, `env_from_host.${row.key}`),
        remedy: rowRemedy(row.key),
      },
    );
  }
  return table.value;
}

/** The files whose identities the delivered and injected rows need: what a passphrase must open. */
export function credentialFiles(config: EffectiveConfig): LayerRef[] {
  const files: LayerRef[] = [];
  const rows = [...deliveredCredentialRows(config), ...injectedRows(config)];
  for (const row of rows) {
    if (!files.some((f) => sameLayer(f, row.from))) files.push(row.from);
  }
  return files;
}

/** The effective injections' rows, each where its `env_from_host` entry sits. */
function injectedRows(config: EffectiveConfig): RowAt[] {
  return config.injections.map((inj) => {
    const entry = config.envFromHost[inj.key];
    // effectiveInjections names only keys whose winning entry is an injected row.
    if (entry === undefined || !isInjectedSource(entry.value)) {
      throw new TypeError(`inject ${inj.key} has no injected env_from_host row`);
    }
    return { key: inj.key, source: entry.value, from: entry.from };
  });
}

/** The `byre credential` flag that names a file of the cascade. */
function targetFlag(from: LayerRef): string {
  if (from.kind === 'default') return ' --global';
  return from.kind === 'layer' ? ` --layer ${from.name}` : '';
}

/**
 * One line per file whose identity was sealed at a work factor above today's
 * (adr/0054): each develop pays for it until `byre credential rekey` re-seals
 * it. Reads the sealed headers only.
 */
export function slowIdentityNotes(config: EffectiveConfig): string[] {
  return credentialFiles(config).flatMap((from) => {
    const table = config.credentials.find((t) => sameLayer(t.from, from));
    const logN = table === undefined ? null : sealedWorkFactor(sealedIdentityBytes(table.value));
    if (logN === null || logN <= DEFAULT_WORK_FACTOR) return [];
    return [
      `the credentials in ${fileOf(from)} are sealed at scrypt work factor ${logN}, which makes every develop wait for it; byre credential rekey${targetFlag(from)} re-seals them at ${DEFAULT_WORK_FACTOR}`,
    ];
  });
}

type RowAt = { key: string; source: string; from: LayerRef };

/** The located refusal of a row: its rule and text (never a value), where it sits, how to fix it. */
function rowRefusal(row: RowAt, rule: string, message: string): ByreError {
  return new ByreError(`env_from_host ${row.key}: ${message}`, {
    rule,
    location: located(row.from, `env_from_host.${row.key}`),
    remedy: rowRemedy(row.key),
  });
}

/**
 * Parse and open a row with `open`, registering the value with the redactor;
 * a located ByreError when the row is malformed, foreign, moved or altered.
 */
async function openLocated<R extends { ok: true; row: unknown }, T extends { value: Uint8Array }>(
  row: RowAt,
  parsed: R | { ok: false; problem: string },
  open: (parsed: R) => Promise<({ ok: true } & T) | { ok: false; rule: string; message: string }>,
): Promise<{ parsed: R; opened: T }> {
  if (!parsed.ok) throw rowRefusal(row, 'config.env-source-invalid', parsed.problem);
  const opened = await open(parsed);
  if (!opened.ok) throw rowRefusal(row, opened.rule, opened.message);
  registerSecret(opened.value);
  return { parsed, opened };
}

/** Open one delivered row with its file's identity (see openLocated). */
async function openSealedRow(identity: UnlockedIdentity, row: RowAt): Promise<DeliveredValue> {
  const { parsed, opened } = await openLocated(row, parseRow(row.source), (p) =>
    openRow(identity, row.key, p.row),
  );
  return { key: row.key, kind: parsed.row.kind, value: opened.value };
}

/**
 * Decrypt every credential row the box takes. Throws a located ByreError
 * (never quoting a value) on a wrong passphrase, a damaged table, or a row
 * that is foreign, moved or altered.
 */
export async function openCredentials(
  config: EffectiveConfig,
  passphrase: string,
  cache: UnlockCache = new Map(),
): Promise<DeliveredValue[]> {
  const out: DeliveredValue[] = [];
  for (const row of deliveredCredentialRows(config)) {
    const identity = await unlockFor(row.from, tableFor(config, row), passphrase, cache);
    out.push(await openSealedRow(identity, row));
  }
  return out;
}

/** A credential the edge presents: its value, and the rules sealed with it (the file's, checked). */
export interface EdgeCredential {
  key: string;
  value: Uint8Array;
  rules: InjectRule[];
}

/**
 * Open every effective injected row (develop's half of adr/0070) and check
 * that the rules sealed with each value are the file's rules for its key: a
 * file edited to send a secret elsewhere opens nothing
 * (`credential.binding-changed`, at `inject.KEY`). Located ByreErrors as
 * openCredentials', never quoting a value.
 */
export async function openInjections(
  config: EffectiveConfig,
  passphrase: string,
  cache: UnlockCache = new Map(),
): Promise<EdgeCredential[]> {
  const out: EdgeCredential[] = [];
  for (const [i, row] of injectedRows(config).entries()) {
    const injection = config.injections[i] as (typeof config.injections)[number];
    const identity = await unlockFor(row.from, tableFor(config, row), passphrase, cache);
    const { opened } = await openLocated(row, parseInjectedRow(row.source), (p) =>
      openInjected(identity, row.key, p.row),
    );
    const [changed] = bindingFindings(row.key, opened.binding, injection.rules);
    if (changed !== undefined) {
      throw new ByreError(changed.message, {
        rule: changed.rule,
        location: located(injection.from, `inject.${row.key}`),
        ...(changed.fix === undefined ? {} : { remedy: changed.fix }),
      });
    }
    out.push({ key: row.key, value: opened.value, rules: opened.rules });
  }
  return out;
}

/** An opened injected row: the value only the edge receives, and the rules sealed with it. */
export interface OpenedInjected {
  key: string;
  kind: 'injected';
  value: Uint8Array;
  binding: string;
  rules: InjectRule[];
}

/**
 * Open one row of a file whatever its sealed kind (rekey's first half),
 * registering the value with the redactor. Located ByreErrors as
 * openSealedRow's, never quoting a value.
 */
export async function openFileRow(
  identity: UnlockedIdentity,
  row: RowAt,
): Promise<DeliveredValue | OpenedInjected> {
  if (!isInjectedSource(row.source)) return openSealedRow(identity, row);
  const { opened } = await openLocated(row, parseInjectedRow(row.source), (p) =>
    openInjected(identity, row.key, p.row),
  );
  const { value, binding, rules } = opened;
  return { key: row.key, kind: 'injected', value, binding, rules };
}

/**
 * Seal an opened row to another recipient with the frame it had (rekey's
 * second half): same kind, key, value, and for an injected row the same
 * binding bytes, since injectionBinding writes back exactly the line opened.
 */
export async function resealRow(
  recipient: string,
  opened: DeliveredValue | OpenedInjected,
): Promise<string> {
  return opened.kind === 'injected'
    ? sealInjected(recipient, opened.key, opened.rules, opened.value)
    : sealValue(recipient, opened.kind, opened.key, opened.value);
}
