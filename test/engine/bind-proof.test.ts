// The bind proof on real engines (adr/0045), issue 27's bind race made
// deterministic: a linked worktree's box binds the main checkout's `.git` at
// its own path, and the main box can swap that `.git` for a link to `..`
// (the directory holding byre's store) after byre checked it. Here the swap
// happens at the one moment it matters, through an engine client first on
// PATH that swaps, then runs the real client: before the box's `start`,
// before the worktree-remove helper's `run`, before a seed helper's `run`.
// Test-only by construction: nothing in byre knows the hook exists. The real
// race, with the swap made from inside a running box, is in worktree.test.ts.
// All three flavours for the box (the attack was first seen on rootless
// podman); the helpers prove with the same script, so they run as root only.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { flavorsUnderTest } from './engines.js';
import {
  engineCli,
  makeOwnedDir,
  runByre,
  testScope,
  waitFor,
  type ByreRun,
  type TestProject,
} from './harness.js';

// Docker as the test user is the same daemon as docker as root: nothing more to prove.
const flavors = flavorsUnderTest().filter((f) => f.engine === 'podman' || f.user === null);
const scope = testScope('all');

/** What a box that can write above a bind does: the object set aside, a link to `to` in its place. */
function swapShell(target: string, to: string): string {
  return `mv '${target}' '${target}.real' && ln -s '${to}' '${target}'`;
}

function restore(target: string): void {
  if (!existsSync(`${target}.real`)) return;
  rmSync(target, { force: true });
  renameSync(`${target}.real`, target);
}

interface World {
  project: TestProject;
  /** The main checkout's git dir, bound rw into the worktree's box. */
  git: string;
  worktree: string;
  /** The seed directory of a state volume, inside the main checkout. */
  seed: string;
}

/**
 * An engine client first on PATH that, the first time its arguments contain
 * `when`, runs `swap` and then the real client. It lives beside the project,
 * never in it.
 */
function swapOn(w: World, name: string, when: string, swap: string): Record<string, string> {
  const { engine } = w.project.flavor;
  const real = execFileSync('sh', ['-c', `command -v ${engine}`], { encoding: 'utf8' }).trim();
  const bin = makeOwnedDir(w.project, path.join(w.project.root, `shim-${name}`));
  const done = path.join(bin, 'swapped');
  writeFileSync(
    path.join(bin, engine),
    `#!/bin/sh\ncase " $* " in *'${when}'*) if [ ! -e '${done}' ]; then : > '${done}'; ${swap}; fi ;; esac\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  makeOwnedDir(w.project, bin);
  return { PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };
}

/** Nothing the swapped-in link reached was listed or written by a box. */
function untouched(w: World, r: ByreRun): void {
  expect(r.stdout).not.toContain('SENTINEL');
  expect(existsSync(path.join(w.project.root, 'PWNED'))).toBe(false);
  expect(readdirSync(w.project.root)).toContain('SENTINEL');
}

/** The project's boxes and helpers are gone (an engine removes a `--rm` one just after it exits). */
async function noBoxesLeft(w: World): Promise<void> {
  await waitFor(
    'no box of the project left',
    () =>
      engineCli(w.project, [
        'ps',
        '-aq',
        '--filter',
        `label=byre.project=${w.project.id}`,
      ]).trim() === ''
        ? true
        : null,
    30_000,
  );
}

describe.skipIf(flavors.length === 0).each(flavors)('the bind proof on $label', (flavor) => {
  let w: World;

  beforeAll(() => {
    const project = scope.project(flavor, 'repo');
    const git = (...args: string[]) =>
      // The test user owns the tree; root's git would refuse it as "dubious ownership".
      execFileSync(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'safe.directory=*', ...args],
        {
          cwd: project.dir,
          stdio: 'ignore',
        },
      );
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'init');
    // Registered by the test's own git, so no image needs git; the box starts on an empty tree.
    const worktree = path.join(project.root, 'repo-feat');
    git('worktree', 'add', '-q', '--no-checkout', worktree);
    const seed = path.join(project.dir, 'seed');
    mkdirSync(seed);
    writeFileSync(path.join(seed, 'settings'), 'from the project\n');
    writeFileSync(path.join(project.root, 'SENTINEL'), 'outside every box\n');
    project.writeConfig(
      [
        'template = "none"',
        'agent = "none"',
        '[[volumes]]',
        'name = "cfg"',
        'role = "state"',
        'target = "/home/dev/cfg"',
        '[volumes.seed]',
        `host = "${seed}"`,
        '',
      ].join('\n'),
    );
    makeOwnedDir(project, project.root);
    w = { project, git: path.join(project.dir, '.git'), worktree, seed };
  });

  it('a worktree box whose git dir was swapped for a link to its parent before start: refused, nothing ran, nothing left', async () => {
    const { project, git, worktree } = w;
    // The first launch seeds the volume and proves every bind: a box that runs.
    const first = runByre(project, ['develop'], {
      cwd: worktree,
      input: `ls -a '${git}' && echo "SEEDED=$(cat /home/dev/cfg/settings)"; exit 0\n`,
    });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('SEEDED=from the project');
    expect(first.stdout).toContain('HEAD');

    const env = swapOn(w, 'start', ' start ', swapShell(git, '..'));
    let r: ByreRun;
    try {
      r = runByre(project, ['develop'], {
        cwd: worktree,
        env,
        input: `ls -a '${git}'; touch '${git}/PWNED'; exit 0\n`,
      });
    } finally {
      restore(git);
    }
    expect(r.stderr).toContain(`byre:   ${git}: byre checked device and inode`);
    expect(r.stderr).toContain('byre stopped this box before anything ran in it');
    expect(r.stderr).toContain(`${git} now leads to ${project.root}, another object`);
    expect(r.status).toBe(3);
    untouched(w, r);
    await noBoxesLeft(w);
  });

  it.skipIf(flavor.user !== null)(
    'the worktree-remove helper whose git dir was swapped before its run: refused before git, the worktree kept',
    async () => {
      const { project, git, worktree } = w;
      const env = swapOn(w, 'remove', ' byre-wtadd-', swapShell(git, '..'));
      let r: ByreRun;
      try {
        r = runByre(project, ['worktree', 'remove', 'repo-feat'], { env });
      } finally {
        restore(git);
      }
      expect(r.stderr).toContain('byre stopped git before it could remove');
      expect(r.stderr).toContain(`${git} now leads to ${project.root}, another object`);
      expect(r.status).toBe(3);
      expect(existsSync(path.join(git, 'worktrees', 'repo-feat'))).toBe(true);
      expect(existsSync(worktree)).toBe(true);
      await noBoxesLeft(w);
    },
  );

  it.skipIf(flavor.user !== null)(
    'a seed swapped for a link before its helper ran: refused, the volume removed for a clean retry',
    async () => {
      const { project, seed, worktree } = w;
      ok(runByre(project, ['reset', '-y']));
      const env = swapOn(w, 'seed', 'target=/src,readonly', swapShell(seed, '..'));
      let r: ByreRun;
      try {
        r = runByre(project, ['develop'], { cwd: worktree, env, input: 'exit 0\n' });
      } finally {
        restore(seed);
      }
      expect(r.stderr).toContain('seeding volume cfg: a bind was not the object byre checked');
      expect(r.stderr).toContain(`${seed} now leads to ${project.root}, another object`);
      expect(r.status).toBe(3);
      expect(engineCli(project, ['volume', 'ls', '-q']).split('\n')).not.toContain(
        `byre-${project.id}-cfg`,
      );
      await noBoxesLeft(w);
    },
  );
});

function ok(r: ByreRun): ByreRun {
  if (r.status !== 0) throw new Error(`byre exited ${r.status}\n${r.stderr}`);
  return r;
}
