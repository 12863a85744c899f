import fc from 'fast-check';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { PACKAGE_SHAPE, SKILL_SHAPE } from '../skills/manifest/schema.js';
import { LAYER_SHAPE } from './schema.js';
import {
  conform,
  describeShape,
  list,
  map,
  oneOf,
  STRING,
  table,
  tableKeysAt,
  type ValueShape,
} from './shape.js';
import { schemaOf } from './shape-schema.js';

/** Keys with their order: the fast path must hand back what zod hands back, key for key. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value instanceof Date) return { date: value.getTime() };
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).map(([k, v]) => [k, ordered(v)]);
  return value;
}

const ODD_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', ''];

/** Anything TOML (or a caller) could put where a shape is expected. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 2 ** 53, 1.5),
  fc.bigInt(),
  fc.boolean(),
  fc.date({ noInvalidDate: true }),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', ...ODD_KEYS), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/**
 * Values of `shape`; when `noisy`, each part now and then replaced by junk or
 * given an extra key.
 */
function shaped(shape: ValueShape, noisy: boolean, depth = 0): fc.Arbitrary<unknown> {
  const valuesOf = (s: ValueShape, d: number): fc.Arbitrary<unknown> => shaped(s, noisy, d);
  const good = ((): fc.Arbitrary<unknown> => {
    switch (shape.kind) {
      case 'string':
        return fc.string({ maxLength: 6 });
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: -70000, max: 70000 });
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'list':
        return fc.array(valuesOf(shape.of, depth + 1), { maxLength: 3 });
      case 'map':
        return fc.dictionary(
          noisy
            ? fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom(...ODD_KEYS))
            : fc.string({ maxLength: 4 }),
          valuesOf(shape.of, depth + 1),
          { maxKeys: 3 },
        );
      case 'table': {
        const fields = Object.fromEntries(
          Object.entries(shape.fields).map(([k, v]) => [k, valuesOf(v, depth + 1)]),
        );
        const base = fc.record(fields, { requiredKeys: [] });
        if (!noisy) return base;
        return fc
          .tuple(
            base,
            fc.option(fc.constantFrom('bogus', 'dockerfile', ...ODD_KEYS), { freq: 8 }),
            junk,
          )
          .map(([value, extra, x]) =>
            extra === null ? value : Object.assign({ ...value }, { [extra]: x }),
          );
      }
      case 'one-of':
        return fc.oneof(...shape.options.map((o) => valuesOf(o, depth)));
    }
  })();
  return !noisy || depth > 3
    ? good
    : fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: junk });
}

/** Clean values of `shape` half the time, noisy ones the other half. */
const valuesOf = (shape: ValueShape): fc.Arbitrary<unknown> =>
  fc.oneof(shaped(shape, false), shaped(shape, true));

const SHAPES: [string, ValueShape][] = [
  ['config layer', LAYER_SHAPE],
  ['skill.toml', SKILL_SHAPE],
  ['template [package]', PACKAGE_SHAPE],
];

describe('conform: the zod-free accept path', () => {
  it.each(SHAPES)(
    '%s: whatever it accepts, zod accepts and returns the same value, key for key',
    (_name, shape) => {
      let accepted = 0;
      fc.assert(
        fc.property(valuesOf(shape), (value) => {
          const fast = conform(value, shape);
          if (fast === null) return;
          accepted++;
          const slow = schemaOf(shape).safeParse(value);
          expect(slow.success).toBe(true);
          expect(ordered(fast)).toEqual(ordered(slow.data));
        }),
        { numRuns: 400 },
      );
      // A test of the accept path that never accepted would prove nothing.
      expect(accepted).toBeGreaterThan(150);
    },
  );

  it.each(SHAPES)(
    '%s: accepts every value zod accepts once it has been through TOML',
    (_name, shape) => {
      fc.assert(
        fc.property(valuesOf(shape), (value) => {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
          let parsed: unknown;
          try {
            parsed = parseToml(stringifyToml(value as Record<string, unknown>));
          } catch {
            return; // not representable in TOML (null, a bigint, a date out of range)
          }
          const slow = schemaOf(shape).safeParse(parsed);
          if (!slow.success || JSON.stringify(parsed).includes('__proto__')) return;
          expect(ordered(conform(parsed, shape))).toEqual(ordered(slow.data));
        }),
        { numRuns: 300 },
      );
    },
  );

  it.each([
    ['a date where a table goes (zod decides)', { defaults: new Date(0) }],
    ['a sparse array', { apt: [, 'x'] }],
    ['a float where an integer goes', { ports: [{ container: 1.5 }] }],
    ['an unsafe integer', { ports: [{ container: 2 ** 53 }] }],
    ['a bigint', { ports: [{ container: 1n }] }],
    ['an unknown key', { bogus: 'x' }],
    ['a __proto__ key in a map', JSON.parse('{"env": {"__proto__": "x"}}') as unknown],
    ['a class instance as a table', { defaults: new (class {})() }],
    ['a non-enumerable key', Object.defineProperty({}, 'engine', { value: 'docker' })],
  ])('defers %s to zod', (_name, value) => {
    expect(conform(value, LAYER_SHAPE)).toBeNull();
  });

  it('rebuilds a table in the shape’s key order and copies lists and maps', () => {
    const value = { env: { B: '1', A: '2' }, apt: ['x'], engine: 'docker' };
    const out = conform(value, LAYER_SHAPE);
    expect(Object.keys(out ?? {})).toEqual(['engine', 'apt', 'env']);
    expect(Object.keys(out?.env ?? {})).toEqual(['B', 'A']);
    expect(out?.apt).not.toBe(value.apt);
  });

  it('takes the first option of a one-of that fits', () => {
    expect(conform(['claude'], LAYER_SHAPE.fields.shared_auth)).toEqual(['claude']);
    expect(conform({ claude: 'x' }, LAYER_SHAPE.fields.shared_auth)).toEqual({ claude: 'x' });
    expect(conform('claude', LAYER_SHAPE.fields.shared_auth)).toBeNull();
  });
});

describe('walking a shape', () => {
  it.each([
    [[], true],
    [['mcp', 0], true],
    [['mcp', 'x'], false],
    [['env', 'ANY'], false],
    [['sources', 'any'], true],
    [['defaults', 'shared_auth', 'claude'], false],
    [['nope'], false],
  ] as const)('tableKeysAt %j is a table: %s', (path, table) => {
    expect(tableKeysAt(LAYER_SHAPE, path) !== null).toBe(table);
  });

  it('finds the value shape under a one-of: the first option the segment walks into', () => {
    const shape = table({
      pick: oneOf(list(table({ item: STRING })), map(table({ entry: STRING }))),
    });
    expect(tableKeysAt(shape, ['pick', 0])).toEqual(['item']);
    expect(tableKeysAt(shape, ['pick', 'claude'])).toEqual(['entry']);
  });

  it.each([
    [LAYER_SHAPE.fields.mounts, 'array of tables'],
    [LAYER_SHAPE.fields.env, 'table of strings'],
    [LAYER_SHAPE.fields.sources, 'table of tables'],
    [LAYER_SHAPE.fields.shared_auth, 'array of strings or table of strings'],
    [LAYER_SHAPE.fields.seed_prefs, 'boolean'],
  ] as const)('describes %j as %s', (shape, words) => {
    expect(describeShape(shape)).toBe(words);
  });
});
