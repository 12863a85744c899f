import { describe, expect, it } from 'vitest';

import { RefusedError } from '../errors.js';
import type { BoxSummary } from './discover.js';
import { chooseTarget, hiddenChangeDecision } from './target.js';

type TargetQuery<T extends BoxSummary> = Parameters<typeof chooseTarget<T>>[0];

const box = (id: string, projectId: string, workdirId = projectId): BoxSummary => ({
  id: id.padEnd(64, '0'),
  engine: 'docker',
  projectId,
  workdirId,
  foreign: false,
});

const A = box('aaa111', 'alpha-111111');
const A2 = box('aaa222', 'alpha-111111', 'alpha-feature-222222');
const B = box('bbb333', 'beta-333333');

/** The store records alpha-111111 for another directory. */
const TAKEN = new Map([
  ['alpha-111111', new RefusedError('taken', { rule: 'project.id-collision' })],
]);

type Want = { box: BoxSummary; via: string } | { pick: number } | { rule: string };

const table: { name: string; q: Partial<TargetQuery<BoxSummary>>; want: Want }[] = [
  { name: '--box prefix of a project id', q: { boxFlag: 'beta' }, want: { box: B, via: 'flag' } },
  {
    name: '--box prefix of a container id',
    q: { boxFlag: 'aaa2' },
    want: { box: A2, via: 'flag' },
  },
  {
    name: '--box exact workdir id among shared prefixes',
    q: { boxFlag: 'alpha-111111' },
    want: { box: A, via: 'flag' },
  },
  {
    name: '--box ambiguous prefix',
    q: { boxFlag: 'alpha' },
    want: { rule: 'transfer.box-ambiguous' },
  },
  {
    name: '--box matching nothing',
    q: { boxFlag: 'zzz' },
    want: { rule: 'transfer.box-no-match' },
  },
  {
    name: '--box wins over cwd',
    q: { boxFlag: 'beta', ancestorIds: ['alpha-111111'] },
    want: { box: B, via: 'flag' },
  },
  {
    name: 'cwd: nearest ancestor first',
    q: { ancestorIds: ['alpha-feature-222222', 'alpha-111111'] },
    want: { box: A2, via: 'cwd' },
  },
  {
    name: 'cwd: a further ancestor',
    q: { ancestorIds: ['nothing-000000', 'beta-333333'] },
    want: { box: B, via: 'cwd' },
  },
  {
    name: 'cwd even on a partial pool',
    q: { ancestorIds: ['beta-333333'], partial: true },
    want: { box: B, via: 'cwd' },
  },
  {
    name: 'cwd: an id another directory owns refuses, not its box',
    q: { ancestorIds: ['alpha-111111'], foreignIds: TAKEN },
    want: { rule: 'project.id-collision' },
  },
  {
    name: 'cwd: an owned id refuses before a further ancestor is tried',
    q: { ancestorIds: ['alpha-111111', 'beta-333333'], foreignIds: TAKEN },
    want: { rule: 'project.id-collision' },
  },
  {
    name: 'cwd: an owned id no box carries is passed over',
    q: { boxes: [B], ancestorIds: ['alpha-111111', 'beta-333333'], foreignIds: TAKEN },
    want: { box: B, via: 'cwd' },
  },
  {
    name: '--box is explicit: an owned id does not stop it',
    q: { boxFlag: 'aaa111', ancestorIds: ['alpha-111111'], foreignIds: TAKEN },
    want: { box: A, via: 'flag' },
  },
  { name: 'sole box', q: { boxes: [B] }, want: { box: B, via: 'sole' } },
  {
    name: 'sole box on a partial pool refuses',
    q: { boxes: [B], partial: true },
    want: { rule: 'transfer.partial-pool' },
  },
  {
    name: 'sole box on a partial pool goes to the picker',
    q: { boxes: [B], partial: true, canPick: true },
    want: { pick: 1 },
  },
  { name: 'several: picker', q: { canPick: true }, want: { pick: 3 } },
  { name: 'several, no terminal', q: {}, want: { rule: 'transfer.ambiguous' } },
  { name: 'none', q: { boxes: [] }, want: { rule: 'transfer.no-box' } },
  {
    name: 'none, even with a picker',
    q: { boxes: [], canPick: true },
    want: { rule: 'transfer.no-box' },
  },
];

describe('chooseTarget', () => {
  it.each(table)('$name', ({ q, want }) => {
    const d = chooseTarget({
      boxes: [A, A2, B],
      partial: false,
      ancestorIds: [],
      canPick: false,
      ...q,
    });
    if ('rule' in want) {
      expect(d.kind === 'error' ? d.error.rule : d.kind).toBe(want.rule);
    } else if ('pick' in want) {
      expect(d.kind === 'pick' ? d.candidates.length : d.kind).toBe(want.pick);
    } else {
      expect(d).toEqual({ kind: 'box', box: want.box, via: want.via });
    }
  });

  it.each([
    [undefined, 'start one with `byre develop` in a project, then deliver again'],
    ['deliver', 'start one with `byre develop` in a project, then deliver again'],
    ['grab', 'start one with `byre develop` in a project, then grab again'],
  ] as const)('with no box, the remedy names the verb that asked (%s)', (verb, remedy) => {
    const d = chooseTarget({
      boxes: [],
      partial: false,
      ancestorIds: [],
      canPick: false,
      ...(verb === undefined ? {} : { verb }),
    });
    expect(d.kind === 'error' && d.error.remedy).toBe(remedy);
  });

  it('lists candidates in the ambiguity error', () => {
    const d = chooseTarget({ boxes: [A, B], partial: false, ancestorIds: [], canPick: false });
    expect(d.kind === 'error' && d.error.message).toBe(
      '2 boxes are running — pick one with --box:',
    );
    expect(d.kind === 'error' && d.error.details[0]).toMatch(
      /^aaa111000000 {2}docker {2}alpha-111111$/,
    );
  });
});

describe('hiddenChangeDecision: boxes of another uid are named only where they change the choice', () => {
  const F = { ...box('fff999', 'gamma-999999'), foreign: true };
  const FHere = { ...box('fff888', 'beta-333333'), foreign: true };
  const q = (over: Partial<TargetQuery<BoxSummary>>): TargetQuery<BoxSummary> => ({
    boxes: [B],
    partial: false,
    ancestorIds: [],
    canPick: false,
    ...over,
  });
  it.each([
    ['none hidden', q({}), [], false],
    ['this directory’s own box is chosen', q({ ancestorIds: ['beta-333333'] }), [F], false],
    ['--box names a visible box exactly', q({ boxFlag: 'beta-333333' }), [F], false],
    ['several visible: the ambiguity error would list one more', q({ boxes: [A, B] }), [F], true],
    ['no visible box: the hidden one would be the sole box', q({ boxes: [] }), [F], true],
    ['the sole visible box would no longer be the sole one', q({}), [F], true],
    [
      'a hidden box in this directory makes it ambiguous',
      q({ ancestorIds: ['beta-333333'] }),
      [FHere],
      true,
    ],
    ['--box matching only the hidden one', q({ boxFlag: 'gamma' }), [F], true],
  ] as const)('%s → %s', (_what, query, hidden, want) => {
    expect(hiddenChangeDecision(query, hidden)).toBe(want);
  });
});
