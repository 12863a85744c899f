// The zod schema of a shape (shape.ts), built on first use and kept: only a
// file that does not conform needs one, to have its shape errors found and
// located exactly as zod reports them (adr/0041). Every table is a strict
// object whose keys are all optional. Pure.

import '../zod.js';
import { z } from 'zod';
import type { ValueShape } from './shape.js';

const built = new WeakMap<ValueShape, z.ZodType>();

function build(shape: ValueShape): z.ZodType {
  switch (shape.kind) {
    case 'string':
      return z.string();
    case 'boolean':
      return z.boolean();
    case 'integer':
      return z.number().int();
    case 'number':
      return z.number();
    case 'list':
      return z.array(schemaOf(shape.of));
    case 'map':
      return z.record(z.string(), schemaOf(shape.of));
    case 'table':
      return z.strictObject(
        Object.fromEntries(
          Object.entries(shape.fields).map(([key, field]) => [key, schemaOf(field).optional()]),
        ),
      );
    case 'one-of':
      return z.union(shape.options.map(schemaOf));
  }
}

/** The zod schema that checks a value against `shape`, built once per shape. */
export function schemaOf(shape: ValueShape): z.ZodType {
  let schema = built.get(shape);
  if (schema === undefined) {
    schema = build(shape);
    built.set(shape, schema);
  }
  return schema;
}
