import { describe, expect, it } from 'vitest';

import { parseMarker, presetNote, renderMarker, type PresetFacts } from './preset.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const SRC = '/work/app/byre.preset';

function facts(over: Partial<PresetFacts> = {}): PresetFacts {
  return {
    marker: null,
    storeConfig: { kind: 'missing' },
    source: null,
    inTree: { kind: 'missing' },
    legacyInTree: false,
    ...over,
  };
}

describe('the applied marker', () => {
  it('is <sha256>\\n<source>, and reads back', () => {
    const text = renderMarker({ sha256: A, source: SRC });
    expect(text).toBe(`${A}\n${SRC}`);
    expect(parseMarker(text)).toEqual({ sha256: A, source: SRC });
    expect(parseMarker(`${text}\n`)).toEqual({ sha256: A, source: SRC });
  });

  it.each([[''], ['nothex\n/x'], [`${A}\n`], [`${A}\n/x\nextra`], [A.toUpperCase() + '\n/x']])(
    '%j is not a marker byre wrote',
    (text) => {
      expect(parseMarker(text)).toBeNull();
    },
  );
});

describe('presetNote', () => {
  it.each<[string, Partial<PresetFacts>, RegExp | null]>([
    ['nothing at all', {}, null],
    [
      'a preset in the tree, never applied',
      { inTree: { kind: 'ok', sha256: A } },
      /ships byre\.preset; nothing in it applies until you review it/,
    ],
    [
      'an unreadable preset in the tree',
      { inTree: { kind: 'unreadable' } },
      /not a regular file .*byre ignores it/,
    ],
    [
      'the retired byre.config in the tree',
      { legacyInTree: true },
      /retired preset name; byre ignores it \(rename it to byre\.preset/,
    ],
    [
      'applied, and both still match',
      {
        marker: { sha256: A, source: SRC },
        storeConfig: { kind: 'ok', sha256: A },
        source: { kind: 'ok', sha256: A },
      },
      null,
    ],
    [
      'applied, the store config edited since',
      { marker: { sha256: A, source: SRC }, storeConfig: { kind: 'ok', sha256: B } },
      /was applied \(aaaaaaaaaaaa\); byre\.config has changed since/,
    ],
    [
      'applied, the preset changed since',
      {
        marker: { sha256: A, source: SRC },
        storeConfig: { kind: 'ok', sha256: A },
        source: { kind: 'ok', sha256: B },
      },
      /has changed since it was applied \(aaaaaaaaaaaa → bbbbbbbbbbbb\); review it with byre preset inspect \/work\/app\/byre\.preset/,
    ],
    [
      'applied, the store config gone',
      { marker: { sha256: A, source: SRC }, storeConfig: { kind: 'missing' } },
      /byre\.config is gone/,
    ],
    [
      'applied from https: never fetched for a note',
      {
        marker: { sha256: A, source: 'https://x.example/p' },
        storeConfig: { kind: 'ok', sha256: A },
      },
      null,
    ],
  ])('%s', (_what, over, note) => {
    const got = presetNote(facts(over));
    if (note === null) expect(got).toBeNull();
    else expect(got).toMatch(note);
  });
});
