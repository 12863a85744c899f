// Shared machinery for engine tests: temp projects and BYRE_HOME, running the
// built binary (as root, or as the unprivileged test user), background
// sessions, and removing every engine object a test project made.
//
// Test projects live under a directory named `byretest-…`, so their project
// ids (slug of the last two path components) always contain `byretest`; the
// sweep keys on that and on the `byre.test` label that raw test objects carry.

import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { containerName } from '../../src/gen/names.js';
import { edgeHelperName } from '../../src/network/edge.js';
import { wallHelperName } from '../../src/network/netns.js';
import { projectIdFor } from '../../src/project/identity.js';
import { afterAll, afterEach } from 'vitest';
import { type EngineName, type Flavor } from './engines.js';

export const BYRE_BIN = resolve('dist/byre');

export interface TestProject {
  flavor: Flavor;
  /** Canonical project directory. */
  dir: string;
  /** Isolated byre store. */
  home: string;
  root: string;
  id: string;
  /** The project's store dir (may not exist yet). */
  store: string;
  writeConfig(text: string): void;
  cleanup(): void;
}

function userIds(user: string): { uid: number; gid: number; home: string } {
  const line = execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).trim().split(':');
  return { uid: Number(line[2]), gid: Number(line[3]), home: line[5] ?? '/' };
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
  }
}

function asFlavor(flavor: Flavor | EngineName): Flavor {
  return typeof flavor === 'string' ? { engine: flavor, user: null, label: flavor } : flavor;
}

/** A fresh project dir and store; the store's default.config pins `engine`. */
export function makeProject(flavor: Flavor | EngineName, name = 'proj'): TestProject {
  const f = asFlavor(flavor);
  warmBuildCache(f);
  return projectIn(f, realpathSync(mkdtempSync(join(tmpdir(), 'byretest-'))), name);
}

/**
 * A fresh project dir and store, without warming the build cache: for a test
 * that builds nothing (a warm is a build from the base on first use).
 */
export function bareProject(flavor: Flavor, name = 'proj'): TestProject {
  return projectIn(flavor, realpathSync(mkdtempSync(join(tmpdir(), 'byretest-'))), name);
}

function projectIn(f: Flavor, root: string, name: string): TestProject {
  const dir = join(root, name);
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'default.config'), `engine = "${f.engine}"\n`, { mode: 0o600 });
  if (f.user !== null) {
    const ids = userIds(f.user);
    chownTree(root, ids.uid, ids.gid);
  }
  const id = projectIdFor(dir);
  const store = join(home, 'projects', id);
  const project: TestProject = {
    flavor: f,
    dir,
    home,
    root,
    id,
    store,
    writeConfig(text) {
      mkdirSync(store, { recursive: true, mode: 0o700 });
      writeFileSync(join(store, 'byre.config'), text, { mode: 0o600 });
      if (f.user !== null) {
        const ids = userIds(f.user);
        chownTree(home, ids.uid, ids.gid);
      }
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  return project;
}

export interface ByreRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Why `status` is null: the signal that ended it, or the spawn's own error (a timeout, ENOBUFS). */
  ended?: string;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Handed to byre on file descriptor 3 (for `--passphrase-fd 3`), from a private temp file. */
  fd3?: string;
}

/** A descriptor open on a private temp file holding `text`; the file is already unlinked. */
function fdWith(text: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'byre-fd-'));
  const file = join(dir, 'fd');
  writeFileSync(file, text, { mode: 0o600 });
  const fd = openSync(file, 'r');
  rmSync(dir, { recursive: true, force: true });
  return fd;
}

function extraStdio(options: RunOptions): { stdio: ('pipe' | number)[]; close(): void } {
  if (options.fd3 === undefined) return { stdio: ['pipe', 'pipe', 'pipe'], close: () => {} };
  const fd = fdWith(options.fd3);
  return { stdio: ['pipe', 'pipe', 'pipe', fd], close: () => closeSync(fd) };
}

/** argv and env to run dist/byre as the project's flavor. */
function command(
  project: TestProject,
  args: string[],
  options: RunOptions,
): { file: string; argv: string[]; env: NodeJS.ProcessEnv } {
  const extra = { BYRE_HOME: project.home, ...options.env };
  if (project.flavor.user === null) {
    return { file: BYRE_BIN, argv: args, env: { ...process.env, BYRE_ALLOW_ROOT: '1', ...extra } };
  }
  const ids = userIds(project.flavor.user);
  const pairs = Object.entries({
    HOME: ids.home,
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    ...(process.env['TERM'] ? { TERM: process.env['TERM'] } : {}),
    ...extra,
  }).map(([k, v]) => `${k}=${v}`);
  return {
    file: 'runuser',
    argv: ['-u', project.flavor.user, '--', 'env', '-i', ...pairs, BYRE_BIN, ...args],
    env: process.env,
  };
}

export function runByre(project: TestProject, args: string[], options: RunOptions = {}): ByreRun {
  const c = command(project, args, options);
  const extra = extraStdio(options);
  try {
    const result = spawnSync(c.file, c.argv, {
      cwd: options.cwd ?? project.dir,
      input: options.input ?? '',
      encoding: 'utf8',
      timeout: 900_000,
      // Above anything a test has byre print (a grab to stdout sends up to its cap).
      maxBuffer: 64 * 1024 * 1024,
      env: c.env,
      stdio: extra.stdio,
    });
    const ended = result.error?.message ?? result.signal ?? undefined;
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      ...(ended === undefined ? {} : { ended }),
    };
  } finally {
    extra.close();
  }
}

/** A session in the background: stdin stays open until `end()`, so the box's login shell waits. */
export interface BackgroundSession {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
  end(): Promise<number | null>;
  /**
   * Kills byre and lets go of its pipes. `exited` waits for the pipes to
   * close, and a `docker start --attach` byre started outlives a SIGKILL
   * holding them (and the box's stdin) open for as long as the box runs:
   * awaiting `exited` after a bare kill hangs on a box that waits for input.
   */
  kill(): Promise<number | null>;
  /**
   * Kills byre itself, not only what the harness spawned: as another user
   * byre is runuser's child, which a kill of runuser leaves running. runuser
   * reaps it and ends (a byre killed and never reaped stays a zombie whose
   * pid still reads as alive to a census), then as kill().
   */
  killByre(): Promise<number | null>;
}

export function startByre(
  project: TestProject,
  args: string[],
  options: RunOptions = {},
): BackgroundSession {
  const c = command(project, args, options);
  const extra = extraStdio(options);
  const child = spawn(c.file, c.argv, {
    cwd: options.cwd ?? project.dir,
    env: c.env,
    stdio: extra.stdio,
  });
  extra.close();
  let err = '';
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  const kill = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((res) => child.once('exit', res));
      child.kill('SIGKILL');
      await gone;
    }
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    return exited;
  };
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    end: async () => {
      child.stdin?.end();
      return exited;
    },
    kill,
    killByre: async () => {
      if (project.flavor.user !== null && child.pid !== undefined && child.exitCode === null) {
        const reaped = new Promise((res) => child.once('exit', res));
        spawnSync('pkill', ['-KILL', '-P', String(child.pid)]);
        await reaped;
      }
      return kill();
    },
  };
}

const execFileAsync = promisify(execFile);

/** The program and argv that run the engine CLI as the project's flavor. */
function engineCommand(project: TestProject, args: string[]): [string, string[]] {
  const { engine, user } = project.flavor;
  if (user === null) return [engine, args];
  return ['runuser', ['-u', user, '--', 'env', `HOME=${userIds(user).home}`, engine, ...args]];
}

/** Runs the engine CLI as the project's flavor; throws on failure. */
export function engineCli(project: TestProject, args: string[], input?: string): string {
  const [file, argv] = engineCommand(project, args);
  return execFileSync(file, argv, {
    encoding: 'utf8',
    timeout: 300_000,
    input: input ?? '',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * engineCli without blocking this process: for a box that talks to a
 * fixture served in this process (a DNS server), which a synchronous call
 * would leave unanswered until it returned.
 */
export async function engineCliAsync(project: TestProject, args: string[]): Promise<string> {
  const [file, argv] = engineCommand(project, args);
  const { stdout } = await execFileAsync(file, argv, { encoding: 'utf8', timeout: 300_000 });
  return stdout;
}

/**
 * Polls `probe` until it answers, first every 250 ms, then backing off to
 * once a second: most probes ask an engine (a `podman ps` costs ~0.15 CPU
 * seconds as root and twice that rootless), and a wait on an image build
 * that polled 4 times a second kept a core busy on the 2-core CI machine.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 250; ; pause = Math.min(1000, Math.round(pause * 1.5))) {
    const value = probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** The running box of a project, by label, as its flavor sees it. */
export function runningBox(project: TestProject, worktreeId?: string): string | null {
  const filters = ['--filter', `label=byre.project=${project.id}`];
  if (worktreeId !== undefined) filters.push('--filter', `label=byre.workdir=${worktreeId}`);
  const out = engineCli(project, ['ps', '-q', ...filters]).trim();
  return out === '' ? null : (out.split('\n')[0] ?? null);
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function tryCli(project: Pick<TestProject, 'flavor'>, args: string[]): string {
  try {
    return engineCli(project as TestProject, args);
  } catch {
    return '';
  }
}

/** Everything test-made on one engine as one flavor: containers, images, volumes. */
export function testObjects(flavor: Flavor): {
  containers: string[];
  images: string[];
  volumes: string[];
} {
  const p = { flavor };
  const containers = [
    ...lines(tryCli(p, ['ps', '-aq', '--filter', 'label=byre.test'])),
    ...lines(tryCli(p, ['ps', '-a', '--format', '{{.ID}} {{.Names}} {{.Labels}}']))
      .filter((l) => l.includes('byretest'))
      .map((l) => l.split(' ')[0] ?? ''),
  ];
  const images = [
    ...lines(tryCli(p, ['images', '-q', '--filter', 'label=byre.test'])),
    ...lines(tryCli(p, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).filter((l) =>
      l.includes('byretest'),
    ),
    ...projectImagesWhere(p, (id) => id.includes('byretest')),
  ];
  const volumes = [
    ...lines(tryCli(p, ['volume', 'ls', '-q', '--filter', 'label=byre.test'])),
    ...lines(tryCli(p, ['volume', 'ls', '-q'])).filter((v) => v.includes('byretest')),
  ];
  return {
    containers: [...new Set(containers)],
    images: [...new Set(images)],
    volumes: [...new Set(volumes)],
  };
}

/** Images, tagged or not, whose byre.project label passes `keep`. */
function projectImagesWhere(p: { flavor: Flavor }, keep: (projectId: string) => boolean): string[] {
  const labelled = lines(tryCli(p, ['images', '-a', '-q', '--filter', 'label=byre.project']));
  if (labelled.length === 0) return [];
  let out: string;
  try {
    out = engineCli(p as TestProject, [
      'image',
      'inspect',
      '--format',
      '{{.Id}} {{index .Config.Labels "byre.project"}}',
      ...new Set(labelled),
    ]);
  } catch (e) {
    // One image gone since the listing fails the call; the others still answered.
    out = String((e as { stdout?: unknown }).stdout ?? '');
  }
  const rows = lines(out);
  return rows.flatMap((row) => {
    const [id, projectId] = row.split(' ');
    return id !== undefined && projectId !== undefined && keep(projectId) ? [id] : [];
  });
}

export function sweepTestObjects(flavor: Flavor | EngineName): void {
  const f = asFlavor(flavor);
  const p = { flavor: f };
  const { containers, images, volumes } = testObjects(f);
  if (containers.length) tryCli(p, ['rm', '-f', ...containers]);
  if (images.length) tryCli(p, ['rmi', '-f', ...images]);
  if (volumes.length) tryCli(p, ['volume', 'rm', '-f', ...volumes]);
}

/** Removes everything one project made on its engine: for afterEach, failure paths included. */
export function cleanupProject(project: TestProject): void {
  const p = { flavor: project.flavor };
  // The helpers beside its box (the wall's, the edge's): a byre killed
  // mid-session (a failed test) leaves them, and they carry no project label.
  // Both are named for the box by the same hash, so one look finds them.
  // podman removes in dependency order: the wall's helper (in the box's
  // network) first, then the box, then the edge (whose network the box joins).
  const box = containerName(project.id);
  const hash = wallHelperName(box).slice(wallHelperName(box).lastIndexOf('-') + 1);
  const helpers = lines(
    tryCli(p, ['ps', '-a', '--filter', `name=${hash}`, '--format', '{{.Names}}']),
  );
  if (helpers.includes(wallHelperName(box))) tryCli(p, ['rm', '-f', wallHelperName(box)]);
  const ids = lines(tryCli(p, ['ps', '-aq', '--filter', `label=byre.project=${project.id}`]));
  if (ids.length) tryCli(p, ['rm', '-f', ...ids]);
  if (helpers.includes(edgeHelperName(box))) tryCli(p, ['rm', '-f', edgeHelperName(box)]);
  const images = [
    ...lines(tryCli(p, ['images', '--format', '{{.Repository}}:{{.Tag}}'])).filter((i) =>
      i.includes(project.id),
    ),
    // A rebuild leaves the image it superseded untagged, still labelled.
    ...projectImagesWhere(p, (id) => id === project.id),
  ];
  if (images.length) tryCli(p, ['rmi', '-f', ...images]);
  const vols = lines(tryCli(p, ['volume', 'ls', '-q'])).filter((v) => v.includes(project.id));
  if (vols.length) tryCli(p, ['volume', 'rm', '-f', ...vols]);
  project.cleanup();
}

/** Installs the fixture agent skill `testagent` as a local skill in the project's store. */
export function installTestAgent(project: TestProject): void {
  const dest = join(project.home, 'skills', 'testagent');
  mkdirSync(dest, { recursive: true });
  for (const file of ['skill.toml', 'testagent']) {
    const src = resolve('test/fixtures/skills/testagent', file);
    execFileSync('cp', ['-p', src, join(dest, file)]);
  }
  if (project.flavor.user !== null) {
    const ids = userIds(project.flavor.user);
    chownTree(project.home, ids.uid, ids.gid);
  }
}

/** A directory the project's flavor (root or the test user) owns, for byre to write into. */
export function makeOwnedDir(project: TestProject, dir: string): string {
  mkdirSync(dir, { recursive: true });
  if (project.flavor.user !== null) {
    const ids = userIds(project.flavor.user);
    chownTree(dir, ids.uid, ids.gid);
  }
  return dir;
}

/**
 * Per-file bookkeeping for engine tests: every project and background
 * session made through the scope is killed and removed after each test
 * (`each`), or once after the file's last test (`all`, for tests that share a
 * box), failure paths included.
 */
export function testScope(when: 'each' | 'all' = 'each'): {
  project(flavor: Flavor | EngineName, name?: string): TestProject;
  start(project: TestProject, args: string[], options?: RunOptions): BackgroundSession;
} {
  const projects: TestProject[] = [];
  const sessions: BackgroundSession[] = [];
  (when === 'each' ? afterEach : afterAll)(async () => {
    for (const s of sessions.splice(0)) await s.kill();
    for (const p of projects.splice(0)) cleanupProject(p);
  });
  return {
    project(flavor, name) {
      const p = makeProject(flavor, name);
      projects.push(p);
      return p;
    },
    start(project, args, options) {
      const s = startByre(project, args, options);
      sessions.push(s);
      return s;
    },
  };
}

/**
 * The build cache kept for a whole engine run. Every test project's build
 * starts with the same layers (the base, the core block's apt-get of gosu
 * and git, the chassis files); a test's cleanup removes its image and, with it, every
 * layer no other image holds, so without a holder each build re-ran them from
 * the base (apt-get over the network; 20 s and more as rootless podman). One
 * default project per flavour, built once per run by this very dist/byre and
 * kept until the tier's teardown (`removeBuildCaches`), holds those layers;
 * builds still run every step, each engine answering from its own cache as it
 * would on a user's machine with a second project.
 */
const CACHE_PREFIX = 'byretest-cache-';
const warmedFlavors = new Set<string>();

function cacheRoot(): string {
  // Keyed by the binary under test: a leftover from a run of another build
  // can only miss the cache, never stand in for this build's layers.
  const st = statSync(BYRE_BIN);
  const stamp = createHash('sha256').update(`${st.size}:${st.mtimeMs}`).digest('hex').slice(0, 8);
  return join(realpathSync(tmpdir()), `${CACHE_PREFIX}${stamp}`);
}

function cacheName(flavor: Flavor): string {
  return `${flavor.engine}${flavor.user === null ? '' : `-${flavor.user}`}`;
}

export function warmBuildCache(flavor: Flavor): void {
  const name = cacheName(flavor);
  if (warmedFlavors.has(name)) return;
  warmedFlavors.add(name);
  const root = join(cacheRoot(), name);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  // The project dir's name puts `byretest` in the id, so the tier's sweep takes the image.
  const project = projectIn(flavor, root, `byretest-${name}`);
  const held = tryCli(project, ['images', '-q', '--filter', `label=byre.project=${project.id}`]);
  if (held.trim() !== '') return;
  project.writeConfig('');
  const r = runByre(project, ['rebuild']);
  if (r.status !== 0) {
    // Only time is lost: every test builds what it needs on its own.
    process.stderr.write(
      `engine tier: building the ${flavor.label} build cache failed:\n${r.stderr.slice(-2000)}\n`,
    );
  }
}

/**
 * The build caches' directories of these flavours (their images go with the
 * tier's sweep). Only this run's own: another lane's run may still build from
 * its caches (adr/0060).
 */
export function removeBuildCaches(flavors: Flavor[]): void {
  const root = cacheRoot();
  for (const flavor of flavors) {
    rmSync(join(root, cacheName(flavor)), { recursive: true, force: true });
  }
  try {
    rmdirSync(root);
  } catch {
    // another lane's caches are still in it, or it was never made
  }
}

/**
 * A `podman` first on PATH that records each call's arguments, then runs the
 * real one: what a byre run asked podman. It lives beside the project (not in
 * it, where the box could write), and goes with the project's directory.
 * `native` compiles it (bun) instead of writing a script: byre trusts
 * podman's monitors only for a native client (adr/0044).
 */
export function podmanRecorder(
  project: TestProject,
  options: { native?: boolean } = {},
): {
  env: Record<string, string>;
  calls(): string[];
} {
  const real = execFileSync('sh', ['-c', 'command -v podman'], { encoding: 'utf8' }).trim();
  const bin = join(project.root, 'bin');
  mkdirSync(bin, { mode: 0o755 });
  const log = join(bin, 'calls.log');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  if (options.native === true) {
    const src = join(bin, 'recorder.ts');
    writeFileSync(
      src,
      [
        "import { appendFileSync } from 'node:fs';",
        'const args = process.argv.slice(2);',
        `appendFileSync(${JSON.stringify(log)}, args.join(' ') + '\\n');`,
        `const r = Bun.spawnSync({ cmd: [${JSON.stringify(real)}, ...args], stdio: ['inherit', 'inherit', 'inherit'] });`,
        'process.exit(r.exitCode ?? 1);',
        '',
      ].join('\n'),
    );
    execFileSync(
      resolve('node_modules/.bin/bun'),
      ['build', '--compile', src, '--outfile', join(bin, 'podman')],
      { stdio: 'ignore' },
    );
  } else {
    writeFileSync(
      join(bin, 'podman'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
  }
  return {
    env: { PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` },
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('ps ')),
  };
}

/** Live `conmon` processes on the host, for a failure message: any one of them keeps podman asked. */
export function liveMonitors(): string {
  return execFileSync(
    'sh',
    ['-c', 'ps -eo pid,user,stat,comm | grep -w conmon | grep -v " Z" || true'],
    { encoding: 'utf8' },
  );
}

/**
 * The deliver/grab memo of podman boxes (adr/0044) that the tier's byre runs
 * left in the runtime directories of root and the test user.
 */
export function removeTransferMemos(flavors: Flavor[]): void {
  // Only these flavours' users: another lane's run may still read its own.
  const uids = new Set(
    flavors
      .filter((f) => f.engine === 'podman')
      .map((f) => (f.user === null ? (process.getuid?.() ?? 0) : userIds(f.user).uid)),
  );
  for (const uid of uids) {
    for (const dir of [`/tmp/byre-${uid}`, `/run/user/${uid}/byre`]) {
      rmSync(join(dir, 'podman-boxes'), { force: true });
    }
  }
}
