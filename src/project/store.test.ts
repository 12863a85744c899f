import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { publishNew, writeFileAtomic } from '../host/atomic-write.js';
import { projectIdFor } from './identity.js';
import { readProjectPath, recordProjectPath } from './store.js';
import {
  besideFolder,
  byreHome,
  projectStorePaths,
  storePaths,
  worktreeRecordPath,
} from './store-layout.js';

let home: string;

useTempDir('store-test', (tmp) => {
  home = tmp;
});

describe('byreHome', () => {
  it('defaults to ~/.byre', () => expect(byreHome({}, '/home/u')).toBe('/home/u/.byre'));
  it('honours BYRE_HOME', () => expect(byreHome({ BYRE_HOME: '/x/y' }, '/home/u')).toBe('/x/y'));
  it('ignores an empty BYRE_HOME', () =>
    expect(byreHome({ BYRE_HOME: '' }, '/home/u')).toBe('/home/u/.byre'));
});

describe('store layout', () => {
  it('names the cascade and package dirs', () => {
    expect(storePaths('/h')).toEqual({
      home: '/h',
      defaultConfig: '/h/default.config',
      templates: '/h/templates',
      layers: '/h/layers',
      skills: '/h/skills',
      packages: '/h/packages',
      projects: '/h/projects',
      worktrees: '/h/worktrees',
      launchedTrees: '/h/launched-trees.json',
    });
    expect(worktreeRecordPath('/h', 'wt-app-abc123')).toBe('/h/worktrees/wt-app-abc123');
    expect(() => worktreeRecordPath('/h', '../x')).toThrow('not a byre worktree id');
  });

  it('names the per-project files', () => {
    expect(projectStorePaths('/h', 'app-dev-abc123')).toEqual({
      dir: '/h/projects/app-dev-abc123',
      config: '/h/projects/app-dev-abc123/byre.config',
      path: '/h/projects/app-dev-abc123/path',
      lock: '/h/projects/app-dev-abc123/lock',
      applied: '/h/projects/app-dev-abc123/applied',
      onboarded: '/h/projects/app-dev-abc123/onboarded',
      launches: '/h/projects/app-dev-abc123/launches',
      context: '/h/projects/app-dev-abc123/context',
      wiringContext: '/h/projects/app-dev-abc123/wiring-context',
      boundWiring: '/h/wiring/app-dev-abc123',
      edge: '/h/edge/app-dev-abc123',
      edgeImageContext: '/h/edge/app-dev-abc123.image',
      edgeImageRecord: '/h/edge/app-dev-abc123.image-id',
      receipts: '/h/receipts/app-dev-abc123',
      buildLog: '/h/projects/app-dev-abc123/build.log',
      edgeBuildLog: '/h/projects/app-dev-abc123/edge-build.log',
    });
  });

  it('keeps what a --self-edit box must not write beside the project folder it binds, and names it for teardown', () => {
    const p = projectStorePaths('/h', 'app-dev-abc123');
    const beside = besideFolder(p);
    expect(beside).toEqual([
      p.boundWiring,
      p.edge,
      p.edgeImageContext,
      p.edgeImageRecord,
      p.receipts,
    ]);
    for (const dir of beside) expect(dir.startsWith(`${p.dir}/`)).toBe(false);
  });

  for (const id of ['../evil-abc123', 'x', 'a/b-abc123', '']) {
    it(`refuses id ${JSON.stringify(id)}`, () => {
      expect(() => projectStorePaths('/h', id)).toThrow(
        expect.objectContaining({ rule: 'project.invalid-id' }),
      );
    });
  }
});

describe('recordProjectPath', () => {
  const id = projectIdFor('/work/app');

  it('records the path once, privately, and is idempotent', async () => {
    await recordProjectPath(home, id, '/work/app');
    await recordProjectPath(home, id, '/work/app');
    const p = projectStorePaths(home, id);
    expect(readFileSync(p.path, 'utf8')).toBe('/work/app\n');
    expect(await readProjectPath(home, id)).toBe('/work/app');
    expect(statSync(p.path).mode & 0o777).toBe(0o600);
    expect(statSync(p.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(p.dir)).toEqual(['path']);
  });

  it('fails loudly when a different path maps to a recorded id', async () => {
    await recordProjectPath(home, id, '/work/app');
    const err = await recordProjectPath(home, id, '/elsewhere/app').catch((e: unknown) => e);
    expect(err).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
    expect((err as Error).message).toContain('/work/app');
    expect((err as Error).message).toContain('/elsewhere/app');
    expect(await readProjectPath(home, id)).toBe('/work/app');
  });

  it('lets exactly one of two racing first writers win', async () => {
    const results = await Promise.allSettled([
      recordProjectPath(home, id, '/one'),
      recordProjectPath(home, id, '/two'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const recorded = await readProjectPath(home, id);
    expect(['/one', '/two']).toContain(recorded);
    expect(readdirSync(projectStorePaths(home, id).dir)).toEqual(['path']);
  });

  it('returns null when nothing is recorded', async () => {
    expect(await readProjectPath(home, id)).toBeNull();
  });

  it('refuses a record that is a link (even to a good one) or a FIFO, without waiting', async () => {
    const p = projectStorePaths(home, id);
    mkdirSync(p.dir, { recursive: true });
    writeFileSync(path.join(home, 'good'), '/work/app\n');
    symlinkSync(path.join(home, 'good'), p.path);
    const refused = { rule: 'project.record-unreadable' };
    await expect(readProjectPath(home, id)).rejects.toMatchObject(refused);
    await expect(recordProjectPath(home, id, '/work/app')).rejects.toMatchObject(refused);
    rmSync(p.path);
    execFileSync('mkfifo', [p.path]);
    await expect(readProjectPath(home, id)).rejects.toMatchObject(refused);
  });
});

describe('publishNew', () => {
  it('publishes only where nothing is, privately, and never leaves a temp', async () => {
    const target = path.join(home, 'a', 'new');
    expect(await publishNew(target, 'one')).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('one');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(home, 'a')).mode & 0o777).toBe(0o700);
    expect(await publishNew(target, 'two', 0o644)).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('one');
    expect(readdirSync(path.join(home, 'a'))).toEqual(['new']);
  });

  it('never replaces a link, and of racing writers exactly one publishes', async () => {
    const link = path.join(home, 'link');
    symlinkSync(path.join(home, 'elsewhere'), link);
    expect(await publishNew(link, 'x')).toBe(false);
    expect(readdirSync(home).sort()).toEqual(['link']);
    const target = path.join(home, 'raced');
    const won = await Promise.all([publishNew(target, 'a'), publishNew(target, 'b')]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(['a', 'b']).toContain(readFileSync(target, 'utf8'));
  });
});

describe('writeFileAtomic', () => {
  it('creates parents 0700 and the file 0600 by default', async () => {
    const target = path.join(home, 'a', 'b', 'file');
    await writeFileAtomic(target, 'one');
    expect(readFileSync(target, 'utf8')).toBe('one');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(home, 'a')).mode & 0o777).toBe(0o700);
  });

  it('replaces existing content and leaves no temp files', async () => {
    const target = path.join(home, 'file');
    writeFileSync(target, 'old');
    await writeFileAtomic(target, new TextEncoder().encode('new'), 0o644);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(readdirSync(home)).toEqual(['file']);
  });

  it('leaves the old file and no temp behind when the rename fails', async () => {
    const target = path.join(home, 'dir-in-the-way');
    await writeFileAtomic(path.join(target, 'inner'), 'x');
    await expect(writeFileAtomic(target, 'y')).rejects.toThrow();
    expect(readdirSync(home)).toEqual(['dir-in-the-way']);
  });
});
