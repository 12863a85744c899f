import { describe, expect, it } from 'vitest';

import {
  chosenCandidate,
  initialPickerState,
  pickerKeyFor,
  pickerView,
  reducePicker,
  type PickerCandidate,
} from './picker.js';

type PickerKey = Parameters<typeof reducePicker>[1];

const boxes: PickerCandidate[] = [
  { id: 'aaaa1111bbbb2222', engine: 'docker', projectId: 'alpha', workdirId: 'wd-a' },
  { id: 'cccc3333', engine: 'podman', projectId: 'beta-long', workdirId: 'wd-b', label: 'x' },
  { id: 'eeee', engine: 'docker', projectId: 'g', workdirId: 'wd\u001b[31m', label: 'l\u0007' },
];

function run(keys: PickerKey[], count = boxes.length) {
  return keys.reduce(reducePicker, initialPickerState(count));
}

describe('pickerKeyFor', () => {
  it.each([
    ['', { upArrow: true }, 'up'],
    ['k', {}, 'up'],
    ['', { downArrow: true }, 'down'],
    ['j', {}, 'down'],
    ['', { return: true }, 'choose'],
    ['', { escape: true }, 'cancel'],
    ['q', {}, 'cancel'],
    ['c', { ctrl: true }, 'cancel'],
    ['c', {}, 'none'],
    ['g', {}, 'home'],
    ['G', {}, 'end'],
    ['x', {}, 'none'],
  ] as const)('%j %j -> %s', (input, key, want) => {
    expect(pickerKeyFor(input, key)).toBe(want);
  });
});

describe('reducePicker', () => {
  it.each<[PickerKey[], number, string]>([
    [[], 0, 'open'],
    [['down'], 1, 'open'],
    [['down', 'down', 'down'], 0, 'open'],
    [['up'], 2, 'open'],
    [['end', 'home'], 0, 'open'],
    [['down', 'choose'], 1, 'chosen'],
    [['down', 'cancel'], 1, 'cancelled'],
    [['choose', 'down', 'cancel'], 0, 'chosen'],
    [['none'], 0, 'open'],
  ])('%j -> cursor %i, %s', (keys, cursor, outcome) => {
    const s = run(keys);
    expect(s.cursor).toBe(cursor);
    expect(s.outcome.kind).toBe(outcome);
  });

  it('starts settled (cancelled) with no candidates and ignores keys', () => {
    const s = run(['down', 'choose'], 0);
    expect(s.outcome.kind).toBe('cancelled');
    expect(chosenCandidate([], s.outcome)).toBeNull();
  });

  it('names the chosen candidate only once chosen', () => {
    expect(chosenCandidate(boxes, run(['down']).outcome)).toBeNull();
    expect(chosenCandidate(boxes, run(['up', 'choose']).outcome)?.id).toBe('eeee');
    expect(chosenCandidate(boxes, run(['down', 'cancel']).outcome)).toBeNull();
  });
});

describe('pickerView', () => {
  it('marks the cursor row, aligns columns and escapes box-supplied text', () => {
    const v = pickerView(boxes, run(['down']));
    expect(v.title).toBe('3 boxes are running — pick one:');
    expect(v.rows.map((r) => r.selected)).toEqual([false, true, false]);
    expect(v.rows[0]?.text).toBe('   aaaa1111bbbb  docker  alpha      wd-a');
    expect(v.rows[1]?.text).toBe('>  cccc3333      podman  beta-long  wd-b  (x)');
    expect(v.rows[2]?.text).toBe('   eeee          docker  g          wd\\x1b[31m  (l\\x07)');
    for (const r of v.rows) expect(r.text).not.toMatch(/[\u0000-\u001f]/);
  });
});
