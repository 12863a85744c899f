import { describe, expect, it } from 'vitest';

import type { EngineScan, LabelledObject, ProjectState } from './facts.js';
import {
  classifyLeftovers,
  describeLeftover,
  leftoverReason,
  removalTargets,
  staleLaunchRecords,
  type Leftover,
} from './leftovers.js';

const OURS = 'a'.repeat(16);
const THEIRS = 'b'.repeat(16);
const GONE = 'gone-x-111111';
const MOVED = 'moved-x-222222';
const LIVE = 'live-x-333333';

const states: Record<string, ProjectState> = {
  [GONE]: { state: 'store_gone' },
  [MOVED]: { state: 'path_gone', path: '/old/moved' },
  [LIVE]: { state: 'present' },
};
const stateOf = (id: string): ProjectState => states[id] ?? { state: 'store_gone' };

function obj(
  kind: LabelledObject['kind'],
  id: string,
  labels: Record<string, string>,
  extra: Partial<LabelledObject> = {},
): LabelledObject {
  return { engine: 'docker', kind, id, labels, ...extra };
}

function ours(project: string): Record<string, string> {
  return { 'byre.project': project, 'byre.store': OURS };
}

/** A helper in a box's network: its image's project label emptied, its box's project named apart. */
function helperOf(project: string): Record<string, string> {
  return { 'byre.project': '', 'byre.helper': project, 'byre.store': OURS };
}

describe('classifyLeftovers', () => {
  it.each([
    [
      'a volume of a project whose store is gone',
      obj('volume', 'byre-gone-x-111111-s', ours(GONE)),
      'store_gone',
    ],
    [
      'an image of a moved project',
      obj('image', 'sha256:1', ours(MOVED), { tags: ['t:latest'] }),
      'path_gone',
    ],
    [
      'a stopped box of a gone project',
      obj('container', 'c1', ours(GONE), { running: false }),
      'store_gone',
    ],
    [
      'a wall or edge helper a killed byre left, of a moved project',
      obj('container', 'h1', helperOf(MOVED), { running: false }),
      'path_gone',
    ],
  ])('%s is a leftover', (_what, o, reason) => {
    const r = classifyLeftovers([{ engine: 'docker', state: 'ok', objects: [o] }], OURS, stateOf);
    expect(r.leftovers).toHaveLength(1);
    expect(r.leftovers[0]).toMatchObject({ id: o.id, kind: o.kind, reason });
  });

  it.each([
    ['a live project’s volume', obj('volume', 'v', ours(LIVE)), { otherStore: 0, unattributed: 0 }],
    [
      'another store’s volume',
      obj('volume', 'v', { 'byre.project': GONE, 'byre.store': THEIRS }),
      { otherStore: 1, unattributed: 0 },
    ],
    [
      'a volume without a store label',
      obj('volume', 'v', { 'byre.project': GONE }),
      { otherStore: 0, unattributed: 1 },
    ],
    [
      'a label that is no project id',
      obj('volume', 'v', { 'byre.project': '../x', 'byre.store': OURS }),
      { otherStore: 0, unattributed: 1 },
    ],
    [
      'an object with no project label',
      obj('image', 'sha256:2', { 'byre.store': OURS }),
      { otherStore: 0, unattributed: 1 },
    ],
    [
      'a live project’s helper',
      obj('container', 'h', helperOf(LIVE)),
      { otherStore: 0, unattributed: 0 },
    ],
    [
      'a helper an older byre made (its project label emptied, no helper label)',
      obj('container', 'h', { 'byre.project': '', 'byre.store': OURS }),
      { otherStore: 0, unattributed: 1 },
    ],
    [
      'a volume claiming to be a helper',
      obj('volume', 'v', { 'byre.project': '', 'byre.helper': GONE, 'byre.store': OURS }),
      { otherStore: 0, unattributed: 1 },
    ],
  ])('%s is not a leftover', (_what, o, counts) => {
    const r = classifyLeftovers([{ engine: 'docker', state: 'ok', objects: [o] }], OURS, stateOf);
    expect(r.leftovers).toEqual([]);
    expect(r).toMatchObject(counts);
  });

  it('keeps a running box listed but marked, and orders containers, volumes, images', () => {
    const scans: EngineScan[] = [
      {
        engine: 'podman',
        state: 'ok',
        objects: [
          obj('image', 'sha256:9', ours(GONE), { engine: 'podman', tags: [] }),
          obj('volume', 'byre-gone-x-111111-b', ours(GONE), { engine: 'podman' }),
        ],
      },
      {
        engine: 'docker',
        state: 'ok',
        objects: [
          obj('volume', 'byre-gone-x-111111-a', ours(GONE)),
          obj('container', 'c2', ours(GONE), { running: true }),
        ],
      },
    ];
    const r = classifyLeftovers(scans, OURS, stateOf);
    expect(r.leftovers.map((l) => `${l.engine} ${l.kind} ${l.id}`)).toEqual([
      'docker container c2',
      'docker volume byre-gone-x-111111-a',
      'podman volume byre-gone-x-111111-b',
      'podman image sha256:9',
    ]);
    expect(r.leftovers[0]?.running).toBe(true);
  });

  it('orders helpers before the boxes whose network they join (podman refuses the box first)', () => {
    const objects = [
      obj('container', 'a-box', ours(GONE), { running: false }),
      obj('container', 'z-helper', helperOf(GONE), { running: false }),
    ];
    const r = classifyLeftovers([{ engine: 'podman', state: 'ok', objects }], OURS, stateOf);
    expect(r.leftovers.map((l) => l.id)).toEqual(['z-helper', 'a-box']);
  });

  it('reports an engine that could not be asked', () => {
    const r = classifyLeftovers(
      [{ engine: 'podman', state: 'unreached', message: 'down' }],
      OURS,
      stateOf,
    );
    expect(r.unreached).toEqual([{ engine: 'podman', message: 'down' }]);
  });

  it('lists a store folder whose recorded directory is gone, never one present or unrecorded', () => {
    const folders = [GONE, MOVED, LIVE].map((project) => ({
      project,
      dir: `/s/projects/${project}`,
    }));
    const r = classifyLeftovers([], OURS, stateOf, folders);
    expect(r.folders).toEqual([
      { project: MOVED, dir: `/s/projects/${MOVED}`, recordedPath: '/old/moved' },
    ]);
  });

  it('asks the store about each project once', () => {
    let asked = 0;
    const objects = [obj('volume', 'a', ours(GONE)), obj('volume', 'b', ours(GONE))];
    classifyLeftovers([{ engine: 'docker', state: 'ok', objects }], OURS, (id) => {
      asked += 1;
      return stateOf(id);
    });
    expect(asked).toBe(1);
  });
});

describe('a leftover in words and removal targets', () => {
  const base: Leftover = {
    engine: 'docker',
    kind: 'image',
    id: `sha256:${'c'.repeat(64)}`,
    tags: ['byre-x-u1-g1:latest', 'other:1'],
    project: MOVED,
    reason: 'path_gone',
    recordedPath: '/old/moved',
    running: false,
  };

  it.each([
    [base, 'docker image byre-x-u1-g1:latest, other:1', ['byre-x-u1-g1:latest', 'other:1']],
    [{ ...base, tags: [] }, 'docker image cccccccccccc (untagged)', [base.id]],
    [
      { ...base, kind: 'volume' as const, id: 'byre-v', tags: [] },
      'docker volume byre-v',
      ['byre-v'],
    ],
    [
      { ...base, kind: 'container' as const, id: 'd'.repeat(64), tags: [] },
      'docker container dddddddddddd',
      ['d'.repeat(64)],
    ],
  ])('%#', (l, words, targets) => {
    expect(describeLeftover(l)).toBe(words);
    expect(removalTargets(l)).toEqual(targets);
  });

  it('says why', () => {
    expect(leftoverReason(base)).toBe(`project ${MOVED}: its directory /old/moved is gone`);
    expect(leftoverReason({ ...base, reason: 'store_gone', recordedPath: null })).toBe(
      `project ${MOVED} has no store here any more`,
    );
  });
});

describe('staleLaunchRecords', () => {
  const h = (c: string): string => c.repeat(64);

  it('lists records no container label points at, per project', () => {
    const scans: EngineScan[] = [
      {
        engine: 'docker',
        state: 'ok',
        objects: [
          obj('container', 'c', { 'byre.launch': h('1') }),
          // Only a box's label keeps a record alive.
          obj('volume', 'v', { 'byre.launch': h('2') }),
        ],
      },
    ];
    expect(staleLaunchRecords(scans, { [LIVE]: [h('1'), h('2')], [GONE]: [h('3')] })).toEqual([
      { project: GONE, hash: h('3') },
      { project: LIVE, hash: h('2') },
    ]);
  });

  it('is unknown when an engine went unasked', () => {
    expect(
      staleLaunchRecords([{ engine: 'podman', state: 'unreached', message: 'x' }], {}),
    ).toBeNull();
  });
});
