import { describe, expect, it } from 'vitest';
import { carriesTag } from './lib.mjs';

const TAG = 'byretest-bench-124d4a';

describe('carriesTag (what the sweep removes)', () => {
  it.each([
    ['the whole tag', 'byre-edge-x-byretest-bench-124d4a-docker-0e4b47-u0-g0'],
    // Names from a run whose project ids byre cut at 40 characters.
    ['the tag cut to 5 digits', 'byre-edge-injected-after-byretest-bench-124d4-0e4b47-edge:latest'],
    ['the tag cut to 4 digits', 'byre-edge-delivered-after-byretest-bench-124d-a4805a-u0-g0-base'],
    [
      'the tag cut to 3 digits',
      'byre-edge-delivered-before-byretest-bench-124-8f6cec-u0-g0:latest',
    ],
    [
      'a label holding a cut id',
      'c1 byre-x byre.project=edge-injected-before-byretest-bench-124d-18274c',
    ],
  ])('%s', (_what, text) => {
    expect(carriesTag(text, TAG)).toBe(true);
  });

  it.each([
    ['another run', 'byre-edge-x-byretest-bench-9f0e1c-docker-0e4b47-u0-g0'],
    ['another run cut short', 'byre-edge-delivered-after-byretest-bench-9f0e-a4805a-u0-g0'],
    ['no digit of the tag left', 'byre-edge-delivered-before-x-byretest-bench-8f6cec-u0-g0'],
    ['a cut tag not followed by an id', 'byre-edge-after-byretest-bench-124d-a4805-u0'],
    ['a base image', 'debian:bookworm'],
  ])('not %s', (_what, text) => {
    expect(carriesTag(text, TAG)).toBe(false);
  });
});
