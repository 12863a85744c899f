import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { projectIdFor } from './identity.js';
import {
  isLaunchedDir,
  recordIdentity,
  recordedIdentities,
  removeWorktreeRecord,
  retargetWorktreeRecords,
  worktreeRecords,
} from './identity-record.js';
import { projectStorePaths, worktreeRecordPath } from './store-layout.js';

let home: string;
let root: string;
useTempDir('identity-record', (tmp) => {
  root = tmp;
  home = path.join(tmp, 'home');
});

/** What worktreeRecords reads from a record holding `text`; null when it skips it as not one. */
function parseWorktreeRecord(text: string): { dir: string; projectId: string } | null {
  const worktreeId = 'wt-a-123456';
  const file = worktreeRecordPath(home, worktreeId);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  const records = worktreeRecords(home);
  expect(records.length).toBeLessThanOrEqual(1);
  if (records[0] === undefined) return null;
  const { worktreeId: id, ...record } = records[0];
  expect(id).toBe(worktreeId);
  return record;
}

describe('worktree record text', () => {
  it.each([
    ['/w/a\napp-m-abc123\n', { dir: '/w/a', projectId: 'app-m-abc123' }],
    ['/w/a\napp-m-abc123', { dir: '/w/a', projectId: 'app-m-abc123' }],
    ['w/a\napp-m-abc123\n', null],
    ['/w/a\n../x\n', null],
    ['/w/a\napp-m-abc123\nmore\n', null],
    ['', null],
  ])('parseWorktreeRecord(%j)', (text, want) => {
    expect(parseWorktreeRecord(text)).toEqual(want);
  });

  it('round-trips what recordIdentity writes', async () => {
    const worktreeId = 'wt-a-123456';
    await recordIdentity(home, {
      projectId: 'x-y-0a1b2c',
      projectRoot: '/srv/x',
      worktreeDir: '/srv/a b',
      worktreeId,
      isLinkedWorktree: true,
    });
    const text = readFileSync(worktreeRecordPath(home, worktreeId), 'utf8');
    expect(parseWorktreeRecord(text)).toEqual({ dir: '/srv/a b', projectId: 'x-y-0a1b2c' });
  });
});

describe('the records', () => {
  const ctx = (main: string, wt: string) => ({
    projectId: projectIdFor(main),
    projectRoot: main,
    worktreeDir: wt,
    worktreeId: projectIdFor(wt),
    isLinkedWorktree: main !== wt,
  });

  it('a project root and a linked worktree are each recorded, and found by their own path', async () => {
    const main = path.join(root, 'm');
    const wt = path.join(root, 'w');
    await recordIdentity(home, ctx(main, main));
    await recordIdentity(home, ctx(main, wt));
    expect(recordedIdentities(home, main)).toEqual([
      {
        projectId: projectIdFor(main),
        as: 'project',
        file: projectStorePaths(home, projectIdFor(main)).path,
      },
    ]);
    expect(recordedIdentities(home, wt)).toEqual([
      {
        projectId: projectIdFor(main),
        as: 'worktree',
        file: worktreeRecordPath(home, projectIdFor(wt)),
      },
    ]);
    expect(isLaunchedDir(home, wt)).toBe(true);
    expect(isLaunchedDir(home, root)).toBe(false);
    expect(readFileSync(worktreeRecordPath(home, projectIdFor(wt)), 'utf8')).toBe(
      `${wt}\n${projectIdFor(main)}\n`,
    );
  });

  it('a record that is not a file, or not one, reads as unknown', async () => {
    const wt = path.join(root, 'w');
    mkdirSync(worktreeRecordPath(home, projectIdFor(wt)), { recursive: true });
    expect(recordedIdentities(home, wt)).toEqual([
      { projectId: null, as: 'worktree', file: worktreeRecordPath(home, projectIdFor(wt)) },
    ]);
  });

  it('a record naming another directory (an id collision) is not this directory’s', async () => {
    const wt = path.join(root, 'w');
    mkdirSync(path.join(home, 'worktrees'), { recursive: true });
    writeFileSync(worktreeRecordPath(home, projectIdFor(wt)), `/elsewhere\nm-x-abcdef\n`);
    expect(recordedIdentities(home, wt)).toEqual([]);
  });

  it('rehome retargets a project’s worktree records; forget drops them; remove drops one', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    const [w1, w2, w3] = ['w1', 'w2', 'w3'].map((n) => path.join(root, n)) as [
      string,
      string,
      string,
    ];
    await recordIdentity(home, ctx(a, w1));
    await recordIdentity(home, ctx(a, w2));
    await recordIdentity(home, ctx(b, w3));
    await retargetWorktreeRecords(home, projectIdFor(a), projectIdFor(b));
    expect(
      worktreeRecords(home)
        .map((r) => [r.dir, r.projectId])
        .sort(),
    ).toEqual([
      [w1, projectIdFor(b)],
      [w2, projectIdFor(b)],
      [w3, projectIdFor(b)],
    ]);
    removeWorktreeRecord(home, projectIdFor(w3));
    await retargetWorktreeRecords(home, projectIdFor(b), null);
    expect(worktreeRecords(home)).toEqual([]);
  });
});
