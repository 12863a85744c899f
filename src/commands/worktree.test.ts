// `byre worktree list` on the fake engine: which session each worktree has,
// across the engines, and what it says when an engine cannot be asked.

import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import { LABEL } from '../gen/names.js';
import type { Io } from '../io.js';
import { projectIdFor } from '../project/identity.js';
import { worktreeIdFor } from '../project/worktree.js';
import { worktreeListCommand } from './worktree.js';

let root = '';
useTempDir('worktree-cmd', (dir) => {
  root = dir;
});

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
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

async function list(cwd: string, pool: EnginePool): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    cwd,
    env: { BYRE_HOME: path.join(root, 'home'), HOME: root },
    stdinIsTty: false,
    stdoutIsTty: false,
    uid: 1000,
    gid: 1000,
    pid: 1,
  };
  await worktreeListCommand(io, { pool });
  return { out, err };
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
