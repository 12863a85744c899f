import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';

import { cellWidth } from './cell-width.js';

const PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

describe('cellWidth: exactly what string-width says', () => {
  it('string-width counts every printable ASCII character, alone and in pairs, as one cell', () => {
    expect(PRINTABLE).toHaveLength(95);
    for (const a of PRINTABLE) {
      expect(stringWidth(a)).toBe(1);
      for (const b of PRINTABLE) expect(stringWidth(a + b)).toBe(2);
    }
    expect(stringWidth(PRINTABLE.join(''))).toBe(95);
  });

  it('the lazily loaded string-width measures as the one the test imports', () => {
    expect(cellWidth('データ🛑')).toBe(stringWidth('データ🛑'));
  });

  it.each([
    '',
    'plain ascii',
    ' ~',
    // Just outside printable ASCII on both sides, and the first non-ASCII.
    '\u001f',
    'a\u001fb',
    '\u007f',
    'a\u007fb',
    '\u0080',
    '\u00a0',
    'soft\u00adhyphen',
    'tab\there',
    '\u001b[31mred\u001b[0m',
    'é',
    'e\u0301',
    'データ',
    '🛑 HOLE',
    '👩‍👩‍👧',
    '#\ufe0f\u20e3',
    'a\u200bb',
    'x\r\ny',
    'ascii then é',
    'é then ascii',
    '…',
  ])('%j', (text) => {
    expect(cellWidth(text)).toBe(stringWidth(text));
  });

  it('any string, ASCII or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.string({ unit: 'grapheme' })),
        (text) => cellWidth(text) === stringWidth(text),
      ),
      { numRuns: 2000 },
    );
  });
});
