// The data a CST stands for, built the way a TOML reader would (headers,
// dotted keys, arrays of tables). Edits use it to compare values and find
// entries; tests compare it with smol-toml's reading of the same text.

import type { TomlDocument, TomlPath, TomlTable, TomlValue, ValueNode } from './cst.js';

/** Set an own property, even one named like Object.prototype's members. */
function setOwn(table: TomlTable, key: string, value: TomlValue): void {
  Object.defineProperty(table, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function getOwn(table: TomlTable, key: string): TomlValue | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)
  );
}

function child(
  container: TomlTable | TomlValue[],
  segment: string | number,
  next: string | number | undefined,
): TomlTable | TomlValue[] {
  const existing = Array.isArray(container)
    ? container[segment as number]
    : getOwn(container, String(segment));
  if (isTable(existing) || Array.isArray(existing)) return existing;
  const made: TomlTable | TomlValue[] = typeof next === 'number' ? [] : {};
  if (Array.isArray(container)) container[segment as number] = made;
  else setOwn(container, String(segment), made);
  return made;
}

function assign(table: TomlTable, segments: readonly string[], value: TomlValue): void {
  let cursor: TomlTable = table;
  segments.slice(0, -1).forEach((segment) => {
    const next = child(cursor, segment, undefined);
    cursor = Array.isArray(next) ? {} : next;
  });
  const last = segments[segments.length - 1];
  if (last !== undefined) setOwn(cursor, last, value);
}

/** The data one value node holds. */
export function decodeValue(node: ValueNode): TomlValue {
  switch (node.kind) {
    case 'array':
      return node.items.map((item) => decodeValue(item.value));
    case 'inline-table': {
      const table: TomlTable = {};
      for (const entry of node.entries) assign(table, entry.key.segments, decodeValue(entry.value));
      return table;
    }
    default:
      return node.value;
  }
}

/** The whole document as data. */
export function documentData(doc: TomlDocument): TomlTable {
  const root: TomlTable = {};
  for (const block of doc.blocks) {
    let table: TomlTable | TomlValue[] = root;
    block.path.forEach((segment, n) => {
      table = child(table, segment, block.path[n + 1]);
    });
    const target: TomlTable = Array.isArray(table) ? {} : table;
    for (const statement of block.body) {
      if (statement.kind === 'keyval') {
        assign(target, statement.key.segments, decodeValue(statement.value));
      }
    }
  }
  return root;
}

/** The value at a path in decoded data, or undefined. */
export function valueIn(data: TomlValue, path: TomlPath): TomlValue | undefined {
  let cursor: TomlValue | undefined = data;
  for (const segment of path) {
    if (Array.isArray(cursor) && typeof segment === 'number') cursor = cursor[segment];
    else if (isTable(cursor) && typeof segment === 'string') cursor = getOwn(cursor, segment);
    else return undefined;
  }
  return cursor;
}

/** The value at a path in the document, or undefined. */
export function getValue(doc: TomlDocument, path: TomlPath): TomlValue | undefined {
  return valueIn(documentData(doc), path);
}

/** Structural equality of TOML data (NaN equals NaN; date-times compare as written). */
export function sameValue(a: TomlValue | undefined, b: TomlValue | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, n) => sameValue(item, b[n]))
    );
  }
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue(a[k], b[k]))
    );
  }
  if (typeof a === 'object' && typeof b === 'object') return a.raw === b.raw;
  if (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a)) return Number.isNaN(b);
  return a === b;
}

export { isTable };
