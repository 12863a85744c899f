import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { ByreError, RefusedError } from '../errors.js';
import { recordIdentity } from '../project/identity-record.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';
import { sampleRecord } from '../../test/support/launch-record.js';
import { writeLaunchRecord } from './store.js';
import {
  readLaunchedTrees,
  recordLaunchedTrees,
  renderTreesRecord,
  TREES_RECORD_MAX_ENTRIES,
  type LaunchedTree,
} from './trees-record.js';

const tmp = useTempDir('trees-record');

const ID = 'app-dev-abc123';
const t = (p: string, what = `w ${p}`, project = ID): LaunchedTree => ({ path: p, project, what });
const doc = (trees: unknown): string =>
  JSON.stringify({ format: 'byre launched trees', version: 1, trees });

/** The store the record of a test lives in, made when missing, and the record's file. */
function store(): { home: string; file: string } {
  const home = path.join(tmp.path, 'store');
  mkdirSync(home, { recursive: true });
  return { home, file: storePaths(home).launchedTrees };
}

/** What readLaunchedTrees makes of a record holding `text`; null when it refuses it as not one byre wrote. */
function parseTreesRecord(text: string): LaunchedTree[] | null {
  const { home, file } = store();
  writeFileSync(file, text);
  try {
    return readLaunchedTrees(home);
  } catch (error) {
    expect(error).toBeInstanceOf(ByreError);
    expect(error).toMatchObject({ rule: 'store.trees-record' });
    expect((error as ByreError).message).toContain('is not a record this byre wrote');
    return null;
  }
}

describe('renderTreesRecord / readLaunchedTrees', () => {
  it.each([
    ['no entries', []],
    ['plain', [t('/a'), t('/b', 'the read-write mount ~/b -> /b of a box of /p')]],
    ['a path with a newline, quotes and a bidi control', [t('/x\n"y"\u202e')]],
    ['a non-ASCII path', [t('/home/ü/数据')]],
  ])('round-trips %s', (_, trees) => {
    expect(parseTreesRecord(renderTreesRecord(trees))).toEqual(trees);
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '[]'],
    ['null', 'null'],
    ['another format', JSON.stringify({ format: 'x', version: 1, trees: [] })],
    ['a newer version', JSON.stringify({ format: 'byre launched trees', version: 2, trees: [] })],
    ['trees not a list', doc({})],
    ['an entry not a triple', doc([['/a', ID]])],
    ['a relative path', doc([['a', ID, 'w']])],
    ['a path with a NUL', doc([['/a\0b', ID, 'w']])],
    ['not a project id', doc([['/a', '../x', 'w']])],
    ['a what that is not text', doc([['/a', ID, 3]])],
    [
      'more entries than the cap',
      doc(Array.from({ length: TREES_RECORD_MAX_ENTRIES + 1 }, (_, i) => [`/d${i}`, ID, 'w'])),
    ],
  ])('refuses %s', (_, text) => {
    expect(parseTreesRecord(text)).toBeNull();
  });
});

/**
 * What recordLaunchedTrees leaves in a record holding `existing` after a
 * launch with `additions`; null when it writes nothing.
 */
async function mergeTrees(
  existing: LaunchedTree[],
  additions: LaunchedTree[],
): Promise<LaunchedTree[] | null> {
  const { home, file } = store();
  writeFileSync(file, renderTreesRecord(existing));
  const before = statSync(file);
  await recordLaunchedTrees(home, additions);
  const after = statSync(file);
  if (after.ino === before.ino && after.mtimeMs === before.mtimeMs) return null;
  return readLaunchedTrees(home);
}

describe('recordLaunchedTrees: what a launch adds to the record', () => {
  it.each<[string, LaunchedTree[], LaunchedTree[], LaunchedTree[] | null]>([
    ['nothing to add', [t('/a')], [], null],
    ['every path already recorded (first description kept)', [t('/a')], [t('/a', 'other')], null],
    ['a new path appended', [t('/a')], [t('/b')], [t('/a'), t('/b')]],
    ['a repeated addition once', [], [t('/b'), t('/b', 'again')], [t('/b')]],
    ['into an empty record', [], [t('/a'), t('/b')], [t('/a'), t('/b')]],
  ])('%s', async (_, existing, additions, want) => {
    expect(await mergeTrees(existing, additions)).toEqual(want);
  });
});

describe('recordLaunchedTrees: the record within its caps', () => {
  /** `n` entries whose directories are there (files stand in: what counts is that each is). */
  function live(n: number, what = 'w'): LaunchedTree[] {
    const dir = path.join(tmp.path, 'live');
    mkdirSync(dir, { recursive: true });
    return Array.from({ length: n }, (_, i) => {
      writeFileSync(path.join(dir, String(i)), '');
      return t(path.join(dir, String(i)), what);
    });
  }
  /** `n` entries whose directories are gone. */
  const gone = (n: number, what = 'w'): LaunchedTree[] =>
    Array.from({ length: n }, (_, i) => t(path.join(tmp.path, 'gone', String(i)), what));

  /** The record after a launch adding `additions` to one holding `existing`, or the refusal. */
  async function afterLaunch(
    existing: LaunchedTree[],
    additions: LaunchedTree[],
  ): Promise<LaunchedTree[] | RefusedError> {
    const { home, file } = store();
    writeFileSync(file, renderTreesRecord(existing));
    try {
      await recordLaunchedTrees(home, additions);
    } catch (error) {
      expect(error).toBeInstanceOf(RefusedError);
      expect(error).toMatchObject({ rule: 'store.trees-record-full' });
      expect(readLaunchedTrees(home)).toEqual(existing);
      return error as RefusedError;
    }
    return readLaunchedTrees(home);
  }

  it('within the cap: kept whole, gone ones too', async () => {
    const [a] = gone(1);
    const [b] = live(1);
    expect(await afterLaunch([a!, b!], [t('/new')])).toEqual([a, b, t('/new')]);
  });

  it('over the cap: gone directories dropped, live ones kept', async () => {
    const kept = live(TREES_RECORD_MAX_ENTRIES - 2);
    expect(await afterLaunch([...gone(2), ...kept], [t('/new')])).toEqual([...kept, t('/new')]);
  });

  it('still over after the gone ones: full, counting what is left', async () => {
    const existing = [...gone(1), ...live(TREES_RECORD_MAX_ENTRIES - 1)];
    const refused = await afterLaunch(existing, [t('/new1'), t('/new2')]);
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as RefusedError).message).toContain(
      `(${TREES_RECORD_MAX_ENTRIES + 1} directories, at most ${TREES_RECORD_MAX_ENTRIES})`,
    );
  });

  it('counts bytes as well as entries', async () => {
    // Two entries of 600 kB each are over the record's 1 MiB.
    const [big] = live(1, 'x'.repeat(600_000));
    expect(await afterLaunch(gone(1, 'y'.repeat(600_000)), [big!])).toEqual([big]);
    const refused = await afterLaunch([big!], [t('/new', 'z'.repeat(600_000))]);
    expect((refused as RefusedError).message).toContain('(2 directories,');
  });
});

describe('readLaunchedTrees / recordLaunchedTrees', () => {
  const home = (): string => path.join(tmp.path, 'store');
  const file = (): string => storePaths(home()).launchedTrees;

  it('no record yet: no trees', () => {
    expect(readLaunchedTrees(home())).toEqual([]);
  });

  it('records at the store root, private, and reads back what it recorded', async () => {
    await recordLaunchedTrees(home(), [t('/a'), t('/b')]);
    await recordLaunchedTrees(home(), [t('/b', 'again'), t('/c')]);
    expect(readLaunchedTrees(home())).toEqual([t('/a'), t('/b'), t('/c')]);
    expect(path.dirname(file())).toBe(home());
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it('a launch whose trees are all recorded writes nothing', async () => {
    await recordLaunchedTrees(home(), [t('/a')]);
    const before = statSync(file());
    await recordLaunchedTrees(home(), [t('/a', 'again')]);
    const after = statSync(file());
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('two launches at once both land (the read-merge-write is under the lock)', async () => {
    await Promise.all(
      Array.from({ length: 3 }, (_, i) => recordLaunchedTrees(home(), [t(`/p${i}`)])),
    );
    expect(
      readLaunchedTrees(home())
        .map((x) => x.path)
        .sort(),
    ).toEqual(['/p0', '/p1', '/p2']);
  });

  it.each([
    ['a link', () => symlinkSync(path.join(tmp.path, 'elsewhere'), file()), 'is a symbolic link'],
    ['a directory', () => mkdirSync(file()), 'is a directory'],
    ['not byre’s', () => writeFileSync(file(), '{"trees":[]}'), 'is not a record this byre wrote'],
    [
      'over the byte cap',
      () => writeFileSync(file(), ' '.repeat(1024 * 1024 + 1)),
      'is over 1048576 bytes',
    ],
  ])(
    'a record that is %s is an error, never an empty list (fail closed)',
    async (_, plant, why) => {
      mkdirSync(home(), { recursive: true });
      plant();
      let error: unknown = null;
      try {
        readLaunchedTrees(home());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ByreError);
      expect((error as ByreError).rule).toBe('store.trees-record');
      expect((error as ByreError).message).toContain(`${file()} ${why}`);
      await expect(recordLaunchedTrees(home(), [t('/new')])).rejects.toThrow(why);
    },
  );

  it('store.trees-record-full: a full record of live directories refuses, and is left as it was', async () => {
    const live = path.join(tmp.path, 'live');
    mkdirSync(live);
    // Files stand in for the directories: what counts is that each is there.
    const trees = Array.from({ length: TREES_RECORD_MAX_ENTRIES }, (_, i) => {
      writeFileSync(path.join(live, String(i)), '');
      return t(path.join(live, String(i)), 'w');
    });
    mkdirSync(home(), { recursive: true });
    writeFileSync(file(), renderTreesRecord(trees));
    const error = await recordLaunchedTrees(home(), [t('/new')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefusedError);
    expect((error as RefusedError).rule).toBe('store.trees-record-full');
    expect(readFileSync(file(), 'utf8')).toBe(renderTreesRecord(trees));
  });

  it('the first write starts from what the store knew: worktrees byre launched in, read-write binds of launch records', async () => {
    const id = 'old-app-abc123';
    writeLaunchRecord(projectStorePaths(home(), id).launches, {
      ...sampleRecord(),
      binds: [
        { host: '/old/app', target: '/workspace', mode: 'rw' },
        { host: '/old/ro', target: '/ro', mode: 'ro' },
        { host: '/old/shared', target: '/shared', mode: 'rw' },
      ],
    });
    await recordIdentity(home(), {
      projectId: id,
      projectRoot: '/old/app',
      worktreeDir: '/old/app-x',
      worktreeId: 'wt-app-def456',
      isLinkedWorktree: true,
    });
    await recordLaunchedTrees(home(), [t('/new')]);
    expect(readLaunchedTrees(home()).map((x) => [x.path, x.project])).toEqual([
      ['/new', ID],
      ['/old/app-x', id],
      ['/old/app', id],
      ['/old/shared', id],
    ]);
    expect(readLaunchedTrees(home())[3]?.what).toBe(
      `the read-write bind /old/shared -> /shared of a box of project ${id} (its launch record)`,
    );
  });

  it('the first write happens even when the store knew every directory (develop writes its launch record first)', async () => {
    const id = 'old-app-abc123';
    writeLaunchRecord(projectStorePaths(home(), id).launches, {
      ...sampleRecord(),
      binds: [{ host: '/old/app', target: '/workspace', mode: 'rw' }],
    });
    await recordLaunchedTrees(home(), [t('/old/app', 'this launch')]);
    expect(readLaunchedTrees(home())).toEqual([t('/old/app', 'this launch')]);
  });

  it('over the cap, directories that are gone make room', async () => {
    const trees = Array.from({ length: TREES_RECORD_MAX_ENTRIES }, (_, i) =>
      t(path.join(tmp.path, 'gone', String(i)), 'w'),
    );
    mkdirSync(home(), { recursive: true });
    writeFileSync(file(), renderTreesRecord(trees));
    await recordLaunchedTrees(home(), [t('/new')]);
    expect(readLaunchedTrees(home())).toEqual([t('/new')]);
  });
});
