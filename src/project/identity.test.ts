import { createHash } from 'node:crypto';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { trimTrailingSlashes } from './canonical.js';
import { isValidProjectId, projectIdFor, slugFor } from './identity.js';

const hash6 = (p: string) => createHash('sha256').update(p).digest('hex').slice(0, 6);

describe('slugFor', () => {
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
    it(`${input} -> ${want}`, () => expect(slugFor(input)).toBe(want));
  }
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

describe('trimTrailingSlashes', () => {
  const cases: [string, string][] = [
    ['/a/b/', '/a/b'],
    ['/a/b///', '/a/b'],
    ['/', '/'],
    ['///', '/'],
    ['/a', '/a'],
  ];
  for (const [input, want] of cases) {
    it(`${input} -> ${want}`, () => expect(trimTrailingSlashes(input)).toBe(want));
  }
});
