import { describe, expect, it } from 'vitest';

import { editDistance, nearestName } from './suggest.js';

const KEYS = [
  'engine',
  'template',
  'agent',
  'base',
  'apt',
  'env',
  'env_from_host',
  'mounts',
  'seed_prefs',
];

describe('nearestName', () => {
  it.each([
    ['atp', 'apt'],
    ['ap', 'apt'],
    ['engin', 'engine'],
    ['tempalte', 'template'],
    ['mount', 'mounts'],
    ['seed-prefs', 'seed_prefs'],
    ['SEED_PREFS', 'seed_prefs'],
    ['env_from_hots', 'env_from_host'],
  ])('%s -> %s', (word, expected) => {
    expect(nearestName(word, KEYS)).toBe(expected);
  });

  it.each([['colour'], ['zzz'], ['dockerfile'], ['a'], ['networking']])(
    '%s is too far from every key',
    (word) => {
      expect(nearestName(word, KEYS)).toBeNull();
    },
  );

  it('never suggests the word itself, and ties go to the earlier candidate', () => {
    expect(nearestName('apt', ['apt'])).toBeNull();
    expect(nearestName('abcd', ['abce', 'abcf'])).toBe('abce');
  });
});

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['a', '', 1],
    ['abc', 'abc', 0],
    ['abc', 'acb', 1],
    ['kitten', 'sitting', 3],
  ])('%s / %s = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});
