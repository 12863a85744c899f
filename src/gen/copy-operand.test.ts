import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { copyInstruction, stagedContextPath } from './copy-operand.js';

/** A plain operand is staged under its own name; any other under its hash. */
const isPlainOperand = (s: string): boolean => stagedContextPath(s) === s;

/** The JSON element copyInstruction writes for `dest`, beside a source that forces the JSON form. */
function jsonCopyOperand(dest: string): string {
  const line = copyInstruction('a b', dest);
  const lead = 'COPY ["a b", ';
  expect(line.startsWith(lead)).toBe(true);
  expect(line.endsWith(']')).toBe(true);
  return line.slice(lead.length, -1);
}

describe('stagedContextPath: which operands are plain', () => {
  const plain = ['files/seed.txt', '/opt/app/config.json', 'é/日本/🙂', 'a-b_c.d@e+f=g,h:i', '~x'];
  const special = [
    '',
    'a b',
    'a\tb',
    'a\nb',
    'a\u00a0b',
    'a\u2028b',
    '$HOME',
    '${X}',
    "it's",
    'say"hi"',
    'back\\slash',
    'glob*',
    'what?',
    'app/[id]/page.tsx',
    'nul\x00',
    'del\x7f',
  ];
  for (const s of plain)
    it(`${JSON.stringify(s)} is plain`, () => expect(isPlainOperand(s)).toBe(true));
  for (const s of special) {
    it(`${JSON.stringify(s)} is not`, () => expect(isPlainOperand(s)).toBe(false));
  }
});

describe('stagedContextPath', () => {
  it('keeps a plain path', () => {
    expect(stagedContextPath('files/seed/a.txt')).toBe('files/seed/a.txt');
  });

  it('moves any other path under escaped/, named by the sha256 of the whole path', () => {
    const preferred = 'files/app/[id]/page $X.tsx';
    const digest = createHash('sha256').update(preferred).digest('hex');
    expect(stagedContextPath(preferred)).toBe(`escaped/${digest}`);
    expect(isPlainOperand(stagedContextPath(preferred))).toBe(true);
  });

  it('is idempotent, so a path may be mapped where it is staged and again where it is copied', () => {
    for (const p of ['files/a.txt', 'files/a b', 'skills/x/$y']) {
      expect(stagedContextPath(stagedContextPath(p))).toBe(stagedContextPath(p));
    }
  });

  it('gives two paths that differ only in a special character two names', () => {
    expect(stagedContextPath('files/a b')).not.toBe(stagedContextPath('files/a\tb'));
    expect(stagedContextPath('files/a b')).not.toBe(stagedContextPath('skills/x/a b'));
  });
});

describe('copyInstruction: an operand in the JSON form', () => {
  // Each expected value is a JSON string whose decoded text, after the
  // builders' word expansion (`\x` -> `x`, no `$` expansion of `\$`), is the
  // input again.
  const cases: [string, string][] = [
    ['plain', '"plain"'],
    ['a b', '"a b"'],
    ['$HOME', '"\\\\$HOME"'],
    ["it's", `"it\\\\'s"`],
    ['say"hi"', '"say\\\\\\"hi\\\\\\""'],
    ['back\\slash', '"back\\\\\\\\slash"'],
    ['tab\there', '"tab\\u0009here"'],
    ['line\nbreak', '"line\\u000abreak"'],
    ['nbsp\u00a0x', '"nbsp\\u00a0x"'],
    ['\u2028', '"\\u2028"'],
    ['\u{e0001}', '"\\udb40\\udc01"'],
    ['é 日本 🙂', '"é 日本 🙂"'],
    ['[*?]', '"[*?]"'],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want}`, () => expect(jsonCopyOperand(input)).toBe(want));
  }

  it('decodes as JSON to the input with $ quotes and backslashes escaped once', () => {
    for (const [input] of cases) {
      const decoded = JSON.parse(jsonCopyOperand(input)) as string;
      expect(decoded.replace(/\\(.)/gsu, '$1')).toBe(input);
    }
  });
});

describe('copyInstruction', () => {
  it('writes the plain form when both operands are plain', () => {
    expect(copyInstruction('files/seed.txt', '/opt/seed.txt')).toBe(
      'COPY "files/seed.txt" "/opt/seed.txt"',
    );
  });

  it('writes the JSON form when either operand is not', () => {
    expect(copyInstruction('files/seed.txt', '/opt/my seed.txt')).toBe(
      'COPY ["files/seed.txt", "/opt/my seed.txt"]',
    );
    expect(copyInstruction('escaped/ab', '/opt/$HOME')).toBe(
      'COPY ["escaped/ab", "/opt/\\\\$HOME"]',
    );
  });
});
