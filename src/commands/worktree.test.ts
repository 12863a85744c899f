// `byre worktree`, `list` and `remove` on the fake engine: which session each
// worktree has, across the engines, and what it says when an engine cannot be
// asked; registration and removal run git's effect in the fake's helper over
// the test's repository (mirrored into its virtual host), and real git reads
// the result back.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { mirrorHostTree } from '../../test/support/host-tree.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import { ByreError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import type { Io } from '../io.js';
import { projectIdFor } from '../project/identity.js';
import { worktreeIdFor } from '../project/worktree.js';
import { worktreeCommand, worktreeListCommand, worktreeRemoveCommand } from './worktree.js';

let root = '';
useTempDir('worktree-cmd', (dir) => {
  root = dir;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
}

/** A repository with one commit and a linked worktree on `feat`. */
function repo(): { main: string; feat: string } {
  const main = path.join(root, 'app');
  mkdirSync(main);
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(main, 'a.txt'), 'hi\n');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'init');
  const feat = path.join(root, 'app-feat');
  git(main, 'worktree', 'add', '-q', '-b', 'feat', feat);
  return { main: realpathSync(main), feat: realpathSync(feat) };
}

function ioAt(cwd: string): Io & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    cwd,
    env: { BYRE_HOME: path.join(root, 'home'), HOME: root },
    stdinIsTty: false,
    stdoutIsTty: false,
    uid: 1000,
    gid: 1000,
    pid: 1,
    out: () => out,
    err: () => err,
  };
}

async function list(cwd: string, pool: EnginePool): Promise<{ out: string; err: string }> {
  const io = ioAt(cwd);
  await worktreeListCommand(io, { pool });
  return { out: io.out(), err: io.err() };
}

const member = (engine: FakeEngine) => ({ name: engine.facts.name, state: 'ok' as const, engine });

describe('byre worktree list', () => {
  it('names the running session of each worktree and the engine it runs on', async () => {
    const { main, feat } = repo();
    const project = projectIdFor(main);
    const podman = new FakeEngine({ name: 'podman' });
    const box = podman.addContainer({
      name: 'byre-app-feat',
      labels: { [LABEL.project]: project, [LABEL.workdir]: worktreeIdFor(feat) },
    });
    podman.addContainer({
      name: 'byre-app-old',
      labels: { [LABEL.project]: project, [LABEL.workdir]: project },
      running: false,
    });
    const { out, err } = await list(main, { members: [member(new FakeEngine()), member(podman)] });
    const rows = out.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(new RegExp(`^${main} +main +not running  \\(main\\)$`));
    expect(rows[1]).toMatch(
      new RegExp(`^${feat} +feat +running \\(podman, ${box.id.slice(0, 12)}\\)$`),
    );
    expect(err).toBe('');
  });

  it('says "unknown" when an engine could not be asked, and which one', async () => {
    const { main } = repo();
    const podman = new FakeEngine({ name: 'podman' });
    podman.failNext('psLabels');
    const { out, err } = await list(main, { members: [member(new FakeEngine()), member(podman)] });
    expect(out).toMatch(/main +unknown/);
    expect(out).not.toMatch(/not running/);
    expect(err).toMatch(/could not ask podman/);
  });
});

/** A set-up project (new worktrees go beside it) on a fake engine whose helpers see the temp tree. */
function setUp(main: string): { engine: FakeEngine; deps: Parameters<typeof worktreeCommand>[3] } {
  const store = path.join(root, 'home', 'projects', projectIdFor(main));
  mkdirSync(store, { recursive: true });
  writeFileSync(path.join(store, 'byre.config'), 'worktree_base = "sibling"\n');
  const engine = new FakeEngine();
  mirrorHostTree(engine, root);
  const pool = { members: [member(engine)] };
  return { engine, deps: { detect: async () => FAKE_FACTS, createEngine: () => engine, pool } };
}

/** What the command threw. */
async function failure(run: Promise<void>): Promise<ByreError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ByreError)) throw new Error(`expected a ByreError, got ${String(error)}`);
  return error;
}

describe('byre worktree and remove, git run in the helper', () => {
  it('registers the worktree unchecked-out on a new branch and develops in it; list shows it pending; remove takes it away and keeps the branch', async () => {
    const { main } = repo();
    const { engine, deps } = setUp(main);
    await worktreeCommand(ioAt(main), 'fix', {}, deps);
    const target = path.join(root, 'app-fix');
    // git itself reads the registration back.
    expect(git(main, 'worktree', 'list', '--porcelain')).toContain(
      `worktree ${target}\nHEAD ${git(main, 'rev-parse', 'main').trim()}\nbranch refs/heads/fix\n`,
    );
    const created = engine.callsTo('create')[0]?.[0] as string[];
    expect(created).toContain(`${LABEL.workdir}=${worktreeIdFor(target)}`);
    expect(engine.callsTo('startAttached')).toHaveLength(1);
    const { out } = await list(main, deps?.pool ?? { members: [] });
    expect(out).toMatch(new RegExp(`^${target} +fix +not running  \\(checkout pending\\)$`, 'm'));

    await worktreeRemoveCommand(ioAt(main), 'fix', {}, deps);
    expect(existsSync(target)).toBe(false);
    expect(git(main, 'worktree', 'list', '--porcelain')).not.toContain(target);
    expect(git(main, 'rev-parse', '--verify', '--quiet', 'refs/heads/fix')).not.toBe('');
  });

  it('worktree.git-failed: a branch checked out elsewhere is git’s refusal, and the empty directory goes again', async () => {
    const { main, feat } = repo();
    const { deps } = setUp(main);
    const error = await failure(worktreeCommand(ioAt(main), 'feat', { path: '../other' }, deps));
    expect(error.rule).toBe('worktree.git-failed');
    expect(error.details).toContain(`fatal: 'feat' is already checked out at '${feat}'`);
    expect(existsSync(path.join(root, 'other'))).toBe(false);
  });

  it('remove --force takes a checked-out worktree’s files; a locked one is git’s refusal with its reason', async () => {
    const { main, feat } = repo();
    const { deps } = setUp(main);
    git(main, 'worktree', 'lock', '--reason', 'on a stick', feat);
    const error = await failure(worktreeRemoveCommand(ioAt(main), 'feat', { force: true }, deps));
    expect(error.rule).toBe('worktree.git-failed');
    expect(error.details).toContain(
      'fatal: cannot remove a locked working tree, lock reason: on a stick',
    );
    expect(existsSync(path.join(feat, 'a.txt'))).toBe(true);

    git(main, 'worktree', 'unlock', feat);
    await worktreeRemoveCommand(ioAt(main), 'feat', { force: true }, deps);
    expect(existsSync(feat)).toBe(false);
    expect(git(main, 'worktree', 'list', '--porcelain')).not.toContain(feat);
  });
});
