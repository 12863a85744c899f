// Module size, enforced: a source module under src/ (TypeScript, or the
// JavaScript baked into boxes; test files aside: a test's length is its
// table of cases) over 500 lines says why in its header, on a line
// `// Over 500 lines: <reason>`, and a module at or under the limit carries
// no such line, so a reason never outlives the size it excused. The header
// is the run of `//` lines the file opens with.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(new URL(import.meta.url).pathname);
const LIMIT = 500;
const MARKER = '// Over 500 lines:';

/** Every module under `dir` that is TypeScript or JavaScript source and not a test, relative to `dir`. */
function sourceModules(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(tsx?|mjs)$/.test(f) && !/\.test\.(tsx?|mjs)$/.test(f))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/** The file's line count, as `wc -l` gives it for a file ending in a newline. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The reason the file's header gives for its size, '' when the marker has none, null without the marker. */
function sizeReason(text: string): string | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith('//')) break;
    if (line.startsWith(MARKER)) return line.slice(MARKER.length).trim();
  }
  return null;
}

/** What is wrong with one module's size and its header's account of it, or null. */
function sizeProblem(file: string, text: string): string | null {
  const lines = lineCount(text);
  const reason = sizeReason(text);
  if (lines > LIMIT && reason === null) {
    return `${file} has ${lines} lines, over ${LIMIT}: split it, or say why in its header (\`${MARKER} <reason>\`)`;
  }
  if (lines > LIMIT && reason === '') return `${file}: \`${MARKER}\` gives no reason`;
  if (lines <= LIMIT && reason !== null) {
    return `${file} has ${lines} lines, not over ${LIMIT}: remove its \`${MARKER}\` header line`;
  }
  return null;
}

describe('module size', () => {
  const lines = (n: number, header: string[] = ['// A module.']): string =>
    [...header, ...Array.from({ length: n - header.length }, (_, i) => `const x${i} = ${i};`)]
      .map((l) => `${l}\n`)
      .join('');

  it.each([
    ['at the limit, no reason', lines(LIMIT), null],
    [
      'over the limit with a reason',
      lines(LIMIT + 1, ['// A module.', `${MARKER} a reason.`]),
      null,
    ],
    ['over the limit, no reason', lines(LIMIT + 1), 'has 501 lines, over 500'],
    ['over the limit, an empty reason', lines(LIMIT + 1, [`${MARKER}  `]), 'gives no reason'],
    [
      'the marker below the header does not count',
      lines(LIMIT + 1, ['// A module.', '', `${MARKER} a reason.`]),
      'has 501 lines, over 500',
    ],
    [
      'a reason on a module at the limit is stale',
      lines(LIMIT, [`${MARKER} a reason.`]),
      'not over 500: remove',
    ],
  ])('%s', (_name, text, expected) => {
    const problem = sizeProblem('src/x.ts', text);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });

  it('counts lines as wc -l does', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
  });

  it('every module under src/ over 500 lines says why in its header, and only those', () => {
    const problems = sourceModules(SRC).flatMap((f) => {
      const problem = sizeProblem(`src/${f}`, readFileSync(path.join(SRC, f), 'utf8'));
      return problem === null ? [] : [problem];
    });
    expect(problems).toEqual([]);
  });
});
