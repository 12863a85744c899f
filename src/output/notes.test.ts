import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

describe('nothing but this printer writes a `byre:` line to stderr', () => {
  const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return sources(full);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
    });
  const inline = /stderr\.write\(\s*[`'"]byre: /;

  it('finds the pattern it looks for', () => {
    expect(inline.test('io.stderr.write(\n    `byre: saved ${p}\\n`,')).toBe(true);
    expect(inline.test('say(io.stderr, `saved ${p}`)')).toBe(false);
  });

  it('every other source says through say/sayAll/printNotes', () => {
    const offenders = sources(SRC)
      .filter((f) => !f.endsWith(path.join('output', 'notes.ts')))
      .filter((f) => inline.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f));
    expect(offenders).toEqual([]);
  });
});
