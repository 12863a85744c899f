import { describe, expect, it } from 'vitest';
import { colorWanted } from './terminal.js';

describe('colorWanted', () => {
  it.each([
    [{}, true],
    [{ TERM: 'xterm-256color' }, true],
    [{ TERM: 'dumb' }, false],
    [{ NO_COLOR: '1' }, false],
    [{ NO_COLOR: '' }, true],
    [{ TERM: 'xterm', NO_COLOR: 'yes' }, false],
  ])('%j → %s', (env, want) => {
    expect(colorWanted(env)).toBe(want);
  });
});
