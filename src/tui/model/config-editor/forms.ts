// The small forms structured entries open: one field per key the user types,
// turned into TomlEdits at this layer. Shape only (a port must be a number);
// every value rule is the loader's, applied when the form is submitted
// (state.ts re-parses the edited file). An entry edited in place keeps the
// keys the form does not show.

import { TomlDateTime, type TomlTable, type TomlValue } from '../../../tomldoc/index.js';
import { removeEntry, setAt, upsertEntry, withoutBlanks, type EntryKey } from './edits.js';
import type { Change, FieldError, FieldSpec, FormSpec } from './types.js';

type Values = Readonly<Record<string, string>>;

/** An entry a form edits: what it shows first, and this file's own entry it replaces (null for a new one or an override of an inherited one). */
export interface EntryAt {
  prefill: TomlTable | null;
  base: TomlTable | null;
}

const v = (values: Values, name: string): string => (values[name] ?? '').trim();

function need(values: Values, name: string, what: string): FieldError | null {
  return v(values, name) === '' ? { field: name, message: `${what} is required` } : null;
}

/** Words split at spaces; "double quotes" keep spaces inside one word. */
function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** The inverse of splitWords, for a form's initial text. */
function joinWords(words: readonly string[]): string {
  return words.map((w) => (w === '' || /\s/.test(w) ? `"${w}"` : w)).join(' ');
}

function strings(value: TomlValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

function text(value: TomlValue | undefined): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/**
 * The edits that put `entry` at this layer: replacing `base` (this file's
 * entry being edited, renamed or not) and keeping the keys the form does not
 * show.
 */
function entryChange(
  key: EntryKey,
  entry: Record<string, TomlValue | undefined>,
  base: TomlTable | null,
  shown: readonly string[],
  says: string,
): Change {
  const kept: TomlTable = {};
  for (const [k, value] of Object.entries(base ?? {})) if (!shown.includes(k)) kept[k] = value;
  const next = { ...kept, ...withoutBlanks(entry) };
  const identity = key === 'ports' ? 'container' : key === 'mounts' ? 'target' : 'name';
  const before = base?.[identity];
  const renamed = before !== undefined && before !== next[identity];
  return {
    edits: [
      ...(renamed && (typeof before === 'string' || typeof before === 'number')
        ? [removeEntry(key, before)]
        : []),
      upsertEntry(key, next),
    ],
    says,
  };
}

function choice(name: string, label: string, initial: string, choices: string[]): FieldSpec {
  return {
    name,
    label,
    initial: choices.includes(initial) ? initial : (choices[0] ?? ''),
    choices,
  };
}

export function mountForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  const fields: FieldSpec[] = [
    { name: 'host', label: 'host', initial: text(prefill?.['host']), placeholder: '~/src/lib' },
    {
      name: 'target',
      label: 'target',
      initial: text(prefill?.['target']),
      placeholder: '/opt/lib',
    },
    choice('mode', 'mode', text(prefill?.['mode']) || 'ro', ['ro', 'rw']),
    choice('state', 'bind', prefill?.['disabled'] === true ? 'disabled' : 'enabled', [
      'enabled',
      'disabled',
    ]),
  ];
  return {
    title,
    fields,
    build: (values) =>
      need(values, 'host', 'host') ??
      need(values, 'target', 'target') ??
      entryChange(
        'mounts',
        {
          host: v(values, 'host'),
          target: v(values, 'target'),
          mode: v(values, 'mode'),
          disabled: v(values, 'state') === 'disabled' ? true : undefined,
        },
        base,
        ['host', 'target', 'mode', 'disabled'],
        `mount ${v(values, 'host')} → ${v(values, 'target')}`,
      ),
  };
}

function portNumber(values: Values, name: string): number | FieldError | undefined {
  const raw = v(values, name);
  if (raw === '') return undefined;
  if (!/^[0-9]{1,5}$/.test(raw)) return { field: name, message: `${name} must be a number` };
  return Number(raw);
}

export function portForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  return {
    title,
    fields: [
      { name: 'container', label: 'container', initial: text(prefill?.['container']) },
      {
        name: 'host',
        label: 'host port',
        initial: text(prefill?.['host']),
        placeholder: 'same as container',
      },
      {
        name: 'interface',
        label: 'interface',
        initial: text(prefill?.['interface']),
        placeholder: '127.0.0.1',
      },
    ],
    build(values) {
      const missing = need(values, 'container', 'the container port');
      if (missing) return missing;
      const container = portNumber(values, 'container');
      const host = portNumber(values, 'host');
      if (typeof container === 'object') return container;
      if (typeof host === 'object') return host;
      return entryChange(
        'ports',
        { container, host, interface: v(values, 'interface') },
        base,
        ['container', 'host', 'interface', 'remove'],
        `port ${String(container)}`,
      );
    },
  };
}

export function volumeForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  const raw = prefill?.['seed'];
  const seed =
    raw instanceof Object && !Array.isArray(raw) && !(raw instanceof TomlDateTime) ? raw : null;
  return {
    title,
    fields: [
      { name: 'name', label: 'name', initial: text(prefill?.['name']) },
      choice('role', 'role', text(prefill?.['role']), ['cache', 'state']),
      {
        name: 'target',
        label: 'target',
        initial: text(prefill?.['target']),
        placeholder: '/home/dev/.cache/x',
      },
      choice('scope', 'scope', text(prefill?.['scope']), ['project', 'machine']),
      choice('sharing', 'sharing', text(prefill?.['sharing']), ['shared', 'exclusive']),
      {
        name: 'seed_host',
        label: 'seed from host',
        initial: text(seed?.['host']),
        placeholder: '~/dir copied into a fresh state volume',
      },
      {
        name: 'seed_literal',
        label: 'seed literal',
        initial: text(seed?.['literal']),
        placeholder: 'text written once (not a secret)',
        prose: true,
      },
      { name: 'seed_path', label: 'seed path', initial: text(seed?.['path']), placeholder: 'file' },
    ],
    build: (values) =>
      need(values, 'name', 'name') ??
      need(values, 'target', 'target') ??
      entryChange(
        'volumes',
        {
          name: v(values, 'name'),
          role: v(values, 'role'),
          target: v(values, 'target'),
          scope: v(values, 'scope') === 'project' ? undefined : v(values, 'scope'),
          sharing: v(values, 'sharing') === 'shared' ? undefined : v(values, 'sharing'),
          seed: seedTable(values),
        },
        base,
        ['name', 'role', 'target', 'scope', 'sharing', 'seed'],
        `volume ${v(values, 'name')}`,
      ),
  };
}

/** A volume's `seed` from its three fields; none filled is no seed. The literal keeps its text as typed. */
function seedTable(values: Values): TomlTable | undefined {
  const literal = values['seed_literal'] ?? '';
  const seed = withoutBlanks({
    host: v(values, 'seed_host'),
    literal: literal.trim() === '' ? undefined : literal,
    path: v(values, 'seed_path'),
  });
  return Object.keys(seed).length === 0 ? undefined : seed;
}

/** `Name=value` words (quote one holding spaces) as a headers table; an empty field is no table. */
function headerTable(
  values: Values,
  name: string,
): { table: TomlTable | undefined } | { error: FieldError } {
  const table: TomlTable = {};
  for (const word of splitWords(v(values, name))) {
    const eq = word.indexOf('=');
    if (eq <= 0) return { error: { field: name, message: `header "${word}" is not Name=value` } };
    table[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return { table: Object.keys(table).length === 0 ? undefined : table };
}

function headerWords(value: TomlValue | undefined): string {
  if (value === undefined || typeof value !== 'object' || Array.isArray(value)) return '';
  return joinWords(
    Object.entries(value).flatMap(([k, x]) => (typeof x === 'string' ? [`${k}=${x}`] : [])),
  );
}

export function mcpForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  return {
    title,
    fields: [
      { name: 'name', label: 'name', initial: text(prefill?.['name']) },
      {
        name: 'url',
        label: 'url',
        initial: text(prefill?.['url']),
        placeholder: 'https://… (remote)',
      },
      {
        name: 'command',
        label: 'command',
        initial: joinWords(strings(prefill?.['command'])),
        placeholder: 'npx -y server (stdio)',
      },
      {
        name: 'env',
        label: 'env names',
        initial: strings(prefill?.['env']).join(' '),
        placeholder: 'GITHUB_TOKEN',
      },
      { name: 'egress', label: 'egress', initial: strings(prefill?.['egress']).join(' ') },
      {
        name: 'headers',
        label: 'headers',
        initial: headerWords(prefill?.['headers']),
        placeholder: '"Authorization=Bearer ${TOKEN}" (url servers)',
      },
    ],
    build(values) {
      const missing = need(values, 'name', 'name');
      if (missing) return missing;
      const headers = headerTable(values, 'headers');
      if ('error' in headers) return headers.error;
      return entryChange(
        'mcp',
        {
          name: v(values, 'name'),
          url: v(values, 'url'),
          command: splitWords(v(values, 'command')),
          env: splitWords(v(values, 'env')),
          egress: splitWords(v(values, 'egress')),
          headers: headers.table,
        },
        base,
        ['name', 'url', 'command', 'env', 'egress', 'headers'],
        `MCP server ${v(values, 'name')}`,
      );
    },
  };
}

export function claudeSkillForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  return {
    title,
    fields: [
      { name: 'name', label: 'name', initial: text(prefill?.['name']) },
      { name: 'path', label: 'path', initial: text(prefill?.['path']), placeholder: '~/skills/x' },
    ],
    build: (values) =>
      need(values, 'name', 'name') ??
      need(values, 'path', 'path') ??
      entryChange(
        'claude_skills',
        { name: v(values, 'name'), path: v(values, 'path') },
        base,
        ['name', 'path'],
        `Claude Skill ${v(values, 'name')}`,
      ),
  };
}

export function contextForm(at: EntryAt, title: string): FormSpec {
  const { prefill, base } = at;
  return {
    title,
    fields: [
      { name: 'name', label: 'name', initial: text(prefill?.['name']) },
      {
        name: 'text',
        label: 'text',
        initial: text(prefill?.['text']),
        placeholder: '^e writes it in $EDITOR',
        prose: true,
      },
      {
        name: 'file',
        label: 'or file',
        initial: text(prefill?.['file']),
        placeholder: '~/notes.md',
      },
    ],
    build(values) {
      const missing = need(values, 'name', 'name');
      if (missing) return missing;
      const prose = values['text'] ?? '';
      if (prose.trim() === '' && v(values, 'file') === '') {
        return { field: 'text', message: 'write the text (^e opens $EDITOR) or name a file' };
      }
      return entryChange(
        'context',
        {
          name: v(values, 'name'),
          text: prose.trim() === '' ? undefined : prose,
          file: v(values, 'file'),
        },
        base,
        ['name', 'text', 'file'],
        `instructions ${v(values, 'name')}`,
      );
    },
  };
}

/** A `KEY = value` pair in a table key (env, env_from_host, files). */
export function pairForm(
  table: 'env' | 'env_from_host' | 'files',
  names: { key: string; value: string; placeholder?: string },
  base: { key: string; value: string } | null,
  title: string,
): FormSpec {
  return {
    title,
    fields: [
      { name: 'key', label: names.key, initial: base?.key ?? '' },
      {
        name: 'value',
        label: names.value,
        initial: base?.value ?? '',
        ...(names.placeholder === undefined ? {} : { placeholder: names.placeholder }),
      },
    ],
    build(values) {
      const missing = need(values, 'key', names.key);
      if (missing) return missing;
      const key = v(values, 'key');
      const renamed = base !== null && base.key !== '' && base.key !== key;
      return {
        edits: [
          ...(renamed ? [setAt([table, base.key], undefined)] : []),
          setAt([table, key], values['value'] ?? ''),
        ],
        says: `${table} ${key}`,
      };
    },
  };
}

export function sourceForm(
  base: { id: string; uri: string; digest: string } | null,
  title: string,
): FormSpec {
  return {
    title,
    fields: [
      { name: 'id', label: 'package', initial: base?.id ?? '', placeholder: 'owner/name' },
      { name: 'uri', label: 'uri', initial: base?.uri ?? '', placeholder: 'https://…/skill.toml' },
      { name: 'digest', label: 'digest', initial: base?.digest ?? '', placeholder: 'sha256:…' },
    ],
    build(values) {
      const missing = need(values, 'id', 'the package id') ?? need(values, 'uri', 'uri');
      if (missing) return missing;
      const id = v(values, 'id');
      const renamed = base !== null && base.id !== id;
      return {
        edits: [
          ...(renamed ? [setAt(['sources', base.id], undefined)] : []),
          setAt(
            ['sources', id],
            withoutBlanks({ uri: v(values, 'uri'), digest: v(values, 'digest') }),
          ),
        ],
        says: `source for ${id}`,
      };
    },
  };
}

/** One text value: a scalar key, or an item to add to a list. */
export function textForm(
  title: string,
  label: string,
  initial: string,
  apply: (value: string) => Change,
  placeholder?: string,
): FormSpec {
  return {
    title,
    fields: [
      { name: 'value', label, initial, ...(placeholder === undefined ? {} : { placeholder }) },
    ],
    build: (values) => apply(values['value'] ?? ''),
  };
}
