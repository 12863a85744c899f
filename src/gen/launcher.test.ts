// Runs the real chassis launcher and profile shim under bash/sh, with every
// in-box directory pointed at a temp dir through the BYRE_*_DIR overrides.

import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { resolveHostTool } from '../engine/host-tools.js';
import { INJECTION_SENTINEL } from '../credentials/injection-plan.js';
import { BIND_PROOF_EXIT, bindProofValue, provenScript } from './bind-proof.js';
import { EDGE_GATE_TEXT } from './dockerfile.js';

/** The bind check as byre's helpers carry it: what a proven script puts in front. */
const BIND_PROOF_SH = provenScript('', []);
const LAUNCHER = fileURLToPath(new URL('./chassis/byre-launch.sh', import.meta.url));
const PROFILE = fileURLToPath(new URL('./chassis/byre-profile-env.sh', import.meta.url));
const sleepTool = resolveHostTool('sleep', { declinedRoots: [], env: process.env });
const SLEEP = sleepTool.kind === 'found' ? sleepTool.path : '/bin/sleep';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function listen(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = await listen();
  const port = portOf(server);
  await close(server);
  return port;
}

let dir: string;
let env: Record<string, string>;

function sub(name: string): string {
  const p = path.join(dir, name);
  mkdirSync(p, { recursive: true });
  return p;
}

function write(rel: string, content: string, mode = 0o644): string {
  const p = path.join(dir, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
  chmodSync(p, mode);
  return p;
}

function launch(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return run('bash', [LAUNCHER, ...args], { ...env, ...extra });
}

/**
 * The launcher waits between gate attempts with `sleep`; this one, first on
 * PATH, leaves a mark before it sleeps. Once the mark exists the launcher
 * has tried the gate and is waiting: the handshake that replaces guessing
 * how long that takes.
 */
function markWaits(): { env: Record<string, string>; waited: () => Promise<void> } {
  const mark = path.join(dir, 'gate-waited');
  const bin = sub('mark-bin');
  write('mark-bin/sleep', `#!/bin/sh\n: > '${mark}'\nexec '${SLEEP}' "$@"\n`, 0o755);
  return {
    env: { PATH: `${bin}:${env['PATH'] ?? ''}` },
    waited: async () => {
      for (let i = 0; i < 2000 && !existsSync(mark); i++) {
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(existsSync(mark)).toBe(true);
    },
  };
}

useTempDir('launch-test', (tmp) => {
  dir = tmp;
  env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    BYRE_DEV_HOME: sub('home'),
    BYRE_WORKSPACE_DIR: sub('workspace'),
    BYRE_CONTEXT_DIR: sub('etc-byre'),
    BYRE_FIRSTRUN_DIR: sub('firstrun.d'),
    BYRE_ENVD_DIR: sub('env.d'),
    BYRE_LAUNCH_GATE_FILE: path.join(dir, 'etc-byre', 'launch-gate'),
    BYRE_EDGE_GATE_FILE: path.join(dir, 'etc-byre', 'edge-gate'),
    BYRE_MOUNTS_FILE: write('mounts', 'proc /proc proc rw 0 0\n'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
});

describe('bind proof (adr/0045)', () => {
  /** What develop lists for a bind whose source is `p` now. */
  function proofOf(p: string): string {
    const st = statSync(p, { bigint: true });
    return bindProofValue([{ target: p, dev: st.dev, ino: st.ino }]);
  }

  it('is the one check byre owns, verbatim, before anything else the launcher does', () => {
    const text = readFileSync(LAUNCHER, 'utf8');
    expect(BIND_PROOF_SH).toContain('byre_prove_binds');
    const at = text.indexOf(BIND_PROOF_SH);
    expect(at).toBeGreaterThan(-1);
    expect(text.slice(0, at)).not.toMatch(/^(?!#|set -euo pipefail$|$).+/m);
  });

  it('proceeds when every bind is the object byre pinned', async () => {
    const r = await launch(['bash', '-c', 'echo ran'], { BYRE_BIND_PROOF: proofOf(sub('bound')) });
    expect(r).toMatchObject({ code: 0, stdout: 'ran\n' });
  });

  it('exits with its own status before any gate, hook or command when one is not', async () => {
    const bound = sub('bound');
    const proof = proofOf(bound);
    renameSync(bound, path.join(dir, 'bound.real'));
    symlinkSync(dir, bound);
    // A gate that would hold the launch for 30 s, and a hook that leaves a mark.
    write('etc-byre/launch-gate', `${await closedPort()}\n`);
    write('firstrun.d/10-mark.sh', `touch ${dir}/hook-ran\n`);
    const marker = path.join(dir, 'ran');
    const r = await launch(['bash', '-c', `touch ${marker}`], { BYRE_BIND_PROOF: proof });
    expect(r.code).toBe(BIND_PROOF_EXIT);
    expect(r.stderr).toContain(`byre:   ${bound}: byre checked device and inode`);
    expect(r.stderr).not.toContain('launch gate');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(dir, 'hook-ran'))).toBe(false);
  });
});

describe('launch gate', () => {
  it('proceeds when no gate file exists', async () => {
    const r = await launch(['bash', '-c', 'echo ran']);
    expect(r).toMatchObject({ code: 0, stdout: 'ran\n' });
  });

  it('proceeds when the gate file is empty (BYRE_LAUNCH_GATE_FILE=/dev/null ejection)', async () => {
    const r = await launch(['bash', '-c', 'echo ran'], { BYRE_LAUNCH_GATE_FILE: '/dev/null' });
    expect(r).toMatchObject({ code: 0, stdout: 'ran\n' });
  });

  it('fails closed on timeout without running the command', async () => {
    const port = await closedPort();
    write('etc-byre/launch-gate', `${port}\n`);
    const marker = path.join(dir, 'ran');
    const r = await launch(['bash', '-c', `touch ${marker}`], { BYRE_LAUNCH_GATE_TIMEOUT: '0.2' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `byre: launch gate: network setup never signaled ready on 127.0.0.1:${port} after 0.2s — refusing to launch without it (failing closed).`,
    );
    expect(r.stderr).toContain('byre ejectfirewall');
    expect(r.stderr).toContain('BYRE_LAUNCH_GATE_FILE=/dev/null');
    expect(existsSync(marker)).toBe(false);
  });

  it('opens when something listens on the gate port', async () => {
    const server = await listen();
    try {
      write('etc-byre/launch-gate', ` ${portOf(server)} \n\n`);
      const r = await launch(['bash', '-c', 'echo through'], { BYRE_LAUNCH_GATE_TIMEOUT: '5' });
      expect(r).toMatchObject({ code: 0, stdout: 'through\n' });
    } finally {
      await close(server);
    }
  });

  for (const content of ['not-a-port', '70000', '0', '12 34', '-5', '8080x']) {
    it(`fails closed on a malformed port (${JSON.stringify(content)})`, async () => {
      write('etc-byre/launch-gate', content);
      const marker = path.join(dir, 'ran');
      const r = await launch(['bash', '-c', `touch ${marker}`], {
        BYRE_LAUNCH_GATE_TIMEOUT: '0.2',
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('does not hold a port number');
      expect(r.stderr).toContain('failing closed');
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('waits at the gate before any first-run hook runs', async () => {
    const port = await closedPort();
    write('etc-byre/launch-gate', `${port}\n`);
    // The hook records whether the gate port answered when it ran.
    write(
      'firstrun.d/10-probe.sh',
      `if (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; then echo open; else echo closed; fi > ${dir}/probe\n`,
    );
    const waits = markWaits();
    const launched = launch(['true'], { BYRE_LAUNCH_GATE_TIMEOUT: '10', ...waits.env });
    await waits.waited();
    expect(existsSync(path.join(dir, 'probe'))).toBe(false);
    const server = await listen(port);
    try {
      const r = await launched;
      expect(r.code).toBe(0);
      expect(readFileSync(path.join(dir, 'probe'), 'utf8')).toBe('open\n');
    } finally {
      await close(server);
    }
  });

  it('runs no first-run hook when the gate fails', async () => {
    write('etc-byre/launch-gate', `${await closedPort()}\n`);
    write('firstrun.d/10-mark.sh', `touch ${dir}/hook-ran\n`);
    const r = await launch(['true'], { BYRE_LAUNCH_GATE_TIMEOUT: '0.2' });
    expect(r.code).toBe(1);
    expect(existsSync(path.join(dir, 'hook-ran'))).toBe(false);
  });
});

describe('edge gate (adr/0084)', () => {
  const SHOW = [
    'bash',
    '-c',
    'printf "[%s][%s][%s]" "${GH-unset}" "${OPENAI_API_KEY-unset}" "${API_KEY-unset}"',
  ];
  const gate = (port: number): string => write('etc-byre/edge-gate', `127.0.0.1 ${port}\n`);

  it('the baked file names the edge’s address and gate port, which the edge is started with', () => {
    expect(EDGE_GATE_TEXT).toBe('127.31.0.1 7228\n');
  });

  it('opens when the edge listens, then sets each injected key to the sentinel, and only those', async () => {
    const server = await listen();
    try {
      gate(portOf(server));
      const r = await launch(SHOW, {
        BYRE_EDGE_SENTINELS: 'GH,OPENAI_API_KEY',
        BYRE_EDGE_GATE_TIMEOUT: '5',
      });
      expect(r).toMatchObject({
        code: 0,
        stdout: `[${INJECTION_SENTINEL}][${INJECTION_SENTINEL}][unset]`,
      });
    } finally {
      await close(server);
    }
  });

  it('waits for an edge that listens after it started', async () => {
    const port = await closedPort();
    gate(port);
    const waits = markWaits();
    const launched = launch(SHOW, {
      BYRE_EDGE_SENTINELS: 'GH',
      BYRE_EDGE_GATE_TIMEOUT: '10',
      ...waits.env,
    });
    await waits.waited();
    const server = await listen(port);
    try {
      expect(await launched).toMatchObject({
        code: 0,
        stdout: `[${INJECTION_SENTINEL}][unset][unset]`,
      });
    } finally {
      await close(server);
    }
  });

  it('fails closed without running hooks or the command when the edge never signals', async () => {
    const port = await closedPort();
    gate(port);
    write('firstrun.d/10-mark.sh', `touch ${dir}/hook-ran\n`);
    const marker = path.join(dir, 'ran');
    const r = await launch(['bash', '-c', `touch ${marker}`], {
      BYRE_EDGE_SENTINELS: 'GH',
      BYRE_EDGE_GATE_TIMEOUT: '0.2',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `byre: edge gate: the edge never signaled ready on 127.0.0.1:${port} after 0.2s — refusing to launch without it (failing closed).`,
    );
    expect(r.stderr).toContain('BYRE_EDGE_GATE_FILE=/dev/null');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(dir, 'hook-ran'))).toBe(false);
  });

  it.each([
    ['an address off loopback', '10.0.0.1 7228\n'],
    ['no port', '127.31.0.1\n'],
    ['port 0', '127.31.0.1 0\n'],
    ['a port past 65535', '127.31.0.1 65536\n'],
    ['a second line', '127.31.0.1 7228\n127.0.0.1 22\n'],
  ])('fails closed on a gate file with %s', async (_what, text) => {
    write('etc-byre/edge-gate', text);
    const r = await launch(['bash', '-c', 'echo ran'], { BYRE_EDGE_GATE_TIMEOUT: '0.2' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('does not hold a loopback address and a port');
    expect(r.stdout).toBe('');
  });

  it.each([['BYRE_LAUNCH_GATE_FILE'], ['PATH;x'], ['1ABC']])(
    'fails closed on an injected key it cannot set (%s)',
    async (key) => {
      const server = await listen();
      try {
        gate(portOf(server));
        const r = await launch(['bash', '-c', 'echo ran'], {
          BYRE_EDGE_SENTINELS: `GH,${key}`,
          BYRE_EDGE_GATE_TIMEOUT: '5',
        });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('an injected key has an unusable name');
        expect(r.stdout).toBe('');
      } finally {
        await close(server);
      }
    },
  );

  it('is skipped without a gate file, or with BYRE_EDGE_GATE_FILE=/dev/null: no sentinel then', async () => {
    const bare = await launch(SHOW, { BYRE_EDGE_SENTINELS: 'GH' });
    expect(bare).toMatchObject({ code: 0, stdout: '[unset][unset][unset]' });
    gate(await closedPort());
    const ejected = await launch(SHOW, {
      BYRE_EDGE_SENTINELS: 'GH',
      BYRE_EDGE_GATE_FILE: '/dev/null',
    });
    expect(ejected).toMatchObject({ code: 0, stdout: '[unset][unset][unset]' });
  });
});

describe('credential gate', () => {
  const credentials = (): string => path.join(dir, 'credentials');
  const asTmpfs = (): void => {
    write('mounts', `proc /proc proc rw 0 0\ntmpfs ${credentials()} tmpfs rw,mode=700 0 0\n`);
  };
  const deliver = (): void => {
    write('credentials/env/API_KEY', 'sk 123\n\n');
    write('credentials/env/UNICODE', 'pässwörd');
    write('credentials/file/SERVICE_JSON', '{"k":1}');
    write('credentials/ready', '');
  };
  const gated = (extra: Record<string, string> = {}): Record<string, string> => ({
    BYRE_CREDENTIAL_GATE_FILE: write('etc-byre/credential-gate', 'byre\n'),
    BYRE_CREDENTIAL_DIR: credentials(),
    BYRE_CREDENTIAL_GATE_TIMEOUT: '0.2',
    ...extra,
  });

  it('exports delivered values and file paths to the command, exactly', async () => {
    asTmpfs();
    deliver();
    const r = await launch(
      ['bash', '-c', 'printf "[%s][%s][%s]" "$API_KEY" "$UNICODE" "$SERVICE_JSON"'],
      gated(),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `[sk 123\n\n][pässwörd][${path.join(credentials(), 'file', 'SERVICE_JSON')}]`,
    );
  });

  it('fails closed without running hooks or the command when nothing was delivered', async () => {
    asTmpfs();
    sub('credentials');
    write('firstrun.d/10-mark.sh', `touch ${dir}/hook-ran\n`);
    const marker = path.join(dir, 'ran');
    const r = await launch(['bash', '-c', `touch ${marker}`], gated());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `byre: credential gate: no credentials were delivered to ${credentials()} within 0.2s — refusing to launch without them (failing closed).`,
    );
    expect(r.stderr).toContain('BYRE_CREDENTIAL_GATE_FILE=/dev/null');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(path.join(dir, 'hook-ran'))).toBe(false);
  });

  it('waits for a delivery that lands after it started', async () => {
    asTmpfs();
    const waits = markWaits();
    const launched = launch(
      ['bash', '-c', 'echo "$API_KEY"'],
      gated({ BYRE_CREDENTIAL_GATE_TIMEOUT: '10', ...waits.env }),
    );
    await waits.waited();
    deliver();
    const r = await launched;
    expect(r).toMatchObject({ code: 0, stdout: 'sk 123\n\n\n' });
  });

  it('fails closed when the channel directory is not a tmpfs', async () => {
    deliver();
    const r = await launch(['bash', '-c', 'echo "$API_KEY"'], gated());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a tmpfs');
    expect(r.stdout).toBe('');
  });

  it('fails closed on a delivered name in the BYRE_ namespace', async () => {
    asTmpfs();
    deliver();
    write('credentials/env/BYRE_LAUNCH_GATE_FILE', '/dev/null');
    const r = await launch(['true'], gated());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unusable name');
  });

  it('is skipped without a gate file, or with BYRE_CREDENTIAL_GATE_FILE=/dev/null', async () => {
    const bare = await launch(['bash', '-c', 'echo "[${API_KEY-unset}]"']);
    expect(bare.stdout).toBe('[unset]\n');
    const ejected = await launch(['bash', '-c', 'echo ran'], {
      ...gated(),
      BYRE_CREDENTIAL_GATE_FILE: '/dev/null',
    });
    expect(ejected).toMatchObject({ code: 0, stdout: 'ran\n' });
  });

  it('hands the values to first-run hooks too', async () => {
    asTmpfs();
    deliver();
    write('firstrun.d/10-see.sh', `printf '%s' "$UNICODE" > ${dir}/seen\n`);
    expect((await launch(['true'], gated())).code).toBe(0);
    expect(readFileSync(path.join(dir, 'seen'), 'utf8')).toBe('pässwörd');
  });
});

describe('hooks', () => {
  it('reports a failing first-run hook and continues, in glob order', async () => {
    write('firstrun.d/10-fail.sh', 'echo first >> "$BYRE_DEV_HOME/order"; exit 3\n');
    write('firstrun.d/20-ok.sh', 'echo second >> "$BYRE_DEV_HOME/order"\n');
    const r = await launch(['bash', '-c', 'echo agent']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('agent\n');
    expect(r.stderr).toContain('byre: firstrun hook "10-fail.sh" exited 3 (continuing)');
    expect(readFileSync(path.join(dir, 'home', 'order'), 'utf8')).toBe('first\nsecond\n');
  });

  it('exports env.d variables to the exec’d command, even from a sloppy hook', async () => {
    write('env.d/10-token.sh', 'export BYRE_TEST_TOKEN=abc123\n');
    write('env.d/20-sloppy.sh', 'echo "$UNSET_VARIABLE" >/dev/null; false\nexport SECOND=yes\n');
    write('env.d/30-ignored.txt', 'export NOT_SOURCED=1\n');
    const r = await launch(['bash', '-c', 'echo "$BYRE_TEST_TOKEN $SECOND ${NOT_SOURCED:-unset}"']);
    expect(r).toMatchObject({ code: 0, stdout: 'abc123 yes unset\n' });
  });

  it('sources env.d after first-run hooks', async () => {
    write('firstrun.d/10-write.sh', `echo 'export FROM_FIRSTRUN=late' > ${dir}/env.d/50-late.sh\n`);
    const r = await launch(['bash', '-c', 'echo "$FROM_FIRSTRUN"']);
    expect(r.stdout).toBe('late\n');
  });
});

describe('session context', () => {
  it('is exported empty when there is nothing to say', async () => {
    const r = await launch(['bash', '-c', 'echo "[${BYRE_SESSION_CONTEXT-unset}]"']);
    expect(r.stdout).toBe('[]\n');
  });

  it('announces the enforced allowlist behind a gate', async () => {
    const server = await listen();
    try {
      write('etc-byre/launch-gate', `${portOf(server)}\n`);
      const r = await launch(['printenv', 'BYRE_SESSION_CONTEXT'], {
        BYRE_EGRESS: 'api.anthropic.com:443,registry.npmjs.org:443',
      });
      expect(r.stdout).toMatch(
        /^\n\n## This session's egress allowlist\n\napi\.anthropic\.com:443, registry\.npmjs\.org:443\n\nAnything not listed is closed/,
      );
    } finally {
      await close(server);
    }
  });

  it('says so when the allowlist is empty', async () => {
    const server = await listen();
    try {
      write('etc-byre/launch-gate', `${portOf(server)}\n`);
      const r = await launch(['printenv', 'BYRE_SESSION_CONTEXT'], { BYRE_EGRESS: '' });
      expect(r.stdout).toContain('The allowlist is EMPTY');
    } finally {
      await close(server);
    }
  });

  it('ignores BYRE_EGRESS without a gate', async () => {
    const r = await launch(['printenv', 'BYRE_SESSION_CONTEXT'], { BYRE_EGRESS: 'x.test:443' });
    expect(r.stdout).toBe('\n');
  });

  it('adds the self-edit note only while the self-edit mount is read-write', async () => {
    write('etc-byre/self-edit.md', 'You may edit this project’s byre config.\n');
    const home = path.join(dir, 'home');
    write('mounts', `/dev/sda1 ${home}/.byre-self ext4 ro,relatime 0 0\n`);
    const ro = await launch(['printenv', 'BYRE_SESSION_CONTEXT']);
    expect(ro.stdout).toBe('\n');
    write('mounts', `/dev/sda1 ${home}/.byre-self ext4 rw,relatime 0 0\n`);
    const rw = await launch(['printenv', 'BYRE_SESSION_CONTEXT']);
    expect(rw.stdout).toBe('\n\nYou may edit this project’s byre config.\n');
  });
});

describe('exec', () => {
  it('runs the agent command when no arguments are given', async () => {
    write('etc-byre/agent-cmd', '#!/bin/sh\necho "agent HOME=$HOME"\n', 0o755);
    const r = await launch([]);
    expect(r).toMatchObject({ code: 0, stdout: `agent HOME=${path.join(dir, 'home')}\n` });
  });

  it('prefers explicit arguments over the agent command', async () => {
    write('etc-byre/agent-cmd', '#!/bin/sh\necho agent\n', 0o755);
    const r = await launch(['echo', 'explicit']);
    expect(r.stdout).toBe('explicit\n');
  });

  it('passes the command’s exit status through', async () => {
    const r = await launch(['bash', '-c', 'exit 7']);
    expect(r.code).toBe(7);
  });
});

describe('worktree populate', () => {
  it('checks out a marked worktree once and removes the marker', async () => {
    const gitdir = sub('gitdir');
    write('workspace/.git', `gitdir: ${gitdir}\n`);
    write('gitdir/byre-needs-checkout', '');
    // A fake git on PATH: records the call, succeeds.
    write('bin/git', `#!/bin/sh\necho "$@" >> ${dir}/git-calls\n`, 0o755);
    const r = await launch(['true'], { PATH: `${dir}/bin:${env['PATH'] ?? ''}` });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'git-calls'), 'utf8')).toContain(
      `-C ${path.join(dir, 'workspace')} checkout`,
    );
    expect(existsSync(path.join(gitdir, 'byre-needs-checkout'))).toBe(false);
  });

  it('keeps the marker when checkout fails', async () => {
    const gitdir = sub('gitdir');
    write('workspace/.git', `gitdir: ${gitdir}\n`);
    write('gitdir/byre-needs-checkout', '');
    write('bin/git', '#!/bin/sh\ncase "$*" in *checkout*) exit 1;; esac\n', 0o755);
    const r = await launch(['true'], { PATH: `${dir}/bin:${env['PATH'] ?? ''}` });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('next launch will try again');
    expect(existsSync(path.join(gitdir, 'byre-needs-checkout'))).toBe(true);
  });

  it('warns about a linked worktree with no files', async () => {
    write('workspace/.git', `gitdir: ${sub('gitdir')}\n`);
    const r = await launch(['true']);
    expect(r.stderr).toContain('has no files checked out');
  });
});

describe('profile shim', () => {
  it('restores dropped image PATH entries first and sources env.d', async () => {
    write('image-path', '/home/dev/.local/bin:/usr/local/go/bin:/usr/bin:/bin\n');
    write('env.d/10-x.sh', 'export FROM_ENVD=1\n');
    const r = await run('sh', ['-c', `. ${PROFILE}; echo "$PATH|$FROM_ENVD"`], {
      PATH: '/usr/bin:/bin',
      BYRE_ENVD_DIR: path.join(dir, 'env.d'),
      BYRE_IMAGE_PATH_FILE: path.join(dir, 'image-path'),
    });
    expect(r).toMatchObject({
      code: 0,
      stdout: '/home/dev/.local/bin:/usr/local/go/bin:/usr/bin:/bin|1\n',
    });
  });

  it('leaves PATH alone when nothing is missing and leaks no helper variables', async () => {
    write('image-path', '/usr/bin:/bin\n');
    const r = await run(
      'sh',
      ['-c', `. ${PROFILE}; echo "$PATH"; set | grep -c '^byre_' || true`],
      {
        PATH: '/usr/bin:/bin',
        BYRE_ENVD_DIR: path.join(dir, 'env.d'),
        BYRE_IMAGE_PATH_FILE: path.join(dir, 'image-path'),
      },
    );
    expect(r.stdout).toBe('/usr/bin:/bin\n0\n');
  });

  it('exports delivered credentials to login shells as the launcher did', async () => {
    write('credentials/env/API_KEY', 'sk 123\n\n');
    write('credentials/file/CERT', 'x');
    write('credentials/env/BYRE_EGRESS', 'ignored');
    write('credentials/ready', '');
    const r = await run(
      'sh',
      ['-c', `. ${PROFILE}; printf '[%s][%s][%s]' "$API_KEY" "$CERT" "\${BYRE_EGRESS-unset}"`],
      {
        PATH: '/usr/bin:/bin',
        BYRE_ENVD_DIR: path.join(dir, 'env.d'),
        BYRE_CREDENTIAL_DIR: path.join(dir, 'credentials'),
      },
    );
    expect(r.stdout).toBe(`[sk 123\n\n][${path.join(dir, 'credentials', 'file', 'CERT')}][unset]`);
  });

  it('exports nothing from a credential directory that was never opened', async () => {
    write('credentials/env/API_KEY', 'x');
    const r = await run('sh', ['-c', `. ${PROFILE}; echo "[\${API_KEY-unset}]"`], {
      PATH: '/usr/bin:/bin',
      BYRE_ENVD_DIR: path.join(dir, 'env.d'),
      BYRE_CREDENTIAL_DIR: path.join(dir, 'credentials'),
    });
    expect(r.stdout).toBe('[unset]\n');
  });
});
