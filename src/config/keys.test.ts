import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CONFIG_DOC_PATH, renderConfigDoc } from './config-doc.js';
import { configKey, configKeys, FILE_RULES, type FieldDoc } from './keys.js';
import { parseLayer } from './parse.js';
import { LAYER_SHAPE } from './schema.js';
import type { ValueShape } from './shape.js';

const CONFIG_KEYS = configKeys();

/** The command the rendered page itself says regenerates it. */
const CONFIG_DOC_REGENERATE = /by `([^`]+)`/.exec(renderConfigDoc())?.[1];

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every `'config.…'` rule id a source file names. */
function ruleIdsIn(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/'(config\.[a-z0-9-]+)'/g)].map((m) => m[1] ?? '');
}

/** The files that hold the loader's rules: the per-family rules, parse, read, the cascade check and inject's grammar. */
function ruleFiles(): string[] {
  const rules = path.join(ROOT, 'src/config/rules');
  return [
    ...readdirSync(rules)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => path.join(rules, f)),
    ...['parse.ts', 'read.ts', 'check-effective.ts', 'inject.ts'].map((f) =>
      path.join(ROOT, 'src/config', f),
    ),
  ];
}

function entryShape(shape: ValueShape): ValueShape | undefined {
  // A map of lists (`[[inject.KEY]]`) documents the tables of its lists.
  if (shape.kind === 'list' || shape.kind === 'map') return entryShape(shape.of);
  return shape.kind === 'table' ? shape : undefined;
}

/** Field names that have no doc, and docs for fields that do not exist, depth first. */
function fieldDrift(
  docs: Readonly<Record<string, FieldDoc>> | undefined,
  shape: ValueShape | undefined,
  prefix: string,
): string[] {
  const fields = shape?.kind === 'table' ? shape.fields : {};
  const names = new Set([...Object.keys(fields), ...Object.keys(docs ?? {})]);
  return [...names].flatMap((name) => {
    const doc = docs?.[name];
    const sub = fields[name];
    if (doc === undefined) return [`${prefix}${name}: no doc`];
    if (sub === undefined) return [`${prefix}${name}: not in the schema`];
    return sub.kind === 'table' ? fieldDrift(doc.fields, sub, `${prefix}${name}.`) : [];
  });
}

describe('the key registry', () => {
  it('covers exactly the schema’s keys, each once', () => {
    expect([...CONFIG_KEYS].sort()).toEqual(Object.keys(LAYER_SHAPE.fields).sort());
    expect(new Set(CONFIG_KEYS).size).toBe(CONFIG_KEYS.length);
  });

  it.each(CONFIG_KEYS.map((k) => [k]))('%s documents every field of its entries', (key) => {
    const k = configKey(key);
    const shape = entryShape(k.shape);
    if (shape?.kind !== 'table') {
      expect(k.fields, `${key} is not a table; it has no fields`).toBeUndefined();
      return;
    }
    expect(fieldDrift(k.fields, shape, `${key}.`)).toEqual([]);
  });

  it.each(CONFIG_KEYS.map((k) => [k]))('%s: its example loads without issues', (key) => {
    const k = configKey(key);
    const kind = k.layers.includes('project') ? 'project' : 'default';
    const result = parseLayer(`${k.example}\n`, { file: 'example', kind, name: kind });
    expect(result.issues).toEqual([]);
    // An injection needs its sealed row and the identity that row is sealed to, in the same file.
    const companions = key === 'inject' ? ['env_from_host', 'credentials'] : [];
    expect(Object.keys(result.value ?? {}).sort()).toEqual([key, ...companions].sort());
  });

  it('derives the layers from the placement bans', () => {
    expect(configKey('template').layers).toEqual(['default', 'project']);
    expect(configKey('extends').layers).toEqual(['layer', 'project']);
    expect(configKey('skills').layers).toEqual(['default', 'layer', 'project']);
    expect(configKey('mcp').layers).toEqual(['default', 'template', 'layer', 'project']);
    expect(configKey('agent').layers).not.toContain('template');
  });

  it('gives identity lists their identity field', () => {
    expect(configKey('mounts').identity).toBe('target');
    expect(configKey('ports').identity).toBe('container');
    expect(configKey('mcp').identity).toBe('name');
    expect(configKey('apt').identity).toBeNull();
  });

  it('documents every rule id the loader can report, and only those', () => {
    const emitted = new Set(ruleFiles().flatMap(ruleIdsIn));
    const documented = new Set([
      ...CONFIG_KEYS.flatMap((k) => configKey(k).rules),
      ...Object.keys(FILE_RULES),
    ]);
    const undocumented = [...emitted].filter((r) => !documented.has(r)).sort();
    expect(
      undocumented,
      `add these rule ids to a key's rules (or FILE_RULES) in src/config/keys.ts, then run \`${CONFIG_DOC_REGENERATE}\``,
    ).toEqual([]);
    const stale = [...documented].filter((r) => !emitted.has(r)).sort();
    expect(stale, 'src/config/keys.ts lists rule ids the loader no longer reports').toEqual([]);
  });
});

describe(CONFIG_DOC_PATH, () => {
  it('is the page the key registry renders', () => {
    const page = readFileSync(path.join(ROOT, CONFIG_DOC_PATH), 'utf8');
    expect(
      page === renderConfigDoc(),
      `${CONFIG_DOC_PATH} is out of date with src/config/keys.ts: run \`${CONFIG_DOC_REGENERATE}\` and commit the result`,
    ).toBe(true);
  });

  it('names every key with its type, merge rule and example', () => {
    const page = renderConfigDoc();
    for (const key of CONFIG_KEYS) {
      const k = configKey(key);
      expect(page).toContain(`### \`${key}\`\n`);
      expect(page).toContain(k.example);
    }
  });
});
