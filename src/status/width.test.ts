import { describe, expect, it } from 'vitest';
import { layoutWidth } from './width.js';

describe('layoutWidth', () => {
  it.each([
    // [isTty, columns, want]
    [true, 80, 80],
    [true, 120, 120],
    [true, 48, 48],
    [true, 47, 48],
    [true, 20, 48],
    [true, 1, 48],
    [true, 160, 160],
    [true, 161, 160],
    [true, 400, 160],
    [true, 100.7, 100],
    [true, undefined, 80],
    [true, 0, 80],
    [true, -5, 80],
    [true, Number.NaN, 80],
    [true, Number.POSITIVE_INFINITY, 80],
    [false, 120, 80],
    [false, 30, 80],
    [false, undefined, 80],
  ] as const)('isTty=%s columns=%s -> %i', (isTty, columns, want) => {
    expect(layoutWidth({ isTty, columns })).toBe(want);
  });
});
