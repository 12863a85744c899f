import { describe, expect, it } from 'vitest';

import { DEFAULT_GRAB_MAX_BYTES, DEFAULT_GRAB_MAX_ENTRIES, grabLimits } from './grab-limits.js';

const K = 1024;

describe('--max-size', () => {
  it.each([
    ['1', 1],
    ['4096', 4096],
    ['10K', 10 * K],
    ['10k', 10 * K],
    ['10KiB', 10 * K],
    ['10KB', 10 * K],
    ['500M', 500 * K ** 2],
    ['1.5G', 1.5 * K ** 3],
    ['20G', 20 * K ** 3],
    ['20 GiB', 20 * K ** 3],
    ['2T', 2 * K ** 4],
    [' 8g ', 8 * K ** 3],
  ])('%j is %d bytes', (text, bytes) => {
    expect(grabLimits({ maxSize: text }).maxBytes).toBe(bytes);
  });

  it.each(['', '0', '0.4', '-1', 'G', '1.5.2G', '10X', '10Gb!', '1e9', '0x10', '9999999999T'])(
    'refuses %j',
    (text) => {
      expect(() => grabLimits({ maxSize: text })).toThrow(
        expect.objectContaining({ rule: 'grab.max-size' }),
      );
    },
  );
});

describe('--max-entries', () => {
  it.each([
    ['1', 1],
    ['2000000', 2_000_000],
  ])('%j is %d', (text, n) => {
    expect(grabLimits({ maxEntries: text }).maxEntries).toBe(n);
  });

  it.each(['', '0', '-5', '1.5', '1e6', '1M', '99999999999999999999'])('refuses %j', (text) => {
    expect(() => grabLimits({ maxEntries: text })).toThrow(
      expect.objectContaining({ rule: 'grab.max-entries' }),
    );
  });
});

describe('grabLimits', () => {
  it('defaults both caps, and takes each flag on its own', () => {
    expect(grabLimits({})).toEqual({
      maxBytes: DEFAULT_GRAB_MAX_BYTES,
      maxEntries: DEFAULT_GRAB_MAX_ENTRIES,
    });
    expect(grabLimits({ maxSize: '20G' })).toEqual({
      maxBytes: 20 * K ** 3,
      maxEntries: DEFAULT_GRAB_MAX_ENTRIES,
    });
    expect(grabLimits({ maxEntries: '5' }).maxEntries).toBe(5);
  });

  it('a value that is not one is a usage error (exit 2) with its rule', () => {
    expect(() => grabLimits({ maxSize: 'lots' })).toThrow(
      expect.objectContaining({ rule: 'grab.max-size', exitCode: 2 }),
    );
    expect(() => grabLimits({ maxEntries: '0' })).toThrow(
      expect.objectContaining({ rule: 'grab.max-entries', exitCode: 2 }),
    );
  });
});
