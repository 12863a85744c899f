import { describe, expect, it } from 'vitest';

import { formatElapsed, parseBuildStep, progressText, pullFailureReason } from './build-steps.js';

describe('parseBuildStep', () => {
  it.each([
    ['Step 3/14 : RUN apt-get update', { n: 3, total: 14, text: 'RUN apt-get update' }],
    ['STEP 1/22: FROM debian:bookworm', { n: 1, total: 22, text: 'FROM debian:bookworm' }],
    ['#7 [3/9] RUN make', { n: 3, total: 9, text: 'RUN make' }],
    ['#7 [build 3/9] COPY . /src', { n: 3, total: 9, text: 'COPY . /src' }],
    ['Step 2/2 : USER dev\r', { n: 2, total: 2, text: 'USER dev' }],
  ])('%j', (line, step) => {
    expect(parseBuildStep(line)).toEqual(step);
  });

  it.each([
    ' ---> Running in 1a2b3c',
    'DEPRECATED: The legacy builder is deprecated',
    '#7 [internal] load build definition from Dockerfile',
    'Step 5/3 : RUN nonsense',
    'Step 0/3 : RUN nonsense',
    'stepping 1/2',
  ])('ignores %j', (line) => {
    expect(parseBuildStep(line)).toBeNull();
  });
});

describe('the progress line', () => {
  it.each([
    [0, '0:00'],
    [59_999, '0:59'],
    [65_000, '1:05'],
    [3_723_000, '1:02:03'],
  ])('%i ms reads %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });

  it('cuts a long step and marks the cut', () => {
    const step = (text: string) => ({ n: 1, total: 1, text });
    expect(progressText(step('abcdef'), 0, 4)).toBe('building the image (0:00): step 1/1: abc…');
    expect(progressText(step('abc'), 0, 4)).toBe('building the image (0:00): step 1/1: abc');
  });

  it('says step n of N, the step and the time', () => {
    expect(progressText({ n: 3, total: 14, text: 'RUN apt-get update' }, 65_000)).toBe(
      'building the image (1:05): step 3/14: RUN apt-get update',
    );
    expect(progressText(null, 1000)).toBe('building the image (0:01)');
  });
});

describe('pullFailureReason', () => {
  it('takes the last line that reads like an error', () => {
    const log = [
      'STEP 1/22: FROM localhost:1/x:1',
      'Trying to pull localhost:1/x:1...',
      'Error: creating build container: initializing source docker://localhost:1/x:1: pinging container registry localhost:1: connection refused',
      '',
    ].join('\n');
    expect(pullFailureReason(log)).toMatch(/^Error: creating build container/);
  });

  it('falls back to the last line, or nothing', () => {
    expect(pullFailureReason('a\nb\n')).toBe('b');
    expect(pullFailureReason('')).toBe('');
  });
});
