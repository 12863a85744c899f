import { describe, expect, it } from 'vitest';

import { quoteToken, shellQuote } from './shell-quote.js';

describe('shellQuote', () => {
  it.each([
    ['plain', 'plain'],
    ['type=bind,source=/a,target=/b', 'type=bind,source=/a,target=/b'],
    ['--userns=keep-id:uid=1000,gid=1000', '--userns=keep-id:uid=1000,gid=1000'],
    ['user@host', 'user@host'],
    ['', "''"],
    ['a b', "'a b'"],
    ["it's", "'it'\\''s'"],
    ['$HOME', "'$HOME'"],
    ['a;rm -rf /', "'a;rm -rf /'"],
    ['~/x', "'~/x'"],
    ['*', "'*'"],
    ['line\nbreak', "'line\nbreak'"],
    ['`x`', "'`x`'"],
    ['"q"', `'"q"'`],
    ["''", `''\\'''\\'''`],
  ])('quotes %j as %s', (token, expected) => {
    expect(quoteToken(token)).toBe(expected);
  });

  it('joins tokens with single spaces', () => {
    expect(shellQuote(['docker', 'run', '-e', 'A=b c', 'img'])).toBe("docker run -e 'A=b c' img");
  });
});
