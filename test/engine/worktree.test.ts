// Engine tier for parallel sessions (adr/0034, adr/0036), the exit report and
// --self-edit (adr/0035, adr/0048), and the bind race against a real box (adr/0045), on
// docker and podman as root. One repository and one image per engine (busybox
// and inotify-tools from Debian's mirror; git comes with every image,
// adr/0057, so the config does not ask for it: the image is built once and
// every session here shares it). Rootless podman adds nothing these do not
// prove (ports and ownership are covered by develop.test.ts, the bind proof
// on every flavour by bind-proof.test.ts).
//
// Every byre call runs with a recording `git` first on PATH: the test fails
// if byre ran git in the repository on the host.

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { worktreeIdFor } from '../../src/project/worktree.js';
import { flavorsUnderTest } from './engines.js';
import {
  engineCli,
  installTestAgent,
  runByre,
  runningBox,
  testScope,
  waitFor,
  type BackgroundSession,
  type TestProject,
} from './harness.js';

const flavors = flavorsUnderTest().filter((f) => f.user === null);
const scope = testScope('all');

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

/** A free host port with room for a block above it. */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen({ host: '127.0.0.1', port }, () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port found');
}

function fetchText(port: number, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: `/${file}`, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body.trim()));
    }).on('error', reject);
  });
}

async function line(session: BackgroundSession, prefix: string): Promise<string> {
  return waitFor(`"${prefix}" from the box`, () => {
    const hit = session
      .stdout()
      .split('\n')
      .find((l) => l.startsWith(prefix));
    return hit === undefined ? null : hit.slice(prefix.length);
  });
}

interface Repo {
  project: TestProject;
  env: Record<string, string>;
  calls: () => string[];
  port: number;
}

describe.skipIf(flavors.length === 0).each(flavors)(
  'worktrees and exit reports on $label',
  (flavor) => {
    let repo: Repo;

    beforeAll(async () => {
      const project = scope.project(flavor, 'repo');
      git(project.dir, 'init', '-q', '-b', 'main');
      writeFileSync(path.join(project.dir, 'README'), 'hello\n');
      writeFileSync(path.join(project.dir, '.env'), 'A=1\n');
      git(project.dir, 'add', '.');
      git(project.dir, 'commit', '-qm', 'init');
      installTestAgent(project);
      const port = await freePort();
      // Top-level keys only, so a line appended by the box stays top-level.
      project.writeConfig(
        `agent = "testagent"\napt = ["busybox", "inotify-tools"]\nports = [{ container = 3000, host = ${port} }]\n` +
          // Baked from the main worktree: a new worktree is empty until its box checks it out.
          `files = { "README" = "/opt/readme" }\n`,
      );
      writeFileSync(
        path.join(project.home, 'default.config'),
        `engine = "${flavor.engine}"\nworktree_base = "sibling"\n`,
      );
      const wrap = path.join(project.root, 'gitwrap');
      mkdirSync(wrap);
      const log = path.join(project.root, 'git-calls.log');
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      writeFileSync(
        path.join(wrap, 'git'),
        `#!/bin/sh\nprintf '%s :: %s\\n' "$PWD" "$*" >> '${log}'\nexec '${realGit}' "$@"\n`,
      );
      chmodSync(path.join(wrap, 'git'), 0o755);
      repo = {
        project,
        port,
        env: { PATH: `${wrap}:${process.env['PATH'] ?? '/usr/bin:/bin'}` },
        calls: () =>
          existsSync(log)
            ? readFileSync(log, 'utf8')
                .split('\n')
                .filter((l) => l !== '')
            : [],
      };
    });

    it('two worktrees run sessions at once: shared state, own host ports for one container port, a third develop exits 3, and no git ran on the host', async () => {
      const { project, env, port } = repo;
      const sessions: BackgroundSession[] = [];
      try {
        const a = scope.start(project, ['develop'], { env });
        sessions.push(a);
        await waitFor(
          'the main worktree’s session',
          () => runningBox(project, project.id),
          590_000,
        );
        a.child.stdin?.write(
          'mkdir -p /tmp/www && echo main > /tmp/www/who && busybox httpd -p 3000 -h /tmp/www && ' +
            'echo from-main > /home/dev/.testagent/shared && echo "A-PORT=$BYRE_PORT_3000"\n',
        );
        expect(await line(a, 'A-PORT=')).toBe(String(port));

        const b = scope.start(project, ['worktree', 'feat'], { env });
        sessions.push(b);
        const wtDir = path.join(project.root, 'repo-feat');
        await waitFor('the worktree’s session', () => runningBox(project, worktreeIdFor(wtDir)));
        b.child.stdin?.write(
          'mkdir -p /tmp/www && echo feat > /tmp/www/who && busybox httpd -p 3000 -h /tmp/www && ' +
            'echo "B-STATE=$(cat /home/dev/.testagent/shared)" && echo "B-BRANCH=$(git -C /workspace branch --show-current)" && ' +
            'echo "B-FILES=$(ls /workspace | tr "\\n" " ")" && echo "B-BAKED=$(cat /opt/readme)" && echo "B-PORT=$BYRE_PORT_3000"\n',
        );
        const shifted = Number(await line(b, 'B-PORT='));
        expect(await line(b, 'B-STATE=')).toBe('from-main');
        expect(await line(b, 'B-BRANCH=')).toBe('feat');
        expect(await line(b, 'B-FILES=')).toContain('README');
        expect(await line(b, 'B-BAKED=')).toBe('hello');
        expect(b.stderr()).toMatch(
          /byre: ports: 127\.0\.0\.1:\d+ -> 3000 {2}\(this worktree's port block \d+\)/,
        );
        expect(shifted).not.toBe(port);
        expect((shifted - port) % 100).toBe(0);

        // Both publish container port 3000; each answers on its own host port.
        expect(await fetchText(port, 'who')).toBe('main');
        expect(await fetchText(shifted, 'who')).toBe('feat');

        const third = runByre(project, ['develop'], { env });
        expect(third.stderr).toContain('a session is already running for this directory');
        expect(third.status).toBe(3);

        const list = runByre(project, ['worktree', 'list'], { env });
        expect(list.status).toBe(0);
        expect(list.stdout).toMatch(
          new RegExp(`${project.dir} +main +running \\(${flavor.engine}`),
        );
        expect(list.stdout).toMatch(new RegExp(`${wtDir} +feat +running \\(${flavor.engine}`));

        const status = runByre(project, ['status'], { env });
        expect(status.stdout).toMatch(/Worktrees: +.*repo-feat.*feat.*running/);
        const wtStatus = runByre(project, ['status', '--data'], { env, cwd: wtDir });
        const data = JSON.parse(wtStatus.stdout) as {
          ports: { host: number }[];
          port_block: number;
        };
        expect(data.ports[0]?.host).toBe(shifted);
        expect(data.port_block).toBe((shifted - port) / 100);

        const busy = runByre(project, ['worktree', 'remove', 'feat'], { env });
        expect(busy.stderr).toContain('is running');
        expect(busy.status).toBe(3);

        a.child.stdin?.write('exit\n');
        b.child.stdin?.write('exit\n');
        expect(await a.end()).toBe(0);
        expect(await b.end()).toBe(0);
        // Untouched trees: no exit-report notice (the worktree's checkout brought its .env).
        expect(a.stderr()).not.toContain('notice:');
        expect(b.stderr()).not.toContain('notice:');

        const removed = runByre(project, ['worktree', 'remove', 'feat'], { env });
        expect(removed.stderr).toContain('removed the worktree');
        expect(removed.status).toBe(0);
        expect(existsSync(wtDir)).toBe(false);
      } finally {
        // A failure above must not leave sessions running into the next test.
        await Promise.all(sessions.map((s) => s.kill()));
        const left = engineCli(project, [
          'ps',
          '-aq',
          '--filter',
          `label=byre.project=${project.id}`,
        ]);
        for (const id of left.split('\n').filter((l) => l !== ''))
          engineCli(project, ['rm', '-f', id]);
      }

      // The recording git saw byre's env_from_host reads (`git config --list -z`,
      // or `--get` per key when listing fails; run from /), and nothing in the repository.
      const calls = repo.calls();
      expect(calls.length).toBeGreaterThan(0);
      expect(
        calls.filter((c) => c !== '/ :: config --list -z' && !c.startsWith('/ :: config --get ')),
      ).toEqual([]);
    });

    it('a host port another program holds is refused before anything is created, naming the holder', async () => {
      const { project, env, port } = repo;
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port }, resolve));
      try {
        const r = runByre(project, ['develop'], { env, input: 'exit\n' });
        expect(r.stderr).toContain(
          `host port 127.0.0.1:${port} is held by another program on this host, pid ${process.pid}`,
        );
        expect(r.status).toBe(3);
        expect(
          engineCli(project, ['ps', '-aq', '--filter', `label=byre.project=${project.id}`]).trim(),
        ).toBe('');
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });

    it('the exit report names a hook, core.hooksPath and a Makefile the box left behind', () => {
      const { project, env } = repo;
      const r = runByre(project, ['develop'], {
        env,
        input:
          'cd /workspace && git config core.hooksPath .githooks && ' +
          'printf "#!/bin/sh\\necho hi\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && ' +
          'printf "all:\\n\\ttrue\\n" > Makefile\nexit\n',
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('byre: notice: while this session ran');
      expect(r.stderr).toContain('git config .git/config: core.hookspath = ".githooks" (added)');
      expect(r.stderr).toContain('hook added: .git/hooks/pre-commit');
      expect(r.stderr).toContain('task file added: Makefile');
      expect(r.stderr).toMatch(/does not block or undo them/);
      const quiet = runByre(project, ['develop'], { env, input: 'exit\n' });
      expect(quiet.stderr).not.toContain('notice:');
    });

    it('the real bind race: the main box swaps .git for a link to its parent on byre’s own read of it; the sibling box is refused and never bound to the link', async () => {
      const { project, env } = repo;
      const gitDir = path.join(project.dir, '.git');
      // Registered by the test's own git: the race is armed before the sibling's byre reads anything.
      const wt = path.join(project.root, 'repo-race');
      git(project.dir, 'worktree', 'add', '-q', '--no-checkout', wt);
      writeFileSync(path.join(project.root, 'SENTINEL'), 'outside every box\n');
      const main = scope.start(project, ['develop'], { env });
      try {
        await waitFor(
          'the main worktree’s session',
          () => runningBox(project, project.id),
          590_000,
        );
        // The attack as seen: wait for the sibling's byre to read .git/config (its exit-report
        // snapshot, taken between create and start), then swap, bounded by inotifywait's timeout.
        main.child.stdin?.write(
          'cd /workspace && echo RACE-ARMED && inotifywait -q -q -t 300 -e close_nowrite .git/config && ' +
            'mv .git .git.real && ln -s .. .git && echo RACE-SWAPPED\n',
        );
        await line(main, 'RACE-ARMED');
        const sibling = runByre(project, ['develop'], {
          env,
          cwd: wt,
          input: `ls -a '${gitDir}'; touch '${gitDir}/PWNED'; exit 0\n`,
        });
        await line(main, 'RACE-SWAPPED');
        main.child.stdin?.write('rm .git && mv .git.real .git && echo RACE-RESTORED\n');
        await line(main, 'RACE-RESTORED');
        expect(sibling.stdout).not.toContain('SENTINEL');
        expect(existsSync(path.join(project.root, 'PWNED'))).toBe(false);
        expect(sibling.stderr).toContain('byre stopped this box before anything ran in it');
        expect(sibling.stderr).toContain(`${gitDir} now leads to ${project.root}, another object`);
        expect(sibling.status).toBe(3);
        expect(runningBox(project, worktreeIdFor(wt))).toBeNull();
        main.child.stdin?.write('exit\n');
        expect(await main.end()).toBe(0);
      } finally {
        await main.kill();
        if (existsSync(`${gitDir}.real`)) {
          rmSync(gitDir, { force: true });
          renameSync(`${gitDir}.real`, gitDir);
        }
        expect(readdirSync(project.root)).toContain('SENTINEL');
      }
    });

    it('--self-edit: warned before the box exists, told in its session context, the config diff at exit, applied next time; a tampered build context and a commondir redirect are reported (issue 27)', () => {
      const { project, env } = repo;
      const preview = runByre(project, ['status', '--self-edit'], { env });
      expect(preview.stdout).toMatch(/Self-edit: +\S+ ->\s+\/home\/dev\/\.byre-self/);
      const r = runByre(project, ['develop', '--self-edit'], {
        env,
        input:
          'case "$BYRE_SESSION_CONTEXT" in *byre-self*) echo CTX-SELF;; esac\n' +
          `printf 'run_args = ["-e", "SELFEDIT=yes"]\\n' >> /home/dev/.byre-self/byre.config\n` +
          `printf '# tampered\\n' >> /home/dev/.byre-self/context/byre-launch\n` +
          // The host's git now reads its config and hooks from .git/logs/c.
          'cd /workspace/.git && mkdir -p logs/c/hooks && ' +
          `printf '[core]\\n\\tfsmonitor = ./evil\\n' > logs/c/config && ` +
          `printf '#!/bin/sh\\nexit 0\\n' > logs/c/hooks/pre-commit && chmod +x logs/c/hooks/pre-commit && ` +
          'ln -s ../../objects logs/c/objects && ln -s ../../refs logs/c/refs && ' +
          'echo logs/c > commondir && cd /workspace\nexit\n',
      });
      onTestFinished(() => {
        rmSync(path.join(project.dir, '.git/commondir'), { force: true });
        rmSync(path.join(project.dir, '.git/logs/c'), { recursive: true, force: true });
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toContain(
        'byre:   git pointer added: .git/commondir = "logs/c" (git’s common dir: .git/logs/c)',
      );
      expect(r.stderr).toContain(
        'byre:   git config .git/logs/c/config: core.fsmonitor = "./evil" (added)',
      );
      expect(r.stderr).toContain('byre:   hook added: .git/logs/c/hooks/pre-commit');
      expect(r.stderr).toContain('byre:   changed: context/byre-launch');
      // The host's own git takes the planted config: the report named what git runs.
      expect(
        execFileSync('git', ['config', '--get', 'core.fsmonitor'], {
          cwd: project.dir,
          encoding: 'utf8',
        }).trim(),
      ).toBe('./evil');
      const warned = r.stderr.indexOf('🛑 self-edit is on.');
      expect(warned).toBeGreaterThan(-1);
      expect(warned).toBeLessThan(r.stderr.indexOf('byre: exposure: /workspace rw · self-edit rw'));
      expect(r.stdout).toContain('CTX-SELF');
      expect(r.stderr).toContain(
        'byre: self-edit: byre.config changed (it applies at the next develop):',
      );
      expect(r.stderr).toContain('byre:   +run_args = ["-e", "SELFEDIT=yes"]');

      const next = runByre(project, ['develop'], { env, input: 'echo "SE=$SELFEDIT"\nexit\n' });
      expect(next.status).toBe(0);
      expect(next.stdout).toContain('SE=yes');
      expect(next.stderr).not.toContain('self-edit');
    });
  },
);
