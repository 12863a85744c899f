import fc from 'fast-check';
import { parse as smolParse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { normalise, tomlDocument, type GeneratedDoc } from '../../test/support/toml-docs.js';
import type { TomlPath, TomlTable, TomlValue } from './cst.js';
import {
  addToArray,
  deleteValue,
  removeEntry,
  removeFromArray,
  setValue,
  upsertEntry,
} from './edit.js';

const newString = fc.string({
  unit: fc.constantFrom('a', ' ', '"', "'", '\\', '\n', '\t', '\u0001', 'é', '😀', '#', '=', '['),
  maxLength: 8,
});
const newScalar = fc.oneof(newString, fc.integer(), fc.boolean());
const newValue: fc.Arbitrary<TomlValue> = fc.oneof(
  newScalar,
  fc.array(newScalar, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'b c', 'd.e', 'é'), newScalar, { maxKeys: 2 }),
);

interface Case {
  /** The edit, and the one that undoes it. */
  apply: (text: string) => string;
  undo: (text: string) => string;
  /** What the edit does to the data. */
  expect: (data: Record<string, unknown>) => void;
  /** Undo gives back the exact bytes (false where emptying a container drops its key). */
  identity: boolean;
}

function at(data: Record<string, unknown>, path: TomlPath): Record<string, unknown> {
  let cursor: unknown = data;
  for (const s of path) cursor = (cursor as Record<string | number, unknown>)[s];
  return cursor as Record<string, unknown>;
}

function textOf(doc: GeneratedDoc, path: TomlPath): string {
  return JSON.stringify(at(smolParse(doc.text), path));
}

function cases(doc: GeneratedDoc, value: TomlValue, pick: number): Case[] {
  const choose = <T>(list: readonly T[]): T | undefined => list[pick % Math.max(1, list.length)];
  const out: Case[] = [
    {
      apply: (t) => setValue(t, ['zz_new'], value),
      undo: (t) => deleteValue(t, ['zz_new']),
      expect: (d) => (d.zz_new = value),
      identity: true,
    },
    {
      apply: (t) => upsertEntry(t, ['zz_list'], 'id', { id: 'x', v: value }),
      undo: (t) => removeEntry(t, ['zz_list'], 'id', 'x'),
      expect: (d) => (d.zz_list = [{ id: 'x', v: value }]),
      identity: true,
    },
  ];
  const table = choose(doc.tables);
  if (table) {
    out.push({
      apply: (t) => setValue(t, [...table, 'zz_new'], value),
      undo: (t) => deleteValue(t, [...table, 'zz_new']),
      expect: (d) => (at(d, table).zz_new = value),
      // A table left empty by a removal goes, so an empty one cannot come back.
      identity: textOf(doc, table) !== '{}',
    });
  }
  const list = choose(doc.arraysOfTables);
  if (list) {
    const entry: TomlTable = { zz_id: 'new', v: value };
    out.push({
      apply: (t) => upsertEntry(t, list, 'zz_id', entry),
      undo: (t) => removeEntry(t, list, 'zz_id', 'new'),
      expect: (d) => (at(d, list) as unknown as unknown[]).push(entry),
      identity: true,
    });
  }
  const array = choose(doc.arrays);
  if (array) {
    out.push({
      apply: (t) => addToArray(t, array, 'zz new'),
      undo: (t) => removeFromArray(t, array, 'zz new'),
      expect: (d) => (at(d, array) as unknown as unknown[]).push('zz new'),
      identity: textOf(doc, array) !== '[]',
    });
  }
  const inline = choose(doc.inlineTables);
  if (inline) {
    out.push({
      apply: (t) => setValue(t, [...inline, 'zz_new'], value),
      undo: (t) => deleteValue(t, [...inline, 'zz_new']),
      expect: (d) => (at(d, inline).zz_new = value),
      identity: textOf(doc, inline) !== '{}',
    });
  }
  return out;
}

describe('edits over generated documents', () => {
  it('change exactly the data they say, and their undo gives back the bytes', () => {
    fc.assert(
      fc.property(tomlDocument, newValue, fc.nat(), fc.nat(), (doc, value, pick, which) => {
        const all = cases(doc, value, pick);
        const edit = all[which % all.length]!;
        const edited = edit.apply(doc.text);
        const expected = smolParse(doc.text) as Record<string, unknown>;
        edit.expect(expected);
        expect(normalise(smolParse(edited))).toEqual(normalise(expected));
        const undone = edit.undo(edited);
        if (edit.identity) expect(undone).toBe(doc.text);
        else expect(() => smolParse(undone)).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  }, 60_000);

  it('setting a value already there changes no byte', () => {
    fc.assert(
      fc.property(tomlDocument, (doc) => {
        const data = smolParse(doc.text) as Record<string, unknown>;
        for (const [key, value] of Object.entries(data)) {
          if (value instanceof Date || typeof value === 'object') continue;
          expect(setValue(doc.text, [key], value as TomlValue)).toBe(doc.text);
        }
      }),
      { numRuns: 300 },
    );
  });
});
