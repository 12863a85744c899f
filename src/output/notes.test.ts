import { describe, expect, it } from 'vitest';

import { fakeIo } from '../../test/support/io.js';
import { say, sayAll } from './notes.js';

describe('say: the one printer for what byre says outside an error', () => {
  it.each([
    ['plain', 'built', [], 'byre: built\n'],
    ['note', 'kept', [], 'byre: note: kept\n'],
    ['warning', 'open', [], 'byre: warning: open\n'],
    [
      'plain',
      'referenced by:',
      ['/a/byre.config (skills)', '/b/layer.config (agent)'],
      'byre: referenced by:\n  /a/byre.config (skills)\n  /b/layer.config (agent)\n',
    ],
    [
      'plain',
      'id \x1b[31m is INVALID:',
      ['bad\nline \x07here'],
      'byre: id \\x1b[31m is INVALID:\n  bad\\nline \\x07here\n',
    ],
  ] as const)('%s %j with details %j', (voice, text, details, want) => {
    const io = fakeIo();
    say(io.stderr, text, voice, details);
    expect(io.err).toBe(want);
  });

  it('sayAll: one `byre:` line each', () => {
    const io = fakeIo();
    sayAll(io.stderr, ['a', 'b\x1b']);
    expect(io.err).toBe('byre: a\nbyre: b\\x1b\n');
  });
});
