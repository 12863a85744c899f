// deliver through ssh:// against a REAL sshd: a private one on 127.0.0.1 with
// throwaway host and client keys, reached through an `ssh` on PATH that only
// adds `-F <temp config>` (ssh reads the passwd home's config, not $HOME's).
// The remote byre is dist/byre via --remote-byre; its env rides SetEnv. Docker only.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { flavorsUnderTest } from './engines.js';
import {
  BYRE_BIN,
  cleanupProject,
  engineCli,
  makeProject,
  runByre,
  runningBox,
  startByre,
  waitFor,
  type BackgroundSession,
  type TestProject,
} from './harness.js';

const flavor = flavorsUnderTest().find((f) => f.engine === 'docker' && f.user === null);
const SSHD = '/usr/sbin/sshd';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => {
        if (addr !== null && typeof addr === 'object') resolve(addr.port);
        else reject(new Error('no port'));
      });
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

interface Sshd {
  dir: string;
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  /** PATH whose first `ssh` uses the temp client config. */
  path: string;
}

async function startSshd(remoteEnv: Record<string, string>): Promise<Sshd> {
  if (!existsSync(SSHD)) {
    execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq openssh-server'], {
      stdio: 'ignore',
    });
  }
  const dir = realTemp('byre-sshd-');
  const keygen = (name: string): void => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, name)]);
  };
  keygen('host_key');
  keygen('client_key');
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'client_key.pub')), {
    mode: 0o600,
  });
  const port = await freePort();
  const hostPub = readFileSync(path.join(dir, 'host_key.pub'), 'utf8').trim();
  writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`);
  writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(dir, 'host_key')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'AcceptEnv BYRE_*',
      '',
    ].join('\n'),
  );
  const setEnv = Object.entries(remoteEnv)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  writeFileSync(
    path.join(dir, 'ssh_config'),
    [
      'Host 127.0.0.1',
      `  IdentityFile ${path.join(dir, 'client_key')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(dir, 'known_hosts')}`,
      '  StrictHostKeyChecking yes',
      '  BatchMode yes',
      `  SetEnv ${setEnv}`,
      '',
    ].join('\n'),
  );
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'ssh'),
    `#!/bin/sh\nexec /usr/bin/ssh -F '${path.join(dir, 'ssh_config')}' "$@"\n`,
  );
  chmodSync(path.join(bin, 'ssh'), 0o755);
  // sshd's privilege separation directory (the package's unit makes it at boot).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const child = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (c: Buffer) => {
    log += c.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sshd did not come up on 127.0.0.1:${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { dir, port, child, exited, path: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };
}

function realTemp(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

describe.skipIf(flavor === undefined)('deliver through ssh:// (docker, real sshd)', () => {
  let sshd: Sshd | null = null;
  let project: TestProject | null = null;
  let session: BackgroundSession | null = null;
  let box = '';

  beforeAll(async () => {
    if (flavor === undefined) return;
    project = makeProject(flavor, 'remote');
    sshd = await startSshd({ BYRE_HOME: project.home, BYRE_ALLOW_ROOT: '1' });
    session = startByre(project, ['develop']);
    const p = project;
    box = await waitFor('the box', () => runningBox(p), 500_000);
    await waitFor('the box to answer', () => {
      try {
        return engineCli(p, ['exec', box, 'true']) === '' ? true : null;
      } catch {
        return null;
      }
    });
  }, 600_000);

  afterAll(async () => {
    if (session !== null) {
      await session.kill();
    }
    if (project !== null) cleanupProject(project);
    if (sshd !== null) {
      sshd.child.kill('SIGTERM');
      await sshd.exited;
      rmSync(sshd.dir, { recursive: true, force: true });
    }
  });

  function remote(args: string[], input?: string): ReturnType<typeof runByre> {
    if (project === null || sshd === null) throw new Error('setup failed');
    return runByre(project, ['deliver', `ssh://127.0.0.1:${sshd.port}`, ...args], {
      env: { PATH: sshd.path },
      ...(input === undefined ? {} : { input }),
    });
  }

  function inBox(script: string): string {
    if (project === null) throw new Error('setup failed');
    return engineCli(project, ['exec', box, 'sh', '-c', script]);
  }

  it('lists, picks by cwd, and delivers a file and a tree as one tar; a repeat lands as name-2', () => {
    if (project === null) throw new Error('setup failed');
    writeFileSync(path.join(project.dir, 'remote-report.pdf'), 'remote pdf\n');
    mkdirSync(path.join(project.dir, 'rtree', 'sub'), { recursive: true });
    writeFileSync(path.join(project.dir, 'rtree', 'sub', 'b.txt'), 'b\n');

    const first = remote(['--remote-byre', BYRE_BIN, 'remote-report.pdf', 'rtree']);
    expect(first.stderr).not.toMatch(/byre: (?!clipboard)/);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('/inbox/remote-report.pdf\n/inbox/rtree\n');
    expect(inBox('cat /inbox/remote-report.pdf /inbox/rtree/sub/b.txt')).toBe('remote pdf\nb\n');

    const again = remote(['--remote-byre', BYRE_BIN, 'remote-report.pdf']);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('/inbox/remote-report-2.pdf\n');
  });

  it('--box skips enumeration and stdin goes up as one named file', () => {
    const r = remote(['--remote-byre', BYRE_BIN, '--box', box, '--name', 'piped.txt', '-'], 'up\n');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('/inbox/piped.txt\n');
    expect(inBox('cat /inbox/piped.txt')).toBe('up\n');
  });

  it('maps a missing remote byre (127) and a failed ssh (255) to clear errors', async () => {
    if (project === null || sshd === null) throw new Error('setup failed');
    const src = path.join(project.dir, 'never.txt');
    writeFileSync(src, 'x\n');
    const missing = remote(['--remote-byre', '/nonexistent/byre', '--box', box, 'never.txt']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('/nonexistent/byre was not found on 127.0.0.1');
    expect(missing.stdout).toBe('');

    const closed = await freePort();
    const failed = runByre(project, ['deliver', `ssh://127.0.0.1:${closed}`, 'never.txt'], {
      env: { PATH: sshd.path },
    });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('ssh to 127.0.0.1 failed');
    expect(inBox('ls /inbox')).not.toContain('never');
  });
});
