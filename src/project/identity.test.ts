import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { canonicalPathLoose, canonicalPathSync } from '../host/canonical.js';
import { isValidProjectId, projectIdFor } from './identity.js';

const hash6 = (p: string) => createHash('sha256').update(p).digest('hex').slice(0, 6);

/** The readable half of the id: what precedes its `-<hash6>`. */
function slugOf(p: string): string {
  const id = projectIdFor(p);
  expect(id.endsWith(`-${hash6(p)}`)).toBe(true);
  return id.slice(0, -7);
}

describe("the id's slug", () => {
  const cases: [string, string][] = [
    ['/Users/me/dev/byre', 'byre-dev'],
    ['/home/Pat/Code/My App', 'my-app-code'],
    ['/srv/x', 'x-srv'],
    ['/byre', 'byre'],
    ['/', 'project'],
    ['/a/.hidden', 'hidden-a'],
    ['/work/__init__', 'init-work'],
    ['/tmp/日本語', 'tmp'],
    ['/日本/語', 'project'],
    ['/a/b/c.d--e', 'c-d-e-b'],
    [`/p/${'x'.repeat(50)}`, 'x'.repeat(40)],
    [`/parent/${'y'.repeat(39)}`, 'y'.repeat(39)],
    [`/parent/${'z'.repeat(38)}`, `${'z'.repeat(38)}-p`],
  ];
  for (const [input, want] of cases) {
    it(`${input} -> ${want}`, () => expect(slugOf(input)).toBe(want));
  }
});

/**
 * Non-ASCII names, with the slug the reference computes. Its rule is Go's
 * strings.ToLower (unicode.ToLower per code point: the SIMPLE lowercase
 * mapping of UnicodeData.txt field 13, with no SpecialCasing.txt and no
 * context such as final sigma), then runs of anything outside [a-z0-9] to
 * `-`. The expectations were derived from UnicodeData.txt (15.0, Debian's
 * unicode-data) by hand, not from this code: the only non-ASCII code points
 * whose simple lowercase is ASCII are U+0130 (-> U+0069 i) and U+212A KELVIN
 * SIGN (-> U+006B k), so every other non-ASCII code point, upper- or
 * lower-case, ends up outside [a-z0-9]. JavaScript's toLowerCase applies the
 * full mapping, under which U+0130 becomes "i" + U+0307, which is the slug
 * `i-stanbul` the first row guards against.
 */
describe("the id's slug over non-ASCII names (the reference's Go lowercase)", () => {
  const cases: [string, string, string][] = [
    ['Turkish dotted capital I', '/tmp/\u0130stanbul', 'istanbul-tmp'],
    ['Turkish dotted capital I alone', '/x/\u0130', 'i-x'],
    ['Turkish dotless small i stays non-ASCII', '/x/d\u0131y', 'd-y-x'],
    ['Turkish, upper case throughout', '/ev/\u0130ZM\u0130R', 'izmir-ev'],
    ['NFD dotted I: the combining dot is its own code point', '/x/I\u0307stanbul', 'i-stanbul-x'],
    ['Kelvin sign lowercases to k', '/x/\u212aelvin', 'kelvin-x'],
    ['Angstrom sign lowercases to U+00E5, not ASCII', '/x/\u212bngstrom', 'ngstrom-x'],
    ['German sharp s', '/x/Stra\u00dfe', 'stra-e-x'],
    ['German capital sharp s (U+1E9E -> U+00DF)', '/x/\u1e9eig', 'ig-x'],
    ['German, spelled out', '/x/STRASSE', 'strasse-x'],
    ['German umlaut at the start', '/x/\u00c4rger', 'rger-x'],
    ['Greek word ending in capital sigma', '/x/\u039f\u0394\u039f\u03a3-1', '1-x'],
    ['Greek with a final sigma in the middle of ASCII', '/x/a\u03a3b', 'a-b-x'],
    ['titlecase digraph (U+01C5 -> U+01C6)', '/x/\u01c5ep', 'ep-x'],
    ['fullwidth Latin lowercases to fullwidth', '/x/\uff21\uff22c', 'c-x'],
    ['CJK around ASCII', '/x/\u9805\u76eeA\u540d', 'a-x'],
    ['CJK only: the part drops out', '/\u65e5\u672c/x', 'x'],
    ['emoji (an astral code point) is one run', '/x/a\u{1f680}\u{1f680}b', 'a-b-x'],
    ['emoji at the edges', '/x/\u{1f680}rocket\u{1f680}', 'rocket-x'],
    ['NFC e-acute', '/x/caf\u00e9', 'caf-x'],
    ['NFD e + combining acute', '/x/cafe\u0301', 'cafe-x'],
    ['Cyrillic capitals', '/x/\u041f\u0420\u041e\u0415\u041a\u0422', 'x'],
    ['the 40-character cap counts the lowered ASCII', `/p/${'\u0130'.repeat(50)}`, 'i'.repeat(40)],
    ['parent with non-ASCII', '/\u0130zmir/app', 'app-izmir'],
  ];
  for (const [name, input, want] of cases) {
    it(`${name}: ${JSON.stringify(input)} -> ${want}`, () => expect(slugOf(input)).toBe(want));
  }

  it("agrees with JavaScript's lowercase wherever the full and simple mappings agree", () => {
    // Outside U+0130 the two mappings agree on which code points land in
    // [a-z0-9], so any string without it gives the same slug either way.
    const viaJs = (p: string): string =>
      p
        .split('/')
        .filter((c) => c !== '')
        .slice(-2)
        .reverse()
        .map((c) =>
          c
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-+|-+$/g, ''),
        )
        .filter((c) => c !== '')
        .join('-')
        .slice(0, 40)
        .replace(/-+$/, '') || 'project';
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 3 }), (parts) => {
        const p = `/${parts.join('/')}`;
        fc.pre(!p.includes('\u0130'));
        expect(slugOf(p)).toBe(viaJs(p));
      }),
    );
  });
});

describe('projectIdFor', () => {
  it('joins the slug and the first six hex of sha256(path)', () => {
    expect(projectIdFor('/Users/me/dev/byre')).toBe(`byre-dev-${hash6('/Users/me/dev/byre')}`);
  });

  it('differs for paths with the same slug', () => {
    expect(projectIdFor('/a/dev/byre')).not.toBe(projectIdFor('/b/dev/byre'));
  });

  it('always produces a valid id', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 5 }), (parts) => {
        expect(isValidProjectId(projectIdFor(`/${parts.join('/')}`))).toBe(true);
      }),
    );
  });
});

describe('isValidProjectId', () => {
  const cases: [string, boolean][] = [
    ['byre-dev-0877d7', true],
    ['project-abcdef', true],
    ['x-1a2b3c', true],
    ['byre-dev-0877d', false],
    ['byre-dev-0877dg', false],
    ['Byre-dev-0877d7', false],
    ['-byre-0877d7', false],
    ['byre--dev-0877d7', false],
    ['../etc-0877d7', false],
    ['0877d7', false],
    ['', false],
  ];
  for (const [id, want] of cases) {
    it(`${JSON.stringify(id)} -> ${want}`, () => expect(isValidProjectId(id)).toBe(want));
  }
});

describe('the canonical path an id hashes: no trailing slash, `/` kept', () => {
  const tmp = useTempDir('identity');
  it.each([
    ['a/b/', 'a/b'],
    ['a/b///', 'a/b'],
    ['a', 'a'],
  ])('%s -> %s, existing or not', (input, want) => {
    mkdirSync(path.join(tmp.path, 'a/b'), { recursive: true });
    const real = realpathSync(tmp.path);
    expect(canonicalPathSync(`${tmp.path}/${input}`)).toBe(path.join(real, want));
    expect(canonicalPathLoose(`${tmp.path}/${input}`)).toBe(path.join(real, want));
    expect(canonicalPathLoose(`${tmp.path}/new/${input}`)).toBe(path.join(real, 'new', want));
  });

  it.each([['/'], ['///']])('%s -> /', (input) => {
    expect(canonicalPathSync(input)).toBe('/');
    expect(canonicalPathLoose(input)).toBe('/');
  });
});
