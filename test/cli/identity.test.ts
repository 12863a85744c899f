// Identity and posture are sticky (adr/0047), on the built binary with no
// engine on PATH: a forged worktree structure and a changed identity are
// refused by every verb that resolves the project (exit 3) before anything is
// written to the store; status shows the change; a fresh config never drops
// an earlier identity's restrictions without a yes on a terminal.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BYRE_BIN, runBin, type BinRun } from '../support/cli.js';
import { FORGE_WORKTREE } from '../support/forge.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';

let root: string;
let home: string;

useTempDir('cli-identity', (tmp) => {
  root = tmp;
  home = path.join(tmp, 'store');
});

function byre(cwd: string, args: string[]): BinRun {
  return runBin(args, {
    bin: BYRE_BIN,
    cwd,
    home,
    inherit: false,
    env: { HOME: path.join(root, 'userhome'), PATH: path.join(root, 'no-engines') },
  });
}

const FIREWALLED = 'skills = ["firewall"]\negress = ["!telemetry.example"]\n';

/** A git checkout byre launched a firewalled box in: its path record and its config. */
function launchedProject(name: string): { dir: string; id: string; config: string } {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, '.git'), { recursive: true });
  writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const id = projectIdFor(dir);
  const store = path.join(home, 'projects', id);
  mkdirSync(store, { recursive: true });
  writeFileSync(path.join(store, 'path'), `${dir}\n`);
  writeFileSync(path.join(store, 'byre.config'), FIREWALLED);
  return { dir, id, config: path.join(store, 'byre.config') };
}

function storeIds(): string[] {
  return readdirSync(path.join(home, 'projects')).sort();
}

describe('a forged worktree structure (adr/0047)', () => {
  it('the box’s moved-.git forgery is refused by every verb; the forged id gets nothing', () => {
    const p = launchedProject('p');
    // What the firewalled box ran in /workspace.
    execFileSync('sh', ['-c', FORGE_WORKTREE], { cwd: p.dir });
    for (const verb of [['develop'], ['dockerfile'], ['dockerrun'], ['shell'], ['rehome']]) {
      const r = byre(p.dir, verb);
      expect({ verb, status: r.status }).toEqual({ verb, status: 3 });
      expect(r.stderr).toContain(
        `its repository ${path.join(p.dir, 'sub/.git')} lies inside the worktree itself`,
      );
      expect(r.stderr).toContain(
        `fix: if ${path.join(p.dir, 'sub/.git')} is this directory's own repository`,
      );
    }
    // status shows the page of the project the directory is, refusal included, and exits 3.
    const page = byre(p.dir, ['status']);
    expect(page.status).toBe(3);
    expect(page.stdout).toContain('[worktree.forged]');
    expect(page.stdout).toContain('byre/firewall');
    expect(page.stderr).toContain('lies inside the worktree itself');
    expect(storeIds()).toEqual([p.id]);
    expect(readFileSync(p.config, 'utf8')).toBe(FIREWALLED);
  });
});

describe('a directory byre launched before keeps its identity (adr/0047)', () => {
  /** The launched project `p` made a linked worktree of `other` (outside it), in git's own shape. */
  function turnedIntoWorktree(): { p: ReturnType<typeof launchedProject>; other: string } {
    const p = launchedProject('p');
    const other = path.join(root, 'other');
    mkdirSync(path.join(other, '.git', 'worktrees', 'p'), { recursive: true });
    execFileSync('rm', ['-r', path.join(p.dir, '.git')]);
    writeFileSync(path.join(p.dir, '.git'), `gitdir: ${other}/.git/worktrees/p\n`);
    writeFileSync(path.join(other, '.git/worktrees/p/commondir'), '../..\n');
    writeFileSync(path.join(other, '.git/worktrees/p/gitdir'), `${p.dir}/.git\n`);
    return { p, other };
  }

  it('develop, dockerfile and shell refuse with both ids and byre rehome, writing nothing', () => {
    const { p, other } = turnedIntoWorktree();
    for (const verb of ['develop', 'dockerfile', 'shell']) {
      const r = byre(p.dir, [verb]);
      expect({ verb, status: r.status }).toEqual({ verb, status: 3 });
      expect(r.stderr).toContain(
        `${p.dir} was launched as its own project ${p.id}, but git's files now make it a linked worktree of ${other} (project ${projectIdFor(other)})`,
      );
      expect(r.stderr).toContain(`run \`byre rehome ${p.id}\` here to accept it`);
    }
    expect(storeIds()).toEqual([p.id]);
    expect(existsSync(path.join(home, 'worktrees'))).toBe(false);
  });

  it('status shows the page with the refusal and exits 3; rehome says what changed', () => {
    const { p } = turnedIntoWorktree();
    const page = byre(p.dir, ['status']);
    expect(page.status).toBe(3);
    expect(page.stdout).toContain('[project.identity-changed]');
    expect(page.stderr).toContain(`was launched as its own project ${p.id}`);
    const rehome = byre(p.dir, ['rehome']);
    expect(rehome.status).toBe(0);
    expect(rehome.stderr).toContain(`run \`byre rehome ${p.id}\` here`);
    expect(storeIds()).toEqual([p.id]);
  });
});

describe('a fresh config never drops an earlier identity’s restrictions (adr/0047)', () => {
  it('develop without a terminal refuses before writing anything, naming what would be lost', () => {
    // A linked worktree launched before worktree records existed: its project
    // keeps an engine record for it. The box then made it a repository of its own.
    const main = launchedProject('m');
    const wt = path.join(root, 'w');
    mkdirSync(path.join(wt, '.git'), { recursive: true });
    writeFileSync(path.join(home, 'projects', main.id, `engine.${projectIdFor(wt)}`), 'docker\n');
    const r = byre(wt, ['develop']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(
      `${wt} was launched as project ${main.id}, whose config restricts the box (network deny-by-default (byre/firewall); egress closure !telemetry.example)`,
    );
    expect(r.stderr).toContain(`cp ${main.config} `);
    expect(storeIds()).toEqual([main.id]);
  });
});
