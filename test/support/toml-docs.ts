// fast-check arbitraries for valid TOML documents written every way the
// format allows: comments and blank lines anywhere, CRLF, odd spacing, all
// four string kinds, every number and date form, dotted and quoted keys,
// inline tables, multi-line arrays, tables and arrays of tables with
// sub-tables. Keys carry a counter so every generated document is valid.
// Each document comes with the paths an edit test can aim at.

import fc from 'fast-check';
import { TomlDateTime } from '../../src/tomldoc/cst.js';

export interface GeneratedDoc {
  text: string;
  eol: '\n' | '\r\n';
  /** Root keys holding a plain array of scalars. */
  arrays: string[][];
  /** Root keys holding an inline table. */
  inlineTables: string[][];
  /** `[table]` paths. */
  tables: string[][];
  /** `[[array]]` paths. */
  arraysOfTables: string[][];
}

const ws = fc.constantFrom('', ' ', '  ', '\t', ' \t ');
const commentText = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    '9',
    ' ',
    '\t',
    '#',
    '"',
    "'",
    '=',
    '[',
    ']',
    '{',
    'é',
    '→',
    '😀',
    '\\',
  ),
  maxLength: 12,
});
const comment = commentText.map((t) => `#${t}`);
const trailing = fc.option(
  fc.tuple(ws, comment).map(([w, c]) => `${w}${c}`),
  { nil: '' },
);

const SCALARS = [
  '0',
  '+17',
  '-42',
  '1_000',
  '0xDEAD_beef',
  '0o755',
  '0b1101',
  '3.14',
  '-0.01',
  '5e+22',
  '1e06',
  '-2E-2',
  '224_617.445_991',
  'inf',
  '+inf',
  '-inf',
  'nan',
  'true',
  'false',
  '1979-05-27T07:32:00Z',
  '1979-05-27T00:32:00.999999-07:00',
  '1979-05-27 07:32:00',
  '1979-05-27',
  '07:32:00',
];

const textChar = fc.constantFrom(
  'a',
  'b',
  'Z',
  ' ',
  '\t',
  'é',
  '→',
  '😀',
  '#',
  '=',
  ',',
  '[',
  '{',
  '.',
);
const basic = fc
  .tuple(
    fc.array(fc.oneof(textChar, fc.constantFrom('"', '\\', '\n', '\u0001', '\u007f')), {
      maxLength: 10,
    }),
    fc.boolean(),
  )
  .map(([chars, unicodeEscapes]) => {
    const body = chars
      .map((c) => {
        if (c === '"') return '\\"';
        if (c === '\\') return '\\\\';
        if (c === '\n') return '\\n';
        if (c === '\t') return unicodeEscapes ? '\\t' : '\t';
        if (c === '\u0001') return '\\u0001';
        if (c === '\u007f') return '\\u007F';
        if (c === '😀' && unicodeEscapes) return '\\U0001F600';
        if (c === 'é' && unicodeEscapes) return '\\u00e9';
        return c;
      })
      .join('');
    return `"${body}"`;
  });
const literal = fc
  .array(fc.oneof(textChar, fc.constantFrom('"', '\\')), { maxLength: 10 })
  .map((c) => `'${c.join('')}'`);
const mlBasic = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.constantFrom('a', 'é', '"', '""', '\n', '\\\n    a', '\\t', '\\\\', ' ', '#'), {
      maxLength: 8,
    }),
  )
  .map(([lead, parts]) => `"""${lead ? '\n' : ''}${parts.join('').replace(/"{3,}/g, '""\\"')}"""`);
const mlLiteral = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.constantFrom('a', 'é', "'", "''", '\n', '\\', '"""', ' '), { maxLength: 8 }),
  )
  .map(([lead, parts]) => `'''${lead ? '\n' : ''}${parts.join('').replace(/'{3,}/g, "''")}'''`);
const stringValue = fc.oneof(basic, literal, mlBasic, mlLiteral);
const scalar = fc.oneof(fc.constantFrom(...SCALARS), stringValue);

/** A value's text; `eol` is the document's line ending for multi-line layouts. */
function valueArb(eol: string, depth: number): fc.Arbitrary<string> {
  if (depth <= 0) return scalar;
  const inner = valueArb(eol, depth - 1);
  const singleArray = fc
    .tuple(fc.array(inner, { maxLength: 4 }), ws, fc.constantFrom(',', ', ', ' , '), fc.boolean())
    .map(([items, pad, sep, comma]) =>
      items.length === 0 ? `[${pad}]` : `[${pad}${items.join(sep)}${comma ? ',' : ''}${pad}]`,
    );
  const multiArray = fc
    .tuple(
      fc.array(fc.tuple(inner, trailing, fc.option(comment, { nil: '' })), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.constantFrom('  ', '    ', '\t'),
      fc.boolean(),
    )
    .map(([items, indent, lastComma]) => {
      const lines = items.map(([v, tail, above], n) => {
        const comma = n < items.length - 1 || lastComma ? ',' : '';
        const pre = above === '' ? '' : `${indent}${above}${eol}`;
        return `${pre}${indent}${v}${comma}${tail}${eol}`;
      });
      return `[${eol}${lines.join('')}]`;
    });
  const inlineTable = fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom('', '.x', '."q r"'), inner), { maxLength: 3 }),
      ws,
      fc.constantFrom(',', ', '),
    )
    .map(([entries, pad, sep]) =>
      entries.length === 0
        ? '{}'
        : `{${pad}${entries.map(([dot, v], n) => `e${n}${dot} = ${v}`).join(sep)}${pad}}`,
    );
  return fc.oneof({ weight: 3, arbitrary: scalar }, singleArray, multiArray, inlineTable);
}

type KeyStyle = 'bare' | 'basic' | 'literal' | 'dotted' | 'spaced-dotted' | 'quoted-dot';
const keyStyle = fc.constantFrom<KeyStyle>(
  'bare',
  'basic',
  'literal',
  'dotted',
  'spaced-dotted',
  'quoted-dot',
);

/** The key text for a unique base name, and its decoded segments. */
function keyText(name: string, style: KeyStyle): { raw: string; path: string[] } {
  switch (style) {
    case 'bare':
      return { raw: name, path: [name] };
    case 'basic':
      return { raw: `"${name} x"`, path: [`${name} x`] };
    case 'literal':
      return { raw: `'${name}é'`, path: [`${name}é`] };
    case 'dotted':
      return { raw: `${name}.inner`, path: [name, 'inner'] };
    case 'spaced-dotted':
      return { raw: `${name} . "in ner"`, path: [name, 'in ner'] };
    case 'quoted-dot':
      return { raw: `"${name}.dot"`, path: [`${name}.dot`] };
  }
}

interface Line {
  kind: 'trivia' | 'keyval';
  text: (name: string) => string;
  style: KeyStyle;
  value: string;
}

function lineArb(eol: string): fc.Arbitrary<Line> {
  const trivia = fc
    .tuple(ws, fc.option(comment, { nil: '' }))
    .map(([w, c]): Line => ({ kind: 'trivia', text: () => `${w}${c}`, style: 'bare', value: '' }));
  const keyval = fc
    .tuple(ws, keyStyle, ws, ws, valueArb(eol, 2), trailing)
    .map(([indent, style, before, after, value, tail]): Line => ({
      kind: 'keyval',
      style,
      value,
      text: (name) => `${indent}${keyText(name, style).raw}${before}=${after}${value}${tail}`,
    }));
  return fc.oneof({ weight: 1, arbitrary: trivia }, { weight: 3, arbitrary: keyval });
}

interface Section {
  kind: 'table' | 'aot';
  headerStyle: 'plain' | 'spaced' | 'quoted' | 'dotted';
  elements: { lines: Line[]; sub: Line[] | null; tail: string }[];
}

function sectionArb(eol: string): fc.Arbitrary<Section> {
  const body = fc.array(lineArb(eol), { maxLength: 4 });
  return fc.record({
    kind: fc.constantFrom<'table' | 'aot'>('table', 'aot'),
    headerStyle: fc.constantFrom<Section['headerStyle']>('plain', 'spaced', 'quoted', 'dotted'),
    elements: fc.array(
      fc.record({ lines: body, sub: fc.option(body, { nil: null }), tail: trailing }),
      { minLength: 1, maxLength: 3 },
    ),
  });
}

function headerText(name: string, style: Section['headerStyle']): { raw: string; path: string[] } {
  switch (style) {
    case 'plain':
      return { raw: name, path: [name] };
    case 'spaced':
      return { raw: ` ${name} `, path: [name] };
    case 'quoted':
      return { raw: `"${name}"`, path: [name] };
    case 'dotted':
      return { raw: `${name} . "sub t"`, path: [name, 'sub t'] };
  }
}

function isPlainArray(value: string): boolean {
  return value.startsWith('[') && !/[[{]/.test(value.slice(1));
}

/** A whole document, assembled with unique names so it is always valid TOML. */
export const tomlDocument: fc.Arbitrary<GeneratedDoc> = fc
  .constantFrom<'\n' | '\r\n'>('\n', '\r\n')
  .chain((eol) =>
    fc.record({
      eol: fc.constant(eol),
      root: fc.array(lineArb(eol), { maxLength: 6 }),
      sections: fc.array(sectionArb(eol), { maxLength: 4 }),
      finalEol: fc.boolean(),
    }),
  )
  .map(({ eol, root, sections, finalEol }) => {
    let counter = 0;
    const doc: GeneratedDoc = {
      text: '',
      eol,
      arrays: [],
      inlineTables: [],
      tables: [],
      arraysOfTables: [],
    };
    const out: string[] = [];
    const emit = (lines: Line[], atRoot: boolean): void => {
      for (const line of lines) {
        const name = `k${counter++}`;
        out.push(line.text(name));
        if (!atRoot || line.kind !== 'keyval') continue;
        const { path } = keyText(name, line.style);
        if (path.length !== 1) continue;
        if (isPlainArray(line.value)) doc.arrays.push(path);
        if (line.value.startsWith('{')) doc.inlineTables.push(path);
      }
    };
    emit(root, true);
    for (const section of sections) {
      const name = `t${counter++}`;
      const header = headerText(name, section.headerStyle);
      const elements = section.kind === 'table' ? section.elements.slice(0, 1) : section.elements;
      if (section.kind === 'table') doc.tables.push(header.path);
      else doc.arraysOfTables.push(header.path);
      for (const element of elements) {
        out.push(
          section.kind === 'table'
            ? `[${header.raw}]${element.tail}`
            : `[[${header.raw}]]${element.tail}`,
        );
        emit(element.lines, false);
        if (element.sub) {
          out.push(`[${header.raw}.s${counter++}]`);
          emit(element.sub, false);
        }
      }
    }
    doc.text = out.join(eol) + (finalEol && out.length > 0 ? eol : '');
    return doc;
  });

/** Date-times compare by presence only: the two readers model them differently. */
export function normalise(value: unknown): unknown {
  if (value instanceof TomlDateTime || value instanceof Date) return 'DATETIME';
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  }
  return value;
}
