import { describe, expect, it } from 'vitest';

import { PasteKeys, confirms } from './keys.js';

function run(chunks: string[]): unknown[] {
  const keys = new PasteKeys();
  return chunks.map((c) => keys.feed(c));
}

describe('PasteKeys', () => {
  it('a bracketed paste is text, even split across chunks and holding control keys', () => {
    expect(run(['\x1b[200~/tmp/a b\x03', 'c\x1b[201~'])).toEqual([
      { kind: 'more' },
      { kind: 'capture', capture: { kind: 'paste', text: '/tmp/a b\x03c' } },
    ]);
  });

  it('Ctrl-V alone reads the pasteboard', () => {
    expect(run(['\x16'])).toEqual([{ kind: 'capture', capture: { kind: 'key' } }]);
  });

  it.each(['\x03', '\x04', '\x1b', 'q'])('%j cancels', (key) => {
    expect(run([key])).toEqual([{ kind: 'cancel' }]);
  });

  it('a lone keystroke or an escape sequence is ignored; an unbracketed burst is a paste', () => {
    expect(run(['x', '\x1b[A', 'hello world'])).toEqual([
      { kind: 'more' },
      { kind: 'more' },
      { kind: 'capture', capture: { kind: 'paste', text: 'hello world' } },
    ]);
  });

  it('only y confirms', () => {
    expect(['y', 'Y', 'n', '\r', 'yes'].map(confirms)).toEqual([true, true, false, false, false]);
  });
});
