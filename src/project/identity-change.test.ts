import { describe, expect, it } from 'vitest';

import {
  findIdentityChange,
  identityChangeRefusal,
  type IdentityChange,
} from './identity-change.js';
import type { RecordedIdentity } from './identity-record.js';

const asProject = (projectId: string | null): RecordedIdentity => ({
  projectId,
  as: 'project',
  file: '/h/projects/x/path',
});
const asWorktree = (projectId: string | null): RecordedIdentity => ({
  projectId,
  as: 'worktree',
  file: '/h/worktrees/w-x-111111',
});
const resolved = (projectId: string, linked: boolean) => ({
  dir: '/src/w',
  projectId,
  isLinkedWorktree: linked,
  projectRoot: linked ? '/src/m2' : '/src/w',
});

describe('findIdentityChange', () => {
  it.each([
    ['no record', [], 'w-src-111111', null],
    ['its own project, still', [asProject('w-src-111111')], 'w-src-111111', null],
    ['its own project, now another', [asProject('w-src-111111')], 'm2-src-222222', 'w-src-111111'],
    ['a worktree of m, still', [asWorktree('m-src-333333')], 'm-src-333333', null],
    ['a worktree of m, now its own', [asWorktree('m-src-333333')], 'w-src-111111', 'm-src-333333'],
    ['an unreadable record', [asWorktree(null)], 'm-src-333333', null],
    [
      'two records, one disagreeing',
      [asProject('w-src-111111'), asWorktree('m-src-333333')],
      'm-src-333333',
      'w-src-111111',
    ],
  ] as const)('%s', (_what, records, now, want) => {
    const found = findIdentityChange(resolved(now, false), records);
    expect(found === null ? null : found.projectId).toBe(want);
    if (_what === 'an unreadable record') expect(found).toEqual(asWorktree(null));
  });
});

describe('the refusal and its remedy', () => {
  const change = (
    recorded: RecordedIdentity,
    linked: boolean,
    root: string | null,
    gone: boolean,
  ): IdentityChange => ({
    resolved: resolved(linked ? 'm2-src-222222' : 'w-src-111111', linked),
    recorded,
    recordedRoot: root,
    recordedRootGone: gone,
  });

  it.each([
    [
      'a project root that became a worktree: rehome here',
      change(asProject('w-src-111111'), true, '/src/w', false),
      'run `byre rehome w-src-111111` here to accept it',
    ],
    [
      'a worktree that became its own project: rehome here',
      change(asWorktree('m-src-333333'), false, '/src/m', false),
      'run `byre rehome m-src-333333` here to accept it',
    ],
    [
      'a worktree whose main checkout moved: rehome there',
      change(asWorktree('m-src-333333'), true, '/src/m', true),
      'if the main checkout /src/m moved to /src/m2, run `byre rehome m-src-333333` in /src/m2',
    ],
    [
      'a worktree of a project whose root still exists, now a worktree elsewhere: rehome here',
      change(asWorktree('m-src-333333'), true, '/src/m', false),
      'run `byre rehome m-src-333333` here',
    ],
    [
      'an unreadable record: remove it',
      change(asWorktree(null), false, null, false),
      'remove /h/worktrees/w-x-111111',
    ],
  ])('%s', (_what, c, want) => {
    const refusal = identityChangeRefusal(c);
    expect(refusal.remedy).toContain(want);
    expect(refusal).toMatchObject({ rule: 'project.identity-changed', exitCode: 3 });
    expect(refusal.message).toContain('/src/w was launched as');
  });
});
