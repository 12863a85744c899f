// `byre credential add KEY --inject HOST[,HOST] --header NAME|--bearer|--basic
// USER` and `byre credential remove KEY --inject HOST` (adr/0070): the
// injected row and its `[inject.KEY]` rules, written together through the
// config writer. The rules are sealed with the value, so changing them opens
// the row (asking the passphrase) and seals value and every rule again; no
// value is ever printed or quoted in an error.

import {
  bindingFindings,
  checkInjections,
  formatInjectHost,
  isInjectedSource,
  parseInjectHost,
  parseInjectRules,
  type InjectRule,
} from '../config/inject.js';
import type { RawInjectRule } from '../config/inject-shape.js';
import type { LayerRef } from '../config/types.js';
import { askPassphrase } from '../credentials/input.js';
import { openFileRow, unlockFor, type OpenedInjected } from '../credentials/open.js';
import { headerValueProblem } from '../credentials/presentation.js';
import { sealInjected } from '../credentials/seal.js';
import { ByreError, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { say } from '../output/notes.js';
import { registerSecret } from '../output/redact.js';
import type { TomlEdit, TomlTable } from '../tomldoc/index.js';
import {
  checkKey,
  fileIdentity,
  fileState,
  passphraseSource,
  readValue,
  resolveTarget,
  saidCreated,
  writeTarget,
  type CredentialTarget,
  type Target,
} from './credential.js';

/** How the edge presents the value: exactly one of the three. */
export interface InjectPresentationFlags {
  header?: string;
  bearer?: boolean;
  basic?: string;
}

export interface CredentialInjectOptions extends CredentialTarget, InjectPresentationFlags {
  /** `--inject`: comma-separated hosts; the CLI calls here when any injection flag is given. */
  inject?: string;
  /** `--file`: refused beside `--inject`. */
  file?: string;
  /** The value itself, not read (the first-run offer's, from this host's environment). */
  value?: Uint8Array;
}

const FLAG_RULES: Readonly<Record<string, string>> = {
  'config.inject-host-invalid': 'credential.inject-host',
  'config.inject-hosts-empty': 'credential.inject-host',
  'config.inject-host-twice': 'credential.inject-host-twice',
  'config.inject-presentation': 'credential.inject-presentation',
};

/** The rule the flags name, checked by the config's own rules; a UsageError naming the flag. */
function ruleFromFlags(
  key: string,
  opts: CredentialInjectOptions,
): { raw: RawInjectRule; rule: InjectRule } {
  if (opts.inject === undefined) {
    throw new UsageError('--header, --bearer and --basic say how an injected value is presented', {
      rule: 'credential.inject-presentation',
      remedy: 'add --inject HOST[,HOST]',
    });
  }
  if (opts.file !== undefined) {
    throw new UsageError(
      '--file and --inject: an injected value is presented as a header, not a file',
      {
        rule: 'credential.inject-file',
        remedy: 'give the value on the terminal or on standard input',
      },
    );
  }
  const set = (['header', 'bearer', 'basic'] as const).filter((k) => opts[k] !== undefined);
  if (set.length !== 1) {
    throw new UsageError(
      set.length === 0
        ? `--inject: say how the edge presents ${key}`
        : `--inject: ${set.map((f) => `--${f}`).join(' and ')} name two presentations`,
      {
        rule: 'credential.inject-presentation',
        remedy: 'give exactly one of --header NAME, --bearer, --basic USER',
      },
    );
  }
  const texts = opts.inject.split(',').map((h) => h.trim());
  const hosts = texts.map((h) => {
    const host = parseInjectHost(h);
    return host === null ? h : formatInjectHost(host);
  });
  const raw: RawInjectRule = {
    hosts,
    ...(opts.header === undefined ? {} : { header: opts.header }),
    ...(opts.bearer === undefined ? {} : { bearer: opts.bearer }),
    ...(opts.basic === undefined ? {} : { basic: opts.basic }),
  };
  const findings = checkInjections({
    env_from_host: { [key]: 'injected:' },
    inject: { [key]: [raw] },
  });
  const first = findings[0];
  if (first !== undefined) {
    const flag = first.path.includes('hosts') ? '--inject' : `--${set[0] ?? 'inject'}`;
    throw new UsageError(`${flag}: ${first.message}`, {
      rule: FLAG_RULES[first.rule] ?? 'credential.inject-invalid',
      ...(first.fix === undefined ? {} : { remedy: first.fix }),
    });
  }
  const rule = parseInjectRules(key, [raw]).rules[0] as InjectRule;
  return { raw, rule };
}

function hostKeys(rules: readonly InjectRule[]): string[] {
  return rules.flatMap((r) => r.hosts.map((h) => `${h.name}:${h.port}`));
}

/** The file's injected row for KEY, opened with the passphrase, its sealed rules checked against the file's. */
async function openFileInjection(
  io: Io,
  target: Target,
  key: string,
  opts: CredentialTarget,
): Promise<{
  state: ReturnType<typeof fileState>;
  opened: OpenedInjected;
  raw: RawInjectRule[];
  recipient: string;
}> {
  const state = fileState(target.file);
  const source = state.rows[key];
  if (source === undefined || !isInjectedSource(source) || state.table === null) {
    throw new ByreError(`${target.file.path} has no credential ${key} injected at the edge`, {
      rule: 'credential.not-injected',
      remedy: `byre credential list shows where each credential comes from; byre credential add ${key} --inject HOST … seals one`,
    });
  }
  const from: LayerRef = { kind: target.file.kind, name: target.file.name, path: target.file.path };
  const passphrase = await askPassphrase(
    passphraseSource(io, opts),
    `byre: passphrase for the credentials in ${target.file.path}: `,
  );
  const identity = await unlockFor(from, state.table, passphrase, new Map());
  const opened = (await openFileRow(identity, { key, source, from })) as OpenedInjected;
  const raw = [...(state.inject[key] ?? [])];
  const changed = bindingFindings(key, opened.binding, parseInjectRules(key, raw).rules)[0];
  if (changed !== undefined) {
    throw new ByreError(changed.message, {
      rule: changed.rule,
      location: { file: target.file.path, key: `inject.${key}` },
      ...(changed.fix === undefined ? {} : { remedy: changed.fix }),
    });
  }
  return { state, opened, raw, recipient: state.table.recipient };
}

/** A rule as the writer takes it: only the keys it has. */
function tomlRule(rule: RawInjectRule): TomlTable {
  const out: TomlTable = {};
  for (const [k, v] of Object.entries(rule)) if (v !== undefined) out[k] = v;
  return out;
}

/** The row sealed with every rule, and the rules written beside it (in byre's inline form). */
async function sealedEdits(
  recipient: string,
  key: string,
  raw: RawInjectRule[],
  value: Uint8Array,
  had: boolean,
): Promise<TomlEdit[]> {
  const rules = parseInjectRules(key, raw).rules;
  return [
    {
      op: 'set',
      path: ['env_from_host', key],
      value: await sealInjected(recipient, key, rules, value),
    },
    ...(had ? [{ op: 'delete', path: ['inject', key] } as const] : []),
    // The documented form: one [[inject.KEY]] block per rule.
    { op: 'tables-append', path: ['inject', key], tables: raw.map(tomlRule) },
  ];
}

/**
 * Seal KEY for injection at the edge. A key the file already injects gets
 * one more rule (the passphrase opens the row; no new value is read);
 * otherwise the value is read as for any credential and replaces any row.
 */
export async function credentialInjectAddCommand(
  io: Io,
  key: string,
  opts: CredentialInjectOptions,
): Promise<void> {
  checkKey(key);
  const fresh = ruleFromFlags(key, opts);
  const target = await resolveTarget(io, opts);
  const current = fileState(target.file).rows[key];
  const hosts = fresh.rule.hosts.map(formatInjectHost).join(', ');
  if (current !== undefined && isInjectedSource(current)) {
    const { state, opened, raw, recipient } = await openFileInjection(io, target, key, opts);
    const taken = hostKeys(opened.rules);
    const twice = fresh.rule.hosts.find((h) => taken.includes(`${h.name}:${h.port}`));
    if (twice !== undefined) {
      throw new UsageError(`--inject: ${key} is already injected for ${formatInjectHost(twice)}`, {
        rule: 'credential.inject-host-twice',
        remedy: `the edge presents one credential, one way, per host: byre credential remove ${key} --inject ${formatInjectHost(twice)} first`,
      });
    }
    const edits = await sealedEdits(
      recipient,
      key,
      [...raw, fresh.raw],
      opened.value,
      state.inject[key] !== undefined,
    );
    await writeTarget(target, edits);
    say(
      io.stderr,
      `added ${hosts} to ${key}'s injection in ${target.file.path} (value and rules sealed again)`,
    );
    return;
  }
  const state = fileState(target.file);
  const fd = opts.passphraseFd === undefined ? {} : { passphraseFd: opts.passphraseFd };
  let value: Uint8Array;
  if (opts.value === undefined) ({ value } = await readValue(io, key, fd));
  else {
    value = opts.value;
    registerSecret(value);
  }
  const problem = headerValueProblem(Buffer.from(value).toString('utf8'));
  if (problem !== null) {
    throw new ByreError(`${key}: ${problem}`, {
      rule: 'credential.value-invalid',
      remedy: 'give the value on one line, as the service issued it',
    });
  }
  const { recipient, edits, created } = await fileIdentity(io, target, state.table, opts);
  edits.push(
    ...(await sealedEdits(recipient, key, [fresh.raw], value, state.inject[key] !== undefined)),
  );
  await writeTarget(target, edits);
  saidCreated(io, target, created);
  const replaced = current !== undefined ? ' (replacing its previous row)' : '';
  say(
    io.stderr,
    `sealed ${key} for injection at the edge for ${hosts} into ${target.file.path}${replaced}`,
  );
  say(
    io.stderr,
    'the box will hold a sentinel; byre develop starts the edge that presents the value',
  );
}

/** Drop one host from KEY's rules (the passphrase opens the row; value and the rest are sealed again). */
export async function credentialInjectRemoveCommand(
  io: Io,
  key: string,
  host: string,
  opts: CredentialTarget,
): Promise<void> {
  checkKey(key);
  const parsed = parseInjectHost(host);
  if (parsed === null) {
    throw new UsageError(`--inject ${JSON.stringify(host)}: not a host name`, {
      rule: 'credential.inject-host',
      remedy:
        'write a DNS name (api.example.com) or name:port; no scheme, path, wildcard or address',
    });
  }
  const target = await resolveTarget(io, opts);
  const { state, opened, raw, recipient } = await openFileInjection(io, target, key, opts);
  const gone = `${parsed.name}:${parsed.port}`;
  if (!hostKeys(opened.rules).includes(gone)) {
    throw new ByreError(
      `${key} is not injected for ${formatInjectHost(parsed)} in ${target.file.path}`,
      {
        rule: 'credential.inject-host-missing',
        remedy: 'byre config shows the hosts each injected credential goes to',
      },
    );
  }
  const kept = raw
    .map((r) => ({
      ...r,
      hosts: (r.hosts ?? []).filter((h) => {
        const p = parseInjectHost(h);
        return p === null || `${p.name}:${p.port}` !== gone;
      }),
    }))
    .filter((r) => r.hosts.length > 0);
  if (kept.length === 0) {
    throw new UsageError(`${formatInjectHost(parsed)} is the last host ${key} is injected for`, {
      rule: 'credential.inject-last-host',
      remedy: `remove the credential with its rules: byre credential remove ${key}`,
    });
  }
  const edits = await sealedEdits(
    recipient,
    key,
    kept,
    opened.value,
    state.inject[key] !== undefined,
  );
  await writeTarget(target, edits);
  say(
    io.stderr,
    `removed ${formatInjectHost(parsed)} from ${key}'s injection in ${target.file.path} (value and rules sealed again)`,
  );
}
