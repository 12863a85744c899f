// Reading a zod schema as data: which keys a table at some path may carry,
// and what shape each value has. Config docs, the key registry and the
// unknown-key suggestion all walk the schemas here, so none of them restates
// the vocabulary by hand. Pure.

import '../zod.js';
import { z } from 'zod';

import type { PathSegment } from './locate.js';

/** The schema under `optional()` / `nullable()` wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

function step(schema: z.ZodType, segment: PathSegment): z.ZodType | null {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    return typeof segment === 'string' && Object.hasOwn(shape, segment)
      ? (shape[segment] ?? null)
      : null;
  }
  if (s instanceof z.ZodArray) return typeof segment === 'number' ? (s.element as z.ZodType) : null;
  if (s instanceof z.ZodRecord) return s.valueType as z.ZodType;
  if (s instanceof z.ZodUnion) {
    for (const option of s.options as readonly z.ZodType[]) {
      const next = step(option, segment);
      if (next !== null) return next;
    }
  }
  return null;
}

/** The schema at `path` (array indexes and record keys walk into elements), or null. */
export function schemaAt(schema: z.ZodType, path: readonly PathSegment[]): z.ZodType | null {
  let s: z.ZodType | null = schema;
  for (const segment of path) {
    if (s === null) return null;
    s = step(s, segment);
  }
  return s;
}

/** The keys a table at `path` may carry; null when the path names no fixed-key table. */
export function tableKeysAt(schema: z.ZodType, path: readonly PathSegment[]): string[] | null {
  const s = schemaAt(schema, path);
  if (s === null) return null;
  const inner = unwrap(s);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape as object) : null;
}

/** The shape of a value, as the registry and the editor see it. */
export type ValueShape =
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'integer' }
  | { kind: 'number' }
  | { kind: 'list'; of: ValueShape }
  /** A table whose keys are free (a map): every value has one shape. */
  | { kind: 'map'; of: ValueShape }
  /** A table with fixed keys. */
  | { kind: 'table'; fields: Record<string, ValueShape> }
  | { kind: 'one-of'; options: ValueShape[] };

export function valueShape(schema: z.ZodType): ValueShape {
  const s = unwrap(schema);
  if (s instanceof z.ZodString) return { kind: 'string' };
  if (s instanceof z.ZodBoolean) return { kind: 'boolean' };
  if (s instanceof z.ZodNumber) {
    return s.format === 'safeint' || s.isInt === true ? { kind: 'integer' } : { kind: 'number' };
  }
  if (s instanceof z.ZodArray) return { kind: 'list', of: valueShape(s.element as z.ZodType) };
  if (s instanceof z.ZodRecord) return { kind: 'map', of: valueShape(s.valueType as z.ZodType) };
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    return {
      kind: 'table',
      fields: Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, valueShape(v)])),
    };
  }
  if (s instanceof z.ZodUnion) {
    return { kind: 'one-of', options: (s.options as readonly z.ZodType[]).map(valueShape) };
  }
  throw new TypeError(`schema-walk: no shape for a ${s.def.type} schema`);
}

/** A shape in the words the config reference uses. */
export function describeShape(shape: ValueShape): string {
  switch (shape.kind) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'list':
      return shape.of.kind === 'table' ? 'array of tables' : `array of ${describeShape(shape.of)}s`;
    case 'map':
      return shape.of.kind === 'table' ? 'table of tables' : `table of ${describeShape(shape.of)}s`;
    case 'table':
      return 'table';
    case 'one-of':
      return shape.options.map(describeShape).join(' or ');
  }
}
