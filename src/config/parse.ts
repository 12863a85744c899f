// Pure validation of one config-family file: TOML text in, a typed RawLayer
// plus located issues out. Never reads files (read.ts does) and never merges
// (merge.ts does); issues name rule, file, line, column and key.

import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from 'zod';
import type { ConfigIssue } from '../errors.js';
import {
  findRedefinition,
  formatKeyPath,
  indexKeys,
  locateKey,
  type KeyIndex,
  type PathSegment,
} from './locate.js';
import { checkPlacement, LAYER_RULES, LAYER_WARNINGS, type Finding } from './rules/index.js';
import { conform, tableKeysAt, type ShapeValue, type ValueShape } from './shape.js';
import { schemaOf } from './shape-schema.js';
import { nearestName } from './suggest.js';
import {
  LAYER_SHAPE,
  REMOVED_KEYS,
  RETIRED_KEYS,
  TEMPLATE_PACKAGE_KEY,
  type RawLayer,
} from './schema.js';
import type { LayerKind } from './types.js';

/** Config-family reads are capped at 1 MiB. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

interface LayerSource {
  /** Path shown in issues (a real path, or a label for bundled text). */
  file: string;
  kind: LayerKind;
  name: string;
}

export interface ParseResult {
  /** The validated layer; null when any issue was found. */
  value: RawLayer | null;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
}

/**
 * Locates findings in `text`. The key index is built on the first finding:
 * a file without one (the usual case) is never scanned for positions.
 */
export function locatorFor(
  text: string,
  file: string,
): (findings: readonly Finding[]) => ConfigIssue[] {
  let index: KeyIndex | null = null;
  return (findings) => {
    if (findings.length === 0) return [];
    index ??= indexKeys(text);
    const at = index;
    return findings.map((f) => locateFinding(f, file, at));
  };
}

/** Turn a finding into an issue located in this file's text. */
export function locateFinding(finding: Finding, file: string, index: KeyIndex): ConfigIssue {
  const position = locateKey(index, finding.path);
  const location = {
    file,
    ...(position ? { line: position.line, column: position.column } : {}),
    ...(finding.path.length > 0 ? { key: formatKeyPath(finding.path) } : {}),
  };
  return finding.fix === undefined
    ? { rule: finding.rule, message: finding.message, location }
    : { rule: finding.rule, message: finding.message, location, fix: finding.fix };
}

export function tooLargeIssue(file: string, bytes: number): ConfigIssue {
  return {
    rule: 'config.too-large',
    message: `${file} is ${bytes} bytes; config files are capped at ${MAX_CONFIG_BYTES} bytes (1 MiB)`,
    location: { file },
    fix: 'shrink the file; large prose belongs in a [[context]] file = "…" reference',
  };
}

/**
 * A TOML syntax error, located. smol-toml says only "trying to redefine an
 * already defined table or value" at the second definition, so for that
 * error the key and both lines are found in the text.
 */
export function syntaxIssue(error: unknown, file: string, text?: string): ConfigIssue {
  const message = error instanceof Error ? error.message : String(error);
  const headline = (message.split('\n')[0] ?? message).replace(/^Invalid TOML document:\s*/, '');
  if (!(error instanceof TomlError)) {
    return {
      rule: 'config.toml-syntax',
      message: `invalid TOML: ${headline}`,
      location: { file },
      fix: 'fix the TOML syntax at the marked position',
    };
  }
  const at = { line: error.line, column: error.column };
  const again =
    text !== undefined && /redefine/.test(headline)
      ? findRedefinition(text, error.line, error.column)
      : null;
  if (again === null) {
    return {
      rule: 'config.toml-syntax',
      message: `invalid TOML: ${headline}`,
      location: { file, ...at },
      fix: 'fix the TOML syntax at the marked position',
    };
  }
  const what = again.table ? `table [${again.key}]` : `key ${again.key}`;
  const sameLine = again.first.line === again.again.line;
  const where = (p: { line: number; column: number }): string =>
    sameLine ? `line ${p.line}, column ${p.column}` : `line ${p.line}`;
  return {
    rule: 'config.toml-redefined',
    message: `invalid TOML: ${what} is defined twice, at ${where(again.first)} and again at ${where(again.again)}`,
    location: { file, ...at, key: again.key },
    fix: again.table
      ? `merge the two [${again.key}] tables into one (TOML allows each table once)`
      : `keep one definition of ${again.key}`,
  };
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (value instanceof Date) return 'date';
  if (typeof value === 'object') return 'table';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'float';
  return typeof value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cursor = root;
  for (const segment of path) {
    if (cursor === null || typeof cursor !== 'object') return undefined;
    cursor = (cursor as Record<PropertyKey, unknown>)[segment];
  }
  return cursor;
}

function expectedFor(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const expected = String(issue.expected);
    const names: Record<string, string> = {
      int: 'an integer',
      number: 'a number',
      string: 'a string',
      boolean: 'true or false',
      array: 'an array',
      object: 'a table',
      record: 'a table',
    };
    return names[expected] ?? expected;
  }
  if (issue.code === 'invalid_union') return 'an array of strings or a table of strings';
  return 'a different type';
}

function pathOf(issue: z.core.$ZodIssue): PathSegment[] {
  return issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
}

/**
 * Map zod's shape issues to config.unknown-key / config.wrong-type findings.
 * Given the shape, an unknown key names the known key it is a typo of.
 */
export function shapeFindings(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
  shape?: ValueShape,
): Finding[] {
  return issues.flatMap((issue): Finding[] => {
    const path = pathOf(issue);
    if (issue.code === 'unrecognized_keys') {
      const known = shape === undefined ? null : tableKeysAt(shape, path);
      return issue.keys.map((key) =>
        unknownKeyFinding([...path, key], known === null ? null : nearestName(key, known)),
      );
    }
    const got = typeName(valueAt(root, issue.path));
    const key = formatKeyPath(path);
    const expected = expectedFor(issue);
    return [
      {
        rule: 'config.wrong-type',
        path,
        message: `${key} must be ${expected}, not ${/^[aeiou]/.test(got) ? 'an' : 'a'} ${got}`,
        fix: `write ${key} as ${expected}`,
      },
    ];
  });
}

function unknownKeyFinding(path: PathSegment[], suggestion: string | null): Finding {
  const name = formatKeyPath(path);
  const dockerfile = path.length === 1 && path[0] === 'dockerfile';
  if (dockerfile) {
    return {
      rule: 'config.unknown-key',
      path,
      message: `unknown key ${name} — a typo, or a config written by a newer byre`,
      fix: 'byre always generates the Dockerfile; put raw lines in dockerfile_pre or dockerfile_post',
    };
  }
  if (suggestion !== null) {
    return {
      rule: 'config.unknown-key',
      path,
      message: `unknown key ${name} — did you mean ${suggestion}?`,
      fix: `rename it to ${suggestion} (docs/CONFIG.md lists every key)`,
    };
  }
  return {
    rule: 'config.unknown-key',
    path,
    message: `unknown key ${name} — a typo, or a config written by a newer byre`,
    fix: 'upgrade byre, or remove the key (docs/CONFIG.md lists every key)',
  };
}

const PACKAGE_KEYS = new Set([
  'id',
  'version',
  'kind',
  'package_api',
  'requires_byre',
  'description',
  'files',
]);

/**
 * A template's [package] table is metadata, stripped before the body is
 * parsed, but still strict: a body key written after the [package] header
 * lands inside it, and must not vanish silently.
 */
function checkPackageTable(value: unknown): Finding[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      {
        rule: 'config.wrong-type',
        path: [TEMPLATE_PACKAGE_KEY],
        message: '[package] must be a table',
      },
    ];
  }
  return Object.keys(value)
    .filter((k) => !PACKAGE_KEYS.has(k))
    .map((k) => ({
      rule: 'config.unknown-key',
      path: [TEMPLATE_PACKAGE_KEY, k],
      message: `unknown key "${k}" in [package]`,
      fix: 'keys written after the [package] header belong to it in TOML; move body keys above [package]',
    }));
}

/** Strip keys handled before the schema: removed (refused), retired (ignored), template [package]. */
function preprocess(
  table: Record<string, unknown>,
  kind: LayerKind,
): { body: Record<string, unknown>; findings: Finding[] } {
  const body: Record<string, unknown> = {};
  const findings: Finding[] = [];
  for (const [key, value] of Object.entries(table)) {
    const removed = REMOVED_KEYS[key];
    if (removed) {
      findings.push({ rule: 'config.key-removed', path: [key], ...removed });
    } else if (RETIRED_KEYS.includes(key)) {
      continue;
    } else if (kind === 'template' && key === TEMPLATE_PACKAGE_KEY) {
      findings.push(...checkPackageTable(value));
    } else {
      body[key] = value;
    }
  }
  return { body, findings };
}

/**
 * The value when it has the shape (rebuilt as zod would return it), or zod's
 * issues: a conforming value needs no schema, so zod is asked only about a
 * value that does not conform (adr/0041).
 */
export function checkShape<S extends ValueShape>(
  value: unknown,
  shape: S,
): { value: ShapeValue<S> } | { issues: z.core.$ZodIssue[] };
export function checkShape(
  value: unknown,
  shape: ValueShape,
): { value: unknown } | { issues: z.core.$ZodIssue[] } {
  const fits = conform(value, shape);
  if (fits !== null) return { value: fits };
  const shaped = schemaOf(shape).safeParse(value);
  return shaped.success ? { value: shaped.data } : { issues: shaped.error.issues };
}

/** Parse and validate one config-family file. Pure: the caller supplies the text. */
export function parseLayer(text: string, source: LayerSource): ParseResult {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONFIG_BYTES) {
    return { value: null, issues: [tooLargeIssue(source.file, bytes)], warnings: [] };
  }
  let table: Record<string, unknown>;
  try {
    table = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    return { value: null, issues: [syntaxIssue(error, source.file, text)], warnings: [] };
  }
  const locate = locatorFor(text, source.file);

  const { body, findings } = preprocess(table, source.kind);
  findings.push(...checkPlacement(Object.keys(body), source.kind));
  const shaped = checkShape(body, LAYER_SHAPE);
  if ('issues' in shaped) {
    findings.push(...shapeFindings(shaped.issues, body, LAYER_SHAPE));
    return { value: null, issues: locate(findings), warnings: [] };
  }
  const layer = shaped.value;
  findings.push(...LAYER_RULES.flatMap((rule) => rule(layer)));
  const warnings = locate(LAYER_WARNINGS.flatMap((rule) => rule(layer)));
  if (findings.length > 0) return { value: null, issues: locate(findings), warnings };
  return { value: layer, issues: [], warnings };
}
