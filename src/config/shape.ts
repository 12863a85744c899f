// The vocabulary of a config-family file as plain data: which keys a table
// may carry and what shape each value has. The config docs, the key registry
// and the unknown-key suggestion read these shapes, and the zod schemas that
// locate a shape error are built from them (schema-walk.ts), so nothing
// restates the vocabulary by hand. Every table is strict (an unknown key is an
// error) and every key in it optional. Pure, and free of zod: a file that
// conforms is accepted here without building a schema (adr/0041).

/** The shape of a value, as the registry, the editor and the checks see it. */
export type ValueShape =
  | { readonly kind: 'string' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'number' }
  | { readonly kind: 'list'; readonly of: ValueShape }
  /** A table whose keys are free (a map): every value has one shape. */
  | { readonly kind: 'map'; readonly of: ValueShape }
  /** A table with fixed keys, each optional; any other key is refused. */
  | { readonly kind: 'table'; readonly fields: Readonly<Record<string, ValueShape>> }
  /** The first option that fits; options are of different kinds. */
  | { readonly kind: 'one-of'; readonly options: readonly ValueShape[] };

export const STRING = { kind: 'string' } as const;
export const BOOLEAN = { kind: 'boolean' } as const;
export const INTEGER = { kind: 'integer' } as const;

export function list<S extends ValueShape>(of: S): { readonly kind: 'list'; readonly of: S } {
  return { kind: 'list', of };
}

export function map<S extends ValueShape>(of: S): { readonly kind: 'map'; readonly of: S } {
  return { kind: 'map', of };
}

export function table<F extends Readonly<Record<string, ValueShape>>>(
  fields: F,
): { readonly kind: 'table'; readonly fields: F } {
  return { kind: 'table', fields };
}

export function oneOf<O extends readonly ValueShape[]>(
  ...options: O
): { readonly kind: 'one-of'; readonly options: O } {
  return { kind: 'one-of', options };
}

export const STRING_LIST = list(STRING);
export const STRING_MAP = map(STRING);

/**
 * The TypeScript type of a value of shape S (what zod's infer gave for its
 * schema); unknown for the open ValueShape itself.
 */
export type ShapeValue<S> = ValueShape extends S
  ? unknown
  : S extends { kind: 'string' }
    ? string
    : S extends { kind: 'boolean' }
      ? boolean
      : S extends { kind: 'integer' | 'number' }
        ? number
        : S extends { kind: 'list'; of: infer O }
          ? ShapeValue<O>[]
          : S extends { kind: 'map'; of: infer O }
            ? Record<string, ShapeValue<O>>
            : S extends { kind: 'table'; fields: infer F }
              ? { -readonly [K in keyof F]?: ShapeValue<F[K]> | undefined }
              : S extends { kind: 'one-of'; options: readonly (infer O)[] }
                ? ShapeValue<O>
                : never;

/** An own, enumerable, string-keyed object of the plain kind TOML tables parse to. */
function plainTable(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Reflect.ownKeys(value);
  return (
    keys.length === Object.keys(value).length &&
    !keys.includes('__proto__') &&
    keys.every((k) => typeof k === 'string')
  );
}

const NO = Symbol('does not conform');
type Out = unknown;

function fit(value: unknown, shape: ValueShape): Out | typeof NO {
  switch (shape.kind) {
    case 'string':
      return typeof value === 'string' ? value : NO;
    case 'boolean':
      return typeof value === 'boolean' ? value : NO;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : NO;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : NO;
    case 'list': {
      if (!Array.isArray(value)) return NO;
      const out: Out[] = [];
      for (let i = 0; i < value.length; i++) {
        if (!Object.hasOwn(value, i)) return NO;
        const item = fit(value[i], shape.of);
        if (item === NO) return NO;
        out.push(item);
      }
      return out;
    }
    case 'map': {
      if (!plainTable(value)) return NO;
      const out: Record<string, Out> = {};
      for (const key of Object.keys(value)) {
        const item = fit(value[key], shape.of);
        if (item === NO) return NO;
        out[key] = item;
      }
      return out;
    }
    case 'table': {
      if (!plainTable(value)) return NO;
      for (const key of Object.keys(value)) if (!Object.hasOwn(shape.fields, key)) return NO;
      // In the shape's key order, as zod's object parse builds its output.
      const out: Record<string, Out> = {};
      for (const key of Object.keys(shape.fields)) {
        if (!Object.hasOwn(value, key)) continue;
        const item = fit(value[key], shape.fields[key] as ValueShape);
        if (item === NO) return NO;
        out[key] = item;
      }
      return out;
    }
    case 'one-of':
      for (const option of shape.options) {
        const item = fit(value, option);
        if (item !== NO) return item;
      }
      return NO;
  }
}

/**
 * The value rebuilt in the shape's own key order when it conforms exactly,
 * or null when it does not, or when it is anything unusual (a date, a sparse
 * array, an odd key): then the zod schema built from the same shape decides,
 * and locates the error. A conforming value is the one that schema returns.
 */
export function conform<S extends ValueShape>(value: unknown, shape: S): ShapeValue<S> | null;
export function conform(value: unknown, shape: ValueShape): unknown {
  const out = fit(value, shape);
  return out === NO ? null : out;
}

/** The shape at `path` (array indexes and map keys walk into elements), or null. */
function shapeAt(shape: ValueShape, path: readonly PropertyKey[]): ValueShape | null {
  let s: ValueShape | null = shape;
  for (const segment of path) {
    if (s === null) return null;
    s = step(s, segment);
  }
  return s;
}

function step(shape: ValueShape, segment: PropertyKey): ValueShape | null {
  switch (shape.kind) {
    case 'table':
      return typeof segment === 'string' && Object.hasOwn(shape.fields, segment)
        ? (shape.fields[segment] ?? null)
        : null;
    case 'list':
      return typeof segment === 'number' ? shape.of : null;
    case 'map':
      return shape.of;
    case 'one-of':
      for (const option of shape.options) {
        const next = step(option, segment);
        if (next !== null) return next;
      }
      return null;
    default:
      return null;
  }
}

/** The keys a table at `path` may carry; null when the path names no fixed-key table. */
export function tableKeysAt(shape: ValueShape, path: readonly PropertyKey[]): string[] | null {
  const s = shapeAt(shape, path);
  return s !== null && s.kind === 'table' ? Object.keys(s.fields) : null;
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
