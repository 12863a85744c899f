// `byre dockerrun` on each real engine: the printed argv names the engine,
// carries byre's flags, puts raw run_args after them and re-asserts byre's
// labels after the raw args. A box started from the printed command is
// reported as started outside byre, never as orphaned (adr/0024).

import { execFileSync } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/engine/facts-key.js';
import { projectIdFor } from '../../src/project/identity.js';
import { flavorsUnderTest, rootEnginesUnderTest } from './engines.js';
import {
  engineCli,
  makeProject,
  runByre,
  runningBox,
  testScope,
  waitFor,
  type TestProject,
} from './harness.js';

const engines = rootEnginesUnderTest();

describe.skipIf(engines.length === 0).each(engines)('byre dockerrun on %s', (engine) => {
  let project: TestProject;
  afterEach(() => project.cleanup());

  it('prints the run argv with run_args before the re-asserted labels', () => {
    project = makeProject(engine);
    const id = projectIdFor(project.dir);
    const store = path.join(project.home, 'projects', id);
    mkdirSync(store, { recursive: true });
    writeFileSync(
      path.join(store, 'byre.config'),
      'run_args = ["--label", "byre.project=spoofed", "--cap-add=SYS_PTRACE"]\n[[ports]]\ncontainer = 3000\n',
    );
    const r = runByre(project, ['dockerrun']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const line = r.stdout.trim();
    expect(line.startsWith(`${engine} run --rm -i --name byre-${id} `)).toBe(true);
    expect(line).toContain(`--mount type=bind,source=${project.dir},target=/workspace`);
    expect(line).toContain('-p 127.0.0.1:3000:3000');
    const raw = line.indexOf('--cap-add=SYS_PTRACE');
    const spoof = line.indexOf('byre.project=spoofed');
    const real = line.lastIndexOf(`--label byre.project=${id}`);
    expect(spoof).toBeGreaterThan(0);
    expect(raw).toBeGreaterThan(spoof);
    expect(real).toBeGreaterThan(raw);
    expect(line.endsWith(` byre-${id}-u${process.getuid?.()}-g${process.getgid?.()}`)).toBe(true);
  });
});

describe.skipIf(engines.length === 0).each(engines)(
  'a box started from dockerrun on %s',
  (engine) => {
    const scope = testScope();

    it('is reported as started outside byre, not orphaned, and still blocks reset and forget', async () => {
      const project = scope.project(engine);
      project.writeConfig('agent = "none"\n');
      const printed = runByre(project, ['dockerrun']);
      expect(printed.status).toBe(0);
      const line = printed.stdout.trim();
      expect(line).not.toContain('byre.client');
      // No build: the local base stands in for the project image the command names.
      const image = line.split(' ').at(-1) ?? '';
      expect(image).toMatch(new RegExp(`^byre-${project.id}-u\\d+-g\\d+$`));
      engineCli(project, ['tag', 'debian:bookworm', image]);
      // Detached, as a person would in another terminal; bash waits on the open stdin.
      execFileSync('sh', ['-c', line.replace(`${engine} run `, `${engine} run -d `)], {
        stdio: 'ignore',
      });
      const id = await waitFor('the box', () => runningBox(project));

      const status = runByre(project, ['status']);
      expect(status.status).toBe(0);
      expect(status.stdout).toContain(
        `running (${id.slice(0, 12)}) on ${engine} — started outside byre`,
      );
      expect(status.stdout).not.toContain('orphaned');
      const data = JSON.parse(runByre(project, ['status', '--data']).stdout) as {
        container: { orphaned: boolean; outside_byre: boolean; client_pid: number | null };
        launch: { state: string };
      };
      expect(data.container).toMatchObject({
        orphaned: false,
        outside_byre: true,
        client_pid: null,
      });
      expect(data.launch.state).toBe('outside_byre');

      // It is a live session all the same: reset and forget refuse (exit 3) and remove nothing.
      for (const verb of ['reset', 'forget']) {
        const r = runByre(project, [verb, '-y']);
        expect(r.status, r.stderr).toBe(3);
        expect(r.stderr).toContain(`then run byre ${verb} again`);
      }
      expect(runningBox(project)).toBe(id);
      // bash ignores SIGTERM: remove the box at once rather than wait out a stop timeout.
      engineCli(project, ['rm', '-f', ...(engine === 'podman' ? ['-t', '0'] : []), id]);
    });
  },
);

// The store's probe cache (adr/0038) on real engines: what it remembers is
// what a fresh probe answers, the remembered answer is what the next command
// uses, and a change in what the key names makes byre ask again. Docker as
// the test user asks root's daemon the same question with the same code.
const factFlavors = flavorsUnderTest().filter((f) => f.engine === 'podman' || f.user === null);
describe.skipIf(factFlavors.length === 0).each(factFlavors)(
  'remembered engine facts on $label',
  (flavor) => {
    let project: TestProject;
    afterEach(() => project.cleanup());

    const entry = (probe: string): string[] =>
      readFileSync(path.join(project.home, 'cache', 'engine-facts', probe), 'utf8').split('\n');
    const plant = (probe: string, answer: string): void => {
      const file = path.join(project.home, 'cache', 'engine-facts', probe);
      const { uid, gid } = statSync(file);
      writeFileSync(file, encodeEntry(entry(probe)[1] ?? '', answer));
      chownSync(file, uid, gid);
    };
    const statusEngine = (env: Record<string, string> = {}): { rootless: boolean | null } => {
      const r = runByre(project, ['status', '--data'], { env });
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { engine: { rootless: boolean | null } }).engine;
    };

    it('answers as a fresh probe would; a planted answer decides until a keyed part changes', () => {
      project = makeProject(flavor);
      const first = runByre(project, ['dockerrun']);
      expect(first.status, first.stderr).toBe(0);
      const cache = path.join(project.home, 'cache', 'engine-facts');

      if (flavor.engine === 'docker') {
        expect(entry('docker-info')[2]).toBe('rootless=false');
        expect(runByre(project, ['dockerrun']).stdout).toBe(first.stdout);
        // The remembered answer is the one used...
        plant('docker-info', 'rootless=true');
        expect(statusEngine().rootless).toBe(true);
        // ...until a variable that chooses the daemon changes: asked again, and re-remembered.
        const explicit = { DOCKER_HOST: 'unix:///var/run/docker.sock' };
        expect(statusEngine(explicit).rootless).toBe(false);
        expect(entry('docker-info')[2]).toBe('rootless=false');
        return;
      }
      if (flavor.user === null) {
        // A local rootful podman is asked nothing, so nothing is remembered.
        expect(existsSync(cache)).toBe(false);
        return;
      }
      // Rootless podman, through a copy of its CLI whose identity the test controls.
      const bin = path.join(project.root, 'bin');
      mkdirSync(bin);
      copyFileSync('/usr/bin/podman', path.join(bin, 'podman'));
      const { uid, gid } = statSync(project.home);
      chownSync(bin, uid, gid);
      const env = { PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };
      const fresh = runByre(project, ['dockerrun'], { env });
      expect(fresh.status, fresh.stderr).toBe(0);
      const version = /version (\d+\.\d+\.\d+)/.exec(
        execFileSync(path.join(bin, 'podman'), ['--version'], { encoding: 'utf8' }),
      )?.[1];
      expect(entry('podman-version')[2]).toBe(version);
      plant('podman-version', '4.2.0');
      const refused = runByre(project, ['dockerrun'], { env });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain('older than 4.3');
      // A changed CLI (its mtime) is asked again: the real version, and keep-id back.
      utimesSync(path.join(bin, 'podman'), new Date(), new Date(0));
      const again = runByre(project, ['dockerrun'], { env });
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toBe(fresh.stdout);
      expect(entry('podman-version')[2]).toBe(version);
    });
  },
);
