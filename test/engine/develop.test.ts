// Engine tier for `byre develop`, driving dist/byre on real engines: as root
// on docker and podman, and (with BYRE_TEST_USER) as an unprivileged user on
// docker and rootless podman, where file ownership is the point.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLaunchRecordFile, verifyLaunchRecord } from '../../src/launch/verify.js';
import { projectIdFor } from '../../src/project/identity.js';
import { flavorsUnderTest } from './engines.js';
import {
  testScope,
  engineCli,
  installTestAgent,
  runByre,
  runningBox,
  waitFor,
  type TestProject,
} from './harness.js';

const flavors = flavorsUnderTest();
const rootFlavors = flavors.filter((f) => f.user === null);

function hostIds(project: TestProject): { uid: number; gid: number } {
  if (project.flavor.user === null)
    return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const fields = execFileSync('getent', ['passwd', project.flavor.user], {
    encoding: 'utf8',
  }).split(':');
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

const scope = testScope();
const SUID = '/usr/local/bin/byre-test-suid-grep';

describe.skipIf(flavors.length === 0).each(flavors)('byre develop on $label', (flavor) => {
  it('runs a no-agent box: exit status passes through, /workspace files belong to the host user, no privilege', () => {
    const project = scope.project(flavor);
    // A setuid-root binary in the image, as Debian's su or mount are: it must gain nothing (adr/0050).
    project.writeConfig(`dockerfile_post = ["RUN cp /bin/grep ${SUID} && chmod 4755 ${SUID}"]\n`);
    const first = runByre(project, ['develop'], {
      input: [
        'touch /workspace/from-box; id -u; id -un',
        // The agent's own process ($$: the login shell the launcher execs).
        "grep -E '^(CapEff|CapBnd|NoNewPrivs):' /proc/$$/status",
        `${SUID} -E '^(Uid|CapEff):' /proc/self/status`,
        'exit 7',
        '',
      ].join('\n'),
    });
    expect(first.stderr).toContain('byre: exposure: /workspace rw');
    // byre's progress, one line per step off a terminal, instead of the engine's raw log.
    expect(first.stderr).toMatch(/^byre: building the image \(\d+:\d\d\): step 1\/\d+: FROM /m);
    expect(first.stderr).toMatch(/^byre: built the image in \d+:\d\d$/m);
    expect(first.stderr).not.toMatch(/^(Step|STEP) \d+/m);
    // Podman may ask systemd for a healthcheck timer unless told not to (no session here).
    // Podman 4.3.1 on this machine never prints the line, with or without the flag:
    // --no-healthcheck itself is proven in src/gen/run-argv.test.ts; this only guards.
    expect(first.stderr).not.toMatch(/unable to get systemd connection/);
    expect(first.status).toBe(7);
    const inBox = first.stdout.trim().split('\n');
    expect(inBox[1]).toBe(flavor.user === null ? 'root' : 'dev');
    // No capability in any set, none to gain, and exec never raises privilege:
    // the setuid binary runs as the box's user with nothing effective.
    const uid = inBox[0] ?? '';
    expect(inBox.slice(2)).toEqual([
      'CapEff:\t0000000000000000',
      'CapBnd:\t0000000000000000',
      'NoNewPrivs:\t1',
      `Uid:\t${uid}\t${uid}\t${uid}\t${uid}`,
      'CapEff:\t0000000000000000',
    ]);
    const st = statSync(path.join(project.dir, 'from-box'));
    expect({ uid: st.uid, gid: st.gid }).toEqual(hostIds(project));
    expect(runningBox(project)).toBeNull();

    // Unchanged config: no engine build at all, and still a fresh box.
    const second = runByre(project, ['develop'], { input: 'exit 0\n' });
    expect(second.status).toBe(0);
    expect(second.stderr).not.toContain('building the image');
    expect(second.stderr).not.toMatch(/unable to get systemd connection/);
  });
});

// Docker as the test user is docker as root with another uid, which the
// no-agent box above already proves; rootless podman's keep-id is new here.
const agentFlavors = flavors.filter((f) => f.user === null || f.engine === 'podman');

describe.skipIf(agentFlavors.length === 0).each(agentFlavors)(
  'byre develop with an agent on $label',
  (flavor) => {
    it('execs the selected agent skill through the launcher, with its context, env and state', () => {
      const project = scope.project(flavor);
      installTestAgent(project);
      const r = runByre(project, ['develop', '--agent', 'testagent'], { input: 'exit 3\n' });
      expect(r.status).toBe(3);
      expect(r.stdout.split('\n').filter((l) => l.startsWith('TESTAGENT'))).toEqual([
        'TESTAGENT argv: --autonomous',
        `TESTAGENT user: ${flavor.user === null ? 'root' : 'dev'} mode=fixture`,
        'TESTAGENT context: baked',
        'TESTAGENT state: writable',
      ]);
      const again = runByre(project, ['develop', '--agent', 'testagent'], { input: 'exit 0\n' });
      expect(again.status).toBe(2);
      expect(again.stderr).toContain('first develop');
    });
  },
);

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)(
  'byre develop refusals on $label',
  (flavor) => {
    it('refuses a worktree box while another box holds an exclusive volume', async () => {
      const project = scope.project(flavor);
      const git = (cwd: string, ...args: string[]): string =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd,
          encoding: 'utf8',
        });
      git(project.dir, 'init', '-q');
      writeFileSync(path.join(project.dir, 'README'), 'x\n');
      git(project.dir, 'add', '.');
      git(project.dir, 'commit', '-qm', 'init');
      const worktree = path.join(project.root, 'feature');
      git(project.dir, 'worktree', 'add', '-q', worktree);
      project.writeConfig(
        '[[volumes]]\nname = "db"\nrole = "state"\ntarget = "/home/dev/db"\nsharing = "exclusive"\n',
      );

      const session = scope.start(project, ['develop']);
      await waitFor('the main box', () => runningBox(project, project.id));
      const second = runByre(project, ['develop'], { cwd: worktree, input: 'exit 0\n' });
      expect(second.stderr).toMatch(/volume db is exclusive and box [0-9a-f]{12}/);
      expect(second.status).toBe(3);
      expect(runningBox(project, projectIdFor(worktree))).toBeNull();
      expect(await session.end()).toBe(0);
    });

    // One box serves both: a running session refuses a second, and its launch record.
    it('refuses a second session in the same directory with exit 3 and a re-attach hint; stamps a launch record that re-hashes to the box label, and an edit is detectable', async () => {
      const project = scope.project(flavor);
      project.writeConfig('[[ports]]\ncontainer = 8080\n');
      const session = scope.start(project, ['develop']);
      const id = await waitFor('the box', () => runningBox(project));
      const second = runByre(project, ['develop'], { input: 'exit 0\n' });
      expect(second.status).toBe(3);
      expect(second.stderr).toContain('a session is already running for this directory');
      expect(second.stderr).toContain(
        `${flavor.engine} attach --detach-keys=ctrl-p,ctrl-q ${id.slice(0, 12)}`,
      );
      expect(second.stderr).toContain('byre shell');

      const label = engineCli(project, [
        'inspect',
        '-f',
        '{{index .Config.Labels "byre.launch"}}',
        id,
      ]).trim();
      expect(label).toMatch(/^[0-9a-f]{64}$/);
      const file = path.join(project.store, 'launches', `${label}.toml`);
      const bytes = readFileSync(file);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(label);
      const text = bytes.toString('utf8');
      expect(text).toContain(`project = "${project.id}"`);
      expect(text).toContain('container = 8080');
      expect(text).not.toMatch(/GIT_AUTHOR_NAME\s*=/);

      const read = (hash: string) =>
        readLaunchRecordFile(path.join(project.store, 'launches'), hash);
      expect(verifyLaunchRecord(label, read).kind).toBe('verified');
      writeFileSync(file, text.replace('container = 8080', 'container = 8081'));
      expect(verifyLaunchRecord(label, read).kind).toBe('tampered');
      expect(await session.end()).toBe(0);
    });

    it('seeds a fresh state volume once, and never again', () => {
      const project = scope.project(flavor);
      project.writeConfig(
        [
          '[[volumes]]',
          'name = "prefs"',
          'role = "state"',
          'target = "/home/dev/prefs"',
          '[volumes.seed]',
          'literal = "seeded\\n"',
          'path = "conf/settings"',
        ].join('\n') + '\n',
      );
      const first = runByre(project, ['develop'], {
        input:
          'cat /home/dev/prefs/conf/settings; stat -c %U /home/dev/prefs/conf/settings; echo changed > /home/dev/prefs/conf/settings\n',
      });
      expect(first.stderr).not.toContain('byre: error');
      expect(first.status).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual([
        'seeded',
        flavor.user === null ? 'root' : 'dev',
      ]);
      const second = runByre(project, ['develop'], {
        input: 'cat /home/dev/prefs/conf/settings\n',
      });
      expect(second.status).toBe(0);
      expect(second.stdout.trim()).toBe('changed');
    });

    it(`declines a ${flavor.engine} binary planted in the project and first on PATH`, () => {
      const project = scope.project(flavor);
      const bin = path.join(project.dir, 'tools');
      mkdirSync(bin);
      const planted = path.join(bin, flavor.engine);
      writeFileSync(planted, '#!/bin/sh\necho planted >&2\nexit 0\n');
      chmodSync(planted, 0o755);
      const r = runByre(project, ['develop'], {
        input: 'exit 0\n',
        env: { PATH: `${bin}:${process.env['PATH'] ?? ''}` },
      });
      expect(r.status).toBe(3);
      expect(r.stderr).toContain(`declined to run ${flavor.engine}`);
      expect(r.stderr).toContain(planted);
      expect(r.stderr).not.toContain('planted\n');
    });
  },
);
