// The zod schema of a shape (shape.ts), built on first use and kept: only a
// file that does not conform needs one, to have its shape errors found and
// located exactly as zod reports them (adr/0041). Every table is a strict
// object whose keys are all optional. Pure.
//
// zod itself is required here on first use, not imported: a command whose
// config conforms (and which builds no launch record) then never evaluates
// zod's module, ~1.5-2 ms of `byre status` (adr/0041's amendment).

import type { z } from 'zod';
import type { ValueShape } from './shape.js';

let zod: typeof import('zod') | null = null;

/** zod, loaded on first use and set up as ../zod.ts sets up the imported one. */
function zodLib(): typeof import('zod') {
  if (zod === null) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the lazy load is the point
    zod = require('zod') as typeof import('zod');
    zod.config({ jitless: true });
  }
  return zod;
}

const built = new WeakMap<ValueShape, z.ZodType>();

/** A table as TOML makes one: an object whose prototype is Object's (or none). */
function isPlainTable(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function build(shape: ValueShape): z.ZodType {
  const z = zodLib();
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
    case 'table': {
      const table = z.strictObject(
        Object.fromEntries(
          Object.entries(shape.fields).map(([key, field]) => [key, schemaOf(field).optional()]),
        ),
      );
      // zod 4 takes any object that is not an array for a table, a TOML date
      // included (as an empty one): only a plain table is one.
      return z
        .unknown()
        .superRefine((value, ctx) => {
          if (!isPlainTable(value)) {
            ctx.addIssue({ code: 'invalid_type', expected: 'object', input: value });
          }
        })
        .pipe(table);
    }
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
