// New TOML text for values and keys the engine inserts. Output is always
// valid TOML on one line; a quote style is only a preference, honoured when
// the value can be written that way.

import { TomlDocError } from './parse.js';
import { TomlDateTime, type TomlValue } from './cst.js';
import { isTable } from './decode.js';

export type QuotePreference = 'basic' | 'literal';

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f]/g;
const NOT_LITERAL = /['\u0000-\u0008\u000a-\u001f\u007f]/;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

function hasLoneSurrogate(value: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
}

/** A string as a TOML basic or literal string. */
function renderString(value: string, prefer: QuotePreference = 'basic'): string {
  if (hasLoneSurrogate(value)) {
    throw new TomlDocError('tomldoc.unsupported-value', 'a string holds a lone UTF-16 surrogate');
  }
  if (prefer === 'literal' && !NOT_LITERAL.test(value)) return `'${value}'`;
  const escaped = value.replace(
    NEEDS_ESCAPE,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}

/** One key segment: bare when it can be, else quoted. */
export function renderKeySegment(segment: string, prefer: QuotePreference = 'basic'): string {
  return BARE_KEY.test(segment) ? segment : renderString(segment, prefer);
}

export function renderKey(segments: readonly string[], prefer: QuotePreference = 'basic'): string {
  return segments.map((s) => renderKeySegment(s, prefer)).join('.');
}

function renderNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return String(value);
}

/** Any value on one line: arrays as `[a, b]`, tables as `{ k = v }`. */
export function renderValue(value: TomlValue, prefer: QuotePreference = 'basic'): string {
  if (typeof value === 'string') return renderString(value, prefer);
  if (typeof value === 'number') return renderNumber(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof TomlDateTime) return value.raw;
  if (Array.isArray(value)) return `[${value.map((v) => renderValue(v, prefer)).join(', ')}]`;
  if (isTable(value)) {
    const entries = Object.entries(value).map(
      ([k, v]) => `${renderKeySegment(k, prefer)} = ${renderValue(v, prefer)}`,
    );
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  throw new TomlDocError('tomldoc.unsupported-value', 'this value has no TOML form');
}
