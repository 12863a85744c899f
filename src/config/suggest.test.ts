import { describe, expect, it } from 'vitest';

import { nearestName } from './suggest.js';

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

describe('nearestName: the edit distance behind it', () => {
  // A word's tolerance (one edit up to 4 letters, two up to 8, three beyond)
  // and the nearer-wins rule are what make a distance visible from here.
  it.each([
    ['acb', 'abc', 'an adjacent swap is one edit'],
    ['pt', 'apt', 'an insertion at the front is one edit'],
    ['ap', 'apt', 'an insertion at the end is one edit'],
    ['xpt', 'apt', 'a substitution is one edit'],
    ['kitten_env', 'sitting_env', 'kitten / sitting is three edits'],
    ['sitting_env', 'kitten_env', 'and the same the other way'],
  ])('%s -> %s: %s', (word, name) => {
    expect(nearestName(word, [name])).toBe(name);
  });

  it.each([
    ['kitten', 'sitting', 'kitten / sitting is more than two edits'],
    ['sitting', 'kitten', 'and the same the other way'],
    ['bca', 'abc', 'a rotation is two edits, not one swap'],
    ['zzpt', 'apt', 'two leading letters are two edits'],
  ])('%s is not near %s: %s', (word, name) => {
    expect(nearestName(word, [name])).toBeNull();
  });

  it('the nearer candidate wins wherever it stands', () => {
    expect(nearestName('abcdefghij', ['abcdefgxyz', 'abcdefghiz'])).toBe('abcdefghiz');
    expect(nearestName('abcdefghij', ['abcdefxyij', 'abcdefghji'])).toBe('abcdefghji');
  });
});
