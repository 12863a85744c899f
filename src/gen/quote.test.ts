import { describe, expect, it } from 'vitest';

import { dockerfileQuote, goQuote, shQuote } from './quote.js';

describe('goQuote (Go strconv.Quote)', () => {
  // Expected values are what Go's fmt.Sprintf("%q", s) prints.
  const cases: [string, string][] = [
    ['', '""'],
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ["it's", `"it's"`],
    ['\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
    ['\x00\x1b\x7f', '"\\x00\\x1b\\x7f"'],
    ['\u0080\u00a0', '"\\u0080\\u00a0"'],
    ['é ü 日本 🙂', '"é ü 日本 🙂"'],
    ['\u2028', '"\\u2028"'],
    ['\u200b', '"\\u200b"'],
    ['\u{e0001}', '"\\U000e0001"'],
    ['$HOME ${X}', '"$HOME ${X}"'],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want}`, () => expect(goQuote(input)).toBe(want));
  }
});

describe('shQuote', () => {
  const cases: [string, string][] = [
    ['git', "'git'"],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ['$(rm -rf /)', "'$(rm -rf /)'"],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want}`, () => expect(shQuote(input)).toBe(want));
  }
});

describe("dockerfileQuote (the builders' double quotes, read back byte for byte)", () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['a"b', '"a\\"b"'],
    ['a\\b', '"a\\\\b"'],
    ['$HOME ${X}', '"\\$HOME \\${X}"'],
    ['trailing\\', '"trailing\\\\"'],
    ['\x1b\r\t\x07\u009b', '"\x1b\r\t\x07\u009b"'],
    ['  spaced  ', '"  spaced  "'],
    ["it's `x` {y} #z", '"it\'s `x` {y} #z"'],
  ])('%j -> %s', (input, want) => {
    expect(dockerfileQuote(input)).toBe(want);
  });

  it.each(['a\nb', 'a\u0000b'])(
    'refuses %j, which no ENV line can hold (a bug: the loader refuses it first)',
    (input) => {
      expect(() => dockerfileQuote(input)).toThrow(RangeError);
    },
  );
});
