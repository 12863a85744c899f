// Release artifacts and the installer. Always: dist/byre is an executable for
// this machine that names its version and commit, and scripts/install.sh
// creates its directory, says how to reach it on PATH, and never installs a
// binary that fails its sum or does not run. With BYRE_RELEASE_TESTS=1 (CI
// sets it): `npm run release` into a temp dir, and every artifact's header
// matches its name, SHA256SUMS verifies, and the artifact for this machine
// runs and names the same build as dist/byre.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  formatMismatch,
  HEADER_BYTES,
  readArtifactFormat,
} from '../../scripts/release/artifact-format.js';
import { RELEASE_TARGETS, type Arch, type Os } from '../../scripts/release/targets.js';

const BIN = path.resolve('dist/byre');
const INSTALL = path.resolve('scripts/install.sh');
const VERSION_LINE =
  /^byre (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}(?:-dirty)?|unknown), (linux|darwin)-(x64|arm64)\)\n$/;

function headOf(file: string): Uint8Array {
  return readFileSync(file).subarray(0, HEADER_BYTES);
}

function hostTarget(): { os: Os; arch: Arch } {
  return { os: process.platform as Os, arch: process.arch as Arch };
}

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-release-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('dist/byre', () => {
  it('is an executable for this machine', () => {
    const { os, arch } = hostTarget();
    expect(formatMismatch(readArtifactFormat(headOf(BIN)), os, arch)).toBeNull();
  });

  it('names its version, the commit it was built from, and its platform', () => {
    const out = execFileSync(BIN, ['version'], { encoding: 'utf8' });
    const m = VERSION_LINE.exec(out);
    expect(m, out).not.toBeNull();
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(m?.[1]).toBe(pkg.version);
    expect(`${m?.[3]}-${m?.[4]}`).toBe(`${process.platform}-${process.arch}`);
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    // dist/byre may predate the last commit; it is always a commit of this history.
    expect(m?.[2]?.replace(/-dirty$/, '')).toMatch(/^[0-9a-f]{12}$/);
    expect(() =>
      execFileSync('git', ['merge-base', '--is-ancestor', m?.[2]?.slice(0, 12) ?? '', head]),
    ).not.toThrow();
    expect(execFileSync(BIN, ['--version'], { encoding: 'utf8' })).toBe(out);
  });
});

describe('scripts/install.sh', () => {
  function install(
    args: string[],
    env: Record<string, string>,
  ): { status: number | null; stderr: string } {
    const r = spawnSync('sh', [INSTALL, ...args], {
      encoding: 'utf8',
      env: { HOME: root, PATH: '/usr/bin:/bin', SHELL: '/bin/bash', ...env },
    });
    return { status: r.status, stderr: r.stderr };
  }

  it('creates a missing directory, installs, and says how to put it on PATH', () => {
    const dest = path.join(root, 'fresh', 'bin');
    const r = install([BIN], { BYRE_INSTALL_DIR: dest });
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(path.join(dest, 'byre')).mode & 0o777).toBe(0o755);
    expect(r.stderr).toMatch(/installed byre \d+\.\d+\.\d+ \(commit /);
    expect(r.stderr).toContain(`${dest} is not on your PATH`);
    expect(r.stderr).toContain(`echo 'export PATH="${dest}:$PATH"' >> ~/.bashrc`);
  });

  it.each([
    ['zsh', '~/.zshrc'],
    ['fish', `fish_add_path`],
    ['dash', '~/.profile'],
  ])('gives %s users their own PATH line', (shell, expected) => {
    const dest = path.join(root, 'bin');
    const r = install([BIN], { BYRE_INSTALL_DIR: dest, SHELL: `/bin/${shell}` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(expected);
  });

  it('says nothing about PATH when the directory is already on it', () => {
    const dest = path.join(root, 'bin');
    const r = install([BIN], { BYRE_INSTALL_DIR: dest, PATH: `${dest}:/usr/bin:/bin` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('PATH');
  });

  it('defaults to ~/.local/bin', () => {
    const r = install([BIN], {});
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(path.join(root, '.local', 'bin', 'byre'))).toBe(true);
  });

  it('refuses an artifact that does not match its SHA256SUMS and keeps the old byre', () => {
    const dest = path.join(root, 'bin');
    mkdirSync(dest);
    writeFileSync(path.join(dest, 'byre'), 'old');
    const release = path.join(root, 'release');
    mkdirSync(release);
    const artifact = path.join(release, 'byre-linux-x64');
    copyFileSync(BIN, artifact);
    writeFileSync(path.join(release, 'SHA256SUMS'), `${'0'.repeat(64)}  byre-linux-x64\n`);
    const r = install([artifact], { BYRE_INSTALL_DIR: dest });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('does not match SHA256SUMS');
    expect(readFileSync(path.join(dest, 'byre'), 'utf8')).toBe('old');
  });

  it('refuses a binary that does not run here, leaving nothing behind', () => {
    const dest = path.join(root, 'bin');
    mkdirSync(dest);
    writeFileSync(path.join(dest, 'byre'), 'old');
    const broken = path.join(root, 'byre-broken');
    writeFileSync(broken, '#!/bin/sh\nexit 3\n');
    chmodSync(broken, 0o755);
    const r = install([broken], { BYRE_INSTALL_DIR: dest });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('nothing was installed');
    expect(readFileSync(path.join(dest, 'byre'), 'utf8')).toBe('old');
    expect(spawnSync('ls', ['-A', dest], { encoding: 'utf8' }).stdout).toBe('byre\n');
  });
});

describe.runIf(process.env['BYRE_RELEASE_TESTS'] === '1')('npm run release', () => {
  it('builds every platform’s artifact with the right header, sums and version', () => {
    const out = path.join(root, 'dist');
    execFileSync('npm', ['run', '--silent', 'release', '--', '--out', out], { stdio: 'pipe' });
    for (const t of RELEASE_TARGETS) {
      const format = readArtifactFormat(headOf(path.join(out, t.artifact)));
      expect(formatMismatch(format, t.os, t.arch), t.artifact).toBeNull();
    }
    const sums = readFileSync(path.join(out, 'SHA256SUMS'), 'utf8');
    expect(
      sums
        .trimEnd()
        .split('\n')
        .map((l) => l.split('  ')[1]),
    ).toEqual([...RELEASE_TARGETS.map((t) => t.artifact).sort(), 'install.sh']);
    execFileSync('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: out, stdio: 'pipe' });

    const { os, arch } = hostTarget();
    const said = execFileSync(path.join(out, `byre-${os}-${arch}`), ['version'], {
      encoding: 'utf8',
    });
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(said).toMatch(VERSION_LINE);
    expect(said).toContain(`byre ${pkg.version} (commit ${head}`);
  }, 600_000);
});
