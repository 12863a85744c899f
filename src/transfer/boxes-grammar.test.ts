import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { BoxSummary } from './discover.js';
import { formatBoxLines, parseBoxLines } from './boxes-grammar.js';

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const id = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/);
const summary: fc.Arbitrary<BoxSummary> = fc.record({
  id: hex,
  engine: fc.constantFrom('docker' as const, 'podman' as const),
  projectId: id,
  workdirId: id,
  foreign: fc.boolean(),
});

describe('--boxes grammar', () => {
  it('round-trips', () => {
    fc.assert(
      fc.property(fc.array(summary, { maxLength: 5 }), (boxes) => {
        expect(parseBoxLines(formatBoxLines(boxes))).toEqual(boxes);
      }),
    );
  });

  it('prints five TAB-separated fields, control characters as _', () => {
    const line = formatBoxLines([
      { id: 'a'.repeat(64), engine: 'docker', projectId: 'p\tq', workdirId: 'w\nx', foreign: true },
    ]);
    expect(line).toBe(`${'a'.repeat(64)}\tdocker\tp_q\tw_x\tforeign\n`);
  });

  it.each([
    ['four fields', `${'a'.repeat(64)}\tdocker\tp\tw\n`],
    ['a bad id', `xyz\tdocker\tp\tw\t\n`],
    ['an unknown engine', `${'a'.repeat(64)}\tlxc\tp\tw\t\n`],
    ['an empty project', `${'a'.repeat(64)}\tdocker\t\tw\t\n`],
  ])('refuses a line with %s', (_what, text) => {
    expect(() => parseBoxLines(text)).toThrow(
      expect.objectContaining({ rule: 'transfer.boxes-malformed' }),
    );
  });

  it('tolerates unknown flags from a newer remote', () => {
    const [b] = parseBoxLines(`${'a'.repeat(64)}\tpodman\tp\tw\tshiny,foreign\n`);
    expect(b?.foreign).toBe(true);
  });
});
