// `byre credential add|list|remove|rekey` (adr/0012): seal a value into a
// config file's env_from_host, list the keys and where they come from, remove
// a row, change a file's passphrase. Every write goes through the config
// writer; no value is ever printed, and none reaches an error.

import { say } from '../output/notes.js';
import { loadCascade } from '../config/read.js';
import {
  credentialKindOf,
  credentialRows,
  keyIdOf,
  type CredentialKind,
  type CredentialTable,
} from '../config/credential-rows.js';
import { ENV_KEY } from '../config/grammar.js';
import { isInjectedSource } from '../config/inject.js';
import { parseLayer } from '../config/parse.js';
import type { RawLayer } from '../config/schema.js';
import { layerNameProblem } from '../config/rules/index.js';
import type { LayerRef } from '../config/types.js';
import {
  defaultConfigFile,
  layerConfigFile,
  projectConfigFile,
  readConfigForEdit,
  writeConfig,
  type ConfigFile,
} from '../config/write.js';
import {
  askNewPassphrase,
  askPassphrase,
  readFdAll,
  readHiddenLine,
  readValueFile,
  type PassphraseSource,
} from '../credentials/input.js';
import type { DeliveredValue } from '../credentials/channel.js';
import { openFileRow, resealRow, unlockFor, type OpenedInjected } from '../credentials/open.js';
import { createIdentity, sealValue, unlockIdentity, valueProblem } from '../credentials/seal.js';
import { ByreError, ConfigError, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { escapeTerminal } from '../output/escape.js';
import { registerSecret } from '../output/redact.js';
import { checkProjectPath, resolveProjectContext } from '../project/context.js';
import { layerLabel } from '../config/types.js';
import { applyEdits, type TomlEdit } from '../tomldoc/index.js';
import { onboardingText } from '../config/onboarding.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import { recordProjectPath } from '../project/store.js';
import type { ProjectStorePaths } from '../project/store-layout.js';
import { templateLookup } from './load.js';

export interface CredentialTarget {
  global?: boolean;
  layer?: string;
  passphraseFd?: number;
}

export interface CredentialAddOptions extends CredentialTarget {
  file?: string;
}

export interface Target {
  file: ConfigFile;
  /** The project's setup lock, for a project write. */
  lock?: ProjectStorePaths;
  /** `--global`, `--layer <name>`, or nothing: what to tell the user to add. */
  flag: string;
  /**
   * A project config may not exist yet (adr/0055): the store directory and
   * the path record are made just before the first write, and the file
   * starts from the comment every verb seeds it with.
   */
  prepare?: () => Promise<void>;
  seed?: string;
}

/** Write `edits` to the target, preparing a project store that is not there yet. */
export async function writeTarget(target: Target, edits: readonly TomlEdit[]): Promise<void> {
  await target.prepare?.();
  const seed = target.seed ?? '';
  await writeConfig(
    target.file,
    (text) => applyEdits(text !== '' ? text : seed, edits),
    target.lock === undefined ? {} : { lock: target.lock },
  );
}

export async function resolveTarget(io: Io, opts: CredentialTarget): Promise<Target> {
  if (opts.global === true && opts.layer !== undefined) {
    throw new UsageError('--global and --layer name two different files; pick one', {
      rule: 'credential.target-exclusive',
    });
  }
  const ctx = await resolveProjectContext(io.cwd, io.env);
  const home = ctx.store.home;
  if (opts.global === true) return { file: defaultConfigFile(home), flag: ' --global' };
  if (opts.layer !== undefined) {
    const problem = layerNameProblem(opts.layer);
    if (problem !== null) {
      throw new UsageError(`--layer ${JSON.stringify(opts.layer)}: ${problem}`, {
        rule: 'credential.layer-name',
      });
    }
    return { file: layerConfigFile(home, opts.layer), flag: ` --layer ${opts.layer}` };
  }
  await checkProjectPath(ctx);
  return {
    file: projectConfigFile(ctx.project),
    lock: ctx.project,
    flag: '',
    prepare: async () => {
      await recordProjectPath(home, ctx.projectId, ctx.projectRoot);
      await ensurePrivateDir(ctx.project.dir);
    },
    seed: onboardingText(ctx.projectRoot, []),
  };
}

/** What one file holds now: its identity (if any), its env_from_host rows and its inject rules. */
export function fileState(file: ConfigFile): {
  table: CredentialTable | null;
  rows: Record<string, string>;
  inject: NonNullable<RawLayer['inject']>;
} {
  const current = readConfigForEdit(file);
  const parsed = parseLayer(current.text, { file: file.path, kind: file.kind, name: file.name });
  if (parsed.value === null) throw new ConfigError(parsed.issues);
  const raw = parsed.value.credentials;
  const table =
    raw?.recipient !== undefined && raw.identity !== undefined
      ? { recipient: raw.recipient, identity: raw.identity }
      : null;
  return {
    table,
    rows: { ...(parsed.value.env_from_host ?? {}) },
    inject: { ...(parsed.value.inject ?? {}) },
  };
}

export function checkKey(key: string): void {
  if (!ENV_KEY.test(key) || key.startsWith('BYRE_')) {
    throw new UsageError(
      `${JSON.stringify(key)} cannot be a credential: it must be a variable name outside byre's BYRE_ namespace`,
      {
        rule: 'credential.key-invalid',
        remedy: 'use letters, digits and "_", e.g. OPENAI_API_KEY',
      },
    );
  }
}

export function passphraseSource(io: Io, opts: CredentialTarget): PassphraseSource {
  return { fd: opts.passphraseFd ?? null, terminal: io.terminal ?? null };
}

function stripOneNewline(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  return bytes.subarray(0, end);
}

/** The value: a file (`--file`, `-` for stdin as is), the terminal unechoed, or stdin's text. */
export async function readValue(
  io: Io,
  key: string,
  opts: CredentialAddOptions,
): Promise<{ kind: CredentialKind; value: Uint8Array }> {
  const fromStdin = opts.file === '-' || (opts.file === undefined && !io.terminal);
  if (fromStdin && opts.passphraseFd === 0) {
    throw new UsageError('the value and the passphrase cannot both come from standard input', {
      rule: 'credential.passphrase-fd',
      remedy: 'give the passphrase on another descriptor, e.g. --passphrase-fd 3 3<passfile',
    });
  }
  let kind: CredentialKind;
  let value: Uint8Array;
  if (opts.file === '-') {
    kind = 'encrypted-file';
    value = readFdAll(0, 'standard input');
  } else if (opts.file !== undefined) {
    kind = 'encrypted-file';
    value = readValueFile(opts.file);
  } else if (io.terminal) {
    kind = 'encrypted';
    const line = await readHiddenLine(io.terminal, `byre: value for ${key} (not echoed): `);
    value = new TextEncoder().encode(line);
  } else {
    kind = 'encrypted';
    value = stripOneNewline(readFdAll(0, 'standard input'));
  }
  registerSecret(value);
  const problem = valueProblem(kind, value);
  if (problem !== null) {
    throw new ByreError(`${key}: ${problem}`, {
      rule: 'credential.value-invalid',
      remedy: 'give the value on the terminal, on standard input, or with --file',
    });
  }
  return { kind, value };
}

/**
 * A project's files share one passphrase (develop asks once): a new identity
 * must open with the same one as the identities already in this directory's
 * cascade. Best effort: a cascade that does not load is develop's to report.
 */
async function checkSharedPassphrase(io: Io, file: ConfigFile, passphrase: string): Promise<void> {
  let others: { from: LayerRef; table: CredentialTable }[];
  try {
    const ctx = await resolveProjectContext(io.cwd, io.env);
    const { config } = loadCascade({
      home: ctx.store.home,
      projectId: ctx.projectId,
      bundledTemplate: templateLookup(ctx.store.home),
    });
    others = config.credentials
      .filter((t) => t.from.path !== file.path)
      .map((t) => ({ from: t.from, table: t.value }));
  } catch {
    return;
  }
  const other = others[0];
  if (other === undefined) return;
  if ((await unlockIdentity(other.table, passphrase)).ok) return;
  throw new ByreError(
    `that passphrase does not open the credentials in ${other.from.path ?? layerLabel(other.from)}`,
    {
      rule: 'credential.passphrase-differs',
      remedy:
        'byre develop asks one passphrase for every file of a project: use the one those credentials already have',
    },
  );
}

/**
 * The recipient a new row of the file is sealed to: its identity's, or a new
 * identity's (asking a new passphrase, the one the project's other files
 * share), whose table the returned edits write.
 */
export async function fileIdentity(
  io: Io,
  target: Target,
  table: CredentialTable | null,
  opts: CredentialTarget,
): Promise<{ recipient: string; edits: TomlEdit[]; created: string | null }> {
  if (table !== null) return { recipient: table.recipient, edits: [], created: null };
  const passphrase = await askNewPassphrase(
    passphraseSource(io, opts),
    `byre: ${target.file.path} has no credentials yet; choose a passphrase for them: `,
  );
  await checkSharedPassphrase(io, target.file, passphrase);
  const made = (await createIdentity(passphrase)).table;
  return {
    recipient: made.recipient,
    edits: [
      { op: 'set', path: ['credentials', 'recipient'], value: made.recipient },
      { op: 'set', path: ['credentials', 'identity'], value: made.identity },
    ],
    created: keyIdOf(made.recipient),
  };
}

export function saidCreated(io: Io, target: Target, created: string | null): void {
  if (created !== null) {
    say(io.stderr, `created a credential identity (key id ${created}) in ${target.file.path}`);
  }
}

/** The edit that drops a key's inject rules from a file, when it has any (they go with their row). */
export function dropRules(state: ReturnType<typeof fileState>, key: string): TomlEdit[] {
  return state.inject[key] === undefined ? [] : [{ op: 'delete', path: ['inject', key] }];
}

export async function credentialAddCommand(
  io: Io,
  key: string,
  opts: CredentialAddOptions,
): Promise<void> {
  checkKey(key);
  const target = await resolveTarget(io, opts);
  const state = fileState(target.file);
  const { kind, value } = await readValue(io, key, opts);
  const { recipient, edits, created } = await fileIdentity(io, target, state.table, opts);
  const row = await sealValue(recipient, kind, key, value);
  edits.push({ op: 'set', path: ['env_from_host', key], value: row }, ...dropRules(state, key));
  await writeTarget(target, edits);
  saidCreated(io, target, created);
  const replaced = state.rows[key] !== undefined ? ' (replacing its previous row)' : '';
  say(io.stderr, `sealed ${key} as ${kind} into ${target.file.path}${replaced}`);
  say(io.stderr, 'byre develop delivers it to the box; byre status lists it');
}

export async function credentialRemoveCommand(
  io: Io,
  key: string,
  opts: CredentialTarget,
): Promise<void> {
  checkKey(key);
  const target = await resolveTarget(io, opts);
  const state = fileState(target.file);
  const source = state.rows[key];
  if (source === undefined) {
    throw new ByreError(`${target.file.path} has no env_from_host ${key}`, {
      rule: 'credential.not-found',
      remedy: 'byre credential list shows where each credential comes from (--global, --layer)',
    });
  }
  if (credentialKindOf(source) === null && !isInjectedSource(source)) {
    throw new ByreError(`env_from_host ${key} in ${target.file.path} is not a credential row`, {
      rule: 'credential.not-a-credential',
      remedy: 'edit that passthrough in the file itself',
    });
  }
  await writeConfig(
    target.file,
    [{ op: 'delete', path: ['env_from_host', key] }, ...dropRules(state, key)],
    target.lock === undefined ? {} : { lock: target.lock },
  );
  say(io.stderr, `removed ${key} from ${target.file.path}`);
}

/** One tab-separated line; every field escaped (paths are the user's, keys the config's). */
function listLine(...fields: string[]): string {
  return `${fields
    .filter((f) => f !== '')
    .map(escapeTerminal)
    .join('\t')}\n`;
}

/** Keys and where they come from; never values. Tab-separated on stdout. */
export async function credentialListCommand(io: Io, opts: CredentialTarget): Promise<void> {
  let lines: string[];
  if (opts.global === true || opts.layer !== undefined) {
    const target = await resolveTarget(io, opts);
    const state = fileState(target.file);
    lines = Object.keys(state.rows)
      .sort()
      .flatMap((key) => {
        const source = state.rows[key] ?? '';
        const kind = isInjectedSource(source) ? 'injected' : credentialKindOf(source);
        return kind === null ? [] : [listLine(key, kind, target.file.path)];
      });
  } else {
    const ctx = await resolveProjectContext(io.cwd, io.env);
    await checkProjectPath(ctx);
    const { config } = loadCascade({
      home: ctx.store.home,
      projectId: ctx.projectId,
      bundledTemplate: templateLookup(ctx.store.home),
    });
    const rows = [
      ...credentialRows(config),
      ...config.injections.map((i) => ({ ...i, kind: 'injected', overridden: false })),
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    lines = rows.map((r) =>
      listLine(
        r.key,
        r.kind,
        `${layerLabel(r.from)} ${r.from.path ?? ''}`.trim(),
        r.overridden ? 'overridden by [env]' : '',
      ),
    );
  }
  if (lines.length === 0) {
    say(io.stderr, 'no credential rows here (byre credential add KEY seals one)');
    return;
  }
  for (const line of lines) io.stdout.write(line);
}

/**
 * A new identity under a new passphrase, every row of the file re-sealed to
 * it, in one write: the old passphrase opens nothing the file now holds.
 */
export async function credentialRekeyCommand(io: Io, opts: CredentialTarget): Promise<void> {
  const target = await resolveTarget(io, opts);
  const state = fileState(target.file);
  if (state.table === null) {
    throw new ByreError(`${target.file.path} holds no credential identity`, {
      rule: 'credential.no-identity',
      remedy: `byre credential add KEY${target.flag} creates one`,
    });
  }
  const source = passphraseSource(io, opts);
  const current = await askPassphrase(source, `byre: current passphrase for ${target.file.path}: `);
  const from: LayerRef = { kind: target.file.kind, name: target.file.name, path: target.file.path };
  const identity = await unlockFor(from, state.table, current, new Map());
  const values: (DeliveredValue | OpenedInjected)[] = [];
  for (const key of Object.keys(state.rows).sort()) {
    const row = state.rows[key] ?? '';
    if (credentialKindOf(row) !== null || isInjectedSource(row)) {
      values.push(await openFileRow(identity, { key, source: row, from }));
    }
  }
  const next = await askNewPassphrase(source, 'byre: new passphrase: ');
  const { table } = await createIdentity(next);
  const edits: TomlEdit[] = [
    { op: 'set', path: ['credentials', 'recipient'], value: table.recipient },
    { op: 'set', path: ['credentials', 'identity'], value: table.identity },
  ];
  for (const v of values) {
    edits.push({
      op: 'set',
      path: ['env_from_host', v.key],
      value: await resealRow(table.recipient, v),
    });
  }
  await writeConfig(target.file, edits, target.lock === undefined ? {} : { lock: target.lock });
  say(
    io.stderr,
    `rekeyed ${target.file.path}: a new identity (key id ${keyIdOf(table.recipient)}) and ${values.length} row(s) re-sealed`,
  );
}
