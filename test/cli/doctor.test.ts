// byre doctor through the built binary without an engine: with nothing on
// PATH it says so and exits 1; a docker binary inside the project is declined
// (and auto does not fall through to podman past it); a store others can
// write fails; the JSON is versioned; flag misuse exits 2.

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectIdFor } from '../../src/project/identity.js';

const BIN = path.resolve('dist/byre');
let root: string;
let project: string;
let home: string;
let bin: string;

function doctor(
  args: string[],
  pathDirs: string[] = [bin],
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, ['doctor', ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { HOME: root, PATH: pathDirs.join(':'), BYRE_HOME: home, BYRE_ALLOW_ROOT: '1' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function row(text: string, subject: string): string {
  return text.split('\n').find((l) => l.slice(6).startsWith(`${subject} `)) ?? '';
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-doctor-cli-')));
  project = path.join(root, 'work', 'proj');
  home = path.join(root, 'home');
  bin = path.join(root, 'empty-bin');
  mkdirSync(project, { recursive: true });
  mkdirSync(bin);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('byre doctor without an engine', () => {
  it('says no engine is installed, how to fix it, and exits 1', () => {
    const r = doctor([]);
    expect(r.status).toBe(1);
    expect(row(r.stdout, 'docker')).toMatch(/^note +docker +not installed/);
    expect(row(r.stdout, 'engine here')).toMatch(
      /^FAIL +engine here +engine = "auto": neither docker nor podman is installed/,
    );
    expect(r.stdout).toContain('fix: install Docker or Podman');
    expect(r.stdout).toMatch(/byre is NOT usable here: \d+ checks? failed/);
    expect(r.stderr).toContain('byre: byre is not usable here: engine here failed');
    expect(row(r.stdout, 'git')).toMatch(/^warn +git +not on PATH/);
    expect(row(r.stdout, 'store')).toMatch(/^note +store +.* does not exist yet/);
  });

  it('declines a docker inside the project, and auto does not fall through past it', () => {
    const shadow = path.join(project, 'bin');
    mkdirSync(shadow);
    writeFileSync(path.join(shadow, 'docker'), '#!/bin/sh\necho pwned >&2\nexit 0\n');
    chmodSync(path.join(shadow, 'docker'), 0o755);
    const r = doctor([], [shadow, bin]);
    expect(r.status).toBe(1);
    expect(row(r.stdout, 'docker')).toMatch(
      /^warn +docker +.*proj\/bin\/docker is inside .*proj, which the box can write/,
    );
    expect(row(r.stdout, 'engine here')).toMatch(/^FAIL .*docker is declined/);
    expect(r.stdout + r.stderr).not.toContain('pwned');
  });

  it('fails a store that others can write', () => {
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(path.join(home, 'default.config'), '');
    chmodSync(path.join(home, 'default.config'), 0o666);
    const r = doctor([]);
    expect(row(r.stdout, 'store')).toMatch(
      /^FAIL +store +writable by group or others.*default\.config/,
    );
    expect(r.stdout).toContain(`fix: chmod -R go-rwx ${home}`);
  });

  it('fails a config that does not validate, with its location', () => {
    const dir = path.join(home, 'projects');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(home, 'default.config'), 'engine = "lxc"\n', { mode: 0o600 });
    const r = doctor(['--data']);
    expect(r.status).toBe(1);
    const data = JSON.parse(r.stdout) as {
      version: number;
      usable: boolean;
      checks: { id: string; verdict: string; found: string }[];
    };
    expect(data).toMatchObject({ version: 1, usable: false });
    const config = data.checks.find((c) => c.id === 'config');
    expect(config?.verdict).toBe('fail');
    expect(config?.found).toContain(`${path.join(home, 'default.config')}:1`);
  });

  it('lists a deleted project’s store folder as a leftover, and --prune removes it', () => {
    const gone = path.join(root, 'work', 'deleted');
    mkdirSync(gone);
    const folder = path.join(home, 'projects', projectIdFor(gone));
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(folder, 'path'), `${gone}\n`);
    writeFileSync(path.join(folder, 'byre.config'), 'apt = ["jq"]\n');
    rmSync(gone, { recursive: true });

    const r = doctor([]);
    expect(row(r.stdout, 'leftovers')).toMatch(
      /^warn +leftovers +1 project store folder\(s\) whose directory is gone/,
    );
    expect(r.stdout).toContain(
      `  store folder ${folder}  (project ${projectIdFor(gone)}: its directory ${gone} is gone)\n`,
    );
    const data = JSON.parse(doctor(['--data']).stdout) as { store_folders: unknown };
    expect(data.store_folders).toEqual([
      { project: projectIdFor(gone), path: folder, recorded_path: gone },
    ]);

    const off = doctor(['--prune']);
    expect(off.status).toBe(2);
    expect(existsSync(folder)).toBe(true);
    const pruned = doctor(['--prune', '--yes']);
    expect(pruned.status).toBe(0);
    expect(pruned.stderr).toContain(`removed store folder ${folder}`);
    expect(existsSync(folder)).toBe(false);
    expect(row(doctor([]).stdout, 'leftovers')).toMatch(/^ok +leftovers +none/);
  });

  it.each([[['--prune', '--data']], [['--yes']], [['--nope']]])('%j exits 2', (args) => {
    const r = doctor(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^byre: /m);
  });
});
