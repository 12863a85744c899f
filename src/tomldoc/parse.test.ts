import fc from 'fast-check';
import { parse as smolParse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { normalise, tomlDocument } from '../../test/support/toml-docs.js';
import { documentData } from './decode.js';
import { parseDocument, printDocument, TomlDocError } from './parse.js';

describe('parseDocument', () => {
  it('prints every generated document back byte for byte', () => {
    fc.assert(
      fc.property(tomlDocument, ({ text }) => {
        const doc = parseDocument(text);
        expect(printDocument(doc)).toBe(text);
        // The statements tile the text: each starts where the previous ended.
        let at = 0;
        for (const s of doc.statements) {
          expect(s.start).toBe(at);
          at = s.end;
        }
        expect(at).toBe(text.length);
      }),
      { numRuns: 500 },
    );
  });

  it('reads the same data smol-toml does', () => {
    fc.assert(
      fc.property(tomlDocument, ({ text }) => {
        expect(normalise(documentData(parseDocument(text)))).toEqual(normalise(smolParse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['', ''],
    ['no final newline', 'a = 1'],
    ['CRLF', 'a = 1\r\n# c\r\n[t]\r\nb = "x"\r\n'],
    ['mixed line endings', 'a = 1\r\nb = 2\n\r\n'],
    ['odd whitespace', '\t a\t=\t1 \t# c\n  [ t . "u v" ]  # h\n\tk = [ 1 ,2, ]\n'],
    ['only comments', '# one\n#two\n   # three'],
    ['quotes at the end of multi-line strings', "a = \"\"\"x\"\"\"\"\nb = '''y'''''\n"],
    ['line-ending backslash', 'a = """\\\n   x \\  \n  y"""\n'],
    ['nested arrays of tables', '[[a]]\n[[a.b]]\nx = 1\n[[a]]\n[a.c]\ny = 2\n'],
    ['inline tables across lines', 'a = { b = 1,\n  c = [\n 1, # x\n ],\n}\n'],
  ])('round-trips %s', (_, text) => {
    expect(printDocument(parseDocument(text))).toBe(text);
    if (text !== '') {
      expect(normalise(documentData(parseDocument(text)))).toEqual(normalise(smolParse(text)));
    }
  });

  it.each([
    ['a = ', 1, 5],
    ['a = "open\n', 1, 5],
    ['[t\nx = 1', 1, 3],
    ['a = 1 b = 2', 1, 7],
    ['a = [1 2]', 1, 8],
    ['a = "\\q"', 1, 6],
    ['= 1', 1, 1],
    ['a = 1\rb = 2', 1, 6],
    ['a = 12monkeys', 1, 5],
  ])('refuses %j at line %i, column %i', (text, line, column) => {
    let caught: unknown;
    try {
      parseDocument(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TomlDocError);
    expect(caught).toMatchObject({ rule: 'tomldoc.syntax', line, column });
  });

  it('resolves header paths, array-of-tables elements included', () => {
    const doc = parseDocument('a = 1\n[[v]]\n[v.seed]\n[[v]]\n[v.seed]\n[t."x y"]\n');
    expect(doc.blocks.map((b) => b.path)).toEqual([
      [],
      ['v', 0],
      ['v', 0, 'seed'],
      ['v', 1],
      ['v', 1, 'seed'],
      ['t', 'x y'],
    ]);
  });
});
