// Shared plumbing for the benchmarks: the engine flavours that answer, running
// a command as a flavour (root, or the unprivileged user for rootless podman)
// in a timing environment without NODE_EXTRA_CA_CERTS (it costs ~80 ms per
// node start on these machines, and byre's binary is not node), interleaved
// timing, throwaway projects, and the sweep of everything one run made.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The environment timed commands start from. */
export const timingEnv = { ...process.env, BYRE_ALLOW_ROOT: '1' };
delete timingEnv.NODE_EXTRA_CA_CERTS;

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall-clock now in ms with sub-ms precision, comparable to a box's `date +%s%N`. */
export const wallMs = () => performance.timeOrigin + performance.now();

const rootFlavour = (engine) => ({ key: engine, engine, user: null, label: engine });

/** The flavours that answer: docker and podman as root, rootless podman as `user`. */
export function flavoursUp(user) {
  const up = ['docker', 'podman'].map(rootFlavour).filter((f) => answers(f));
  if (user !== null && userIds(user) !== null) {
    const rootless = {
      key: 'rootless',
      engine: 'podman',
      user,
      label: `podman rootless as ${user}`,
    };
    if (answers(rootless)) up.push(rootless);
  }
  return up;
}

function answers(flavour) {
  return (
    spawnSync(...as(flavour, flavour.engine, ['info']), { stdio: 'ignore', timeout: 30_000 })
      .status === 0
  );
}

/** { uid, gid, home } of a user, or null when there is no such user. */
export function userIds(user) {
  const r = spawnSync('getent', ['passwd', user], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const f = r.stdout.trim().split(':');
  return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] ?? '/' };
}

/**
 * [file, argv, options] running `file args` as the flavour. The unprivileged
 * user gets a clean environment (HOME, PATH, TERM and `extra`) through
 * setpriv, which execs rather than forks, so the wrapper costs ~2 ms.
 */
function as(flavour, file, args, extra = {}) {
  if (flavour.user === null) return [file, args, { env: { ...timingEnv, ...extra } }];
  const ids = userIds(flavour.user);
  const pairs = Object.entries({
    HOME: ids.home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(process.env.TERM ? { TERM: process.env.TERM } : {}),
    ...extra,
  }).map(([k, v]) => `${k}=${v}`);
  return [
    'setpriv',
    [
      `--reuid=${ids.uid}`,
      `--regid=${ids.gid}`,
      '--init-groups',
      'env',
      '-i',
      ...pairs,
      file,
      ...args,
    ],
    { env: timingEnv },
  ];
}

/**
 * Runs a command as the flavour to success; returns stdout. `options.env`
 * adds variables, `options.input` feeds stdin, `options.stdio` overrides.
 */
export function run(flavour, file, args, options = {}) {
  const [f, a, o] = as(flavour, file, args, options.env);
  const r = spawnSync(f, a, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    cwd: options.cwd,
    input: options.input ?? '',
    ...(options.stdio ? { stdio: options.stdio } : {}),
    env: o.env,
  });
  if (r.status !== 0) {
    throw new Error(`${file} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr ?? ''}`);
  }
  return r.stdout ?? '';
}

/** The same as `run` but never throws: for cleanup. */
export function tryRun(flavour, file, args, options = {}) {
  try {
    return run(flavour, file, args, options);
  } catch {
    return '';
  }
}

/** Starts a command as the flavour in the background with stdin held open. */
export function start(flavour, file, args, options = {}) {
  const [f, a, o] = as(flavour, file, args, options.env);
  const child = spawn(f, a, { cwd: options.cwd, env: o.env, stdio: 'pipe' });
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

/**
 * Milliseconds one call of fn takes. fn may return its own measure instead:
 * a number of ms, or an object of named ms to which `wall` is added.
 */
export function time(fn) {
  const t0 = wallMs();
  const own = fn();
  const wall = wallMs() - t0;
  if (typeof own === 'number') return own;
  if (own !== null && typeof own === 'object') return { ...own, wall };
  return wall;
}

/**
 * Samples of each side over `runs` rounds, after one untimed warm-up round
 * unless `warmup` is false.
 * Sides are interleaved (one call each per round) and the order rotates each
 * round, so the machine's drift and any order effect hit every side alike;
 * `reset` (untimed) runs before each call. Returns { side: ms[] }.
 */
export function interleave(sides, runs, reset = () => {}, warmup = true) {
  const names = Object.keys(sides);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = warmup ? -1 : 0; round < runs; round++) {
    const shift = Math.max(round, 0) % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
      reset();
      const ms = time(sides[name]);
      if (round >= 0) samples[name].push(ms);
    }
  }
  return samples;
}

/** A directory (and its tree) the flavour's user owns. */
export function ownedDir(flavour, dir) {
  mkdirSync(dir, { recursive: true });
  if (flavour.user !== null) chownTree(dir, userIds(flavour.user));
  return dir;
}

function chownTree(p, ids) {
  chownSync(p, ids.uid, ids.gid);
  if (statSync(p).isDirectory()) for (const e of readdirSync(p)) chownTree(path.join(p, e), ids);
}

/**
 * A project for one binary under `root`, with its own store pinned to the
 * flavour's engine: { dir, home }. The project id is the slug of `<side>`
 * and root's name, so it carries the run's tag and the sweep finds it.
 */
export function benchProject(flavour, root, side) {
  const dir = path.join(root, side);
  const home = path.join(root, `home-${side}`);
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(home, 'default.config'), `engine = "${flavour.engine}"\n`);
  ownedDir(flavour, dir);
  ownedDir(flavour, home);
  return { dir, home };
}

const lines = (text) =>
  text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Whether a name or label carries the run's tag (`byretest-bench-<hex>`):
 * whole, or cut short where byre caps a project id's readable part at 40
 * characters (`<side>-<tag>-<flavour>` keeps the tag's start, at least one
 * hex digit of it, and the id ends `-<6 hex>`).
 */
export function carriesTag(text, tag) {
  if (text.includes(tag)) return true;
  const m = /^(byretest-bench-)([0-9a-f]+)$/.exec(tag);
  if (m === null) return false;
  for (let n = m[2].length - 1; n >= 1; n--) {
    if (new RegExp(`${m[1]}${m[2].slice(0, n)}-[0-9a-f]{6}(?![0-9a-z])`).test(text)) return true;
  }
  return false;
}

/** Every container, image and volume on the flavour's engine whose name or labels carry `tag`. */
export function leftovers(flavour, tag) {
  const cli = (args) => lines(tryRun(flavour, flavour.engine, args));
  return {
    containers: cli(['ps', '-a', '--format', '{{.ID}} {{.Names}} {{.Labels}}'])
      .filter((l) => carriesTag(l, tag))
      .map((l) => l.split(' ')[0]),
    images: [
      ...cli(['images', '--format', '{{.Repository}}:{{.Tag}}']).filter((l) => carriesTag(l, tag)),
      ...labelledImages(flavour, tag),
    ],
    volumes: cli(['volume', 'ls', '-q']).filter((v) => carriesTag(v, tag)),
  };
}

/** Ids of images whose byre.project label carries `tag`: a rebuild leaves the old one untagged. */
function labelledImages(flavour, tag) {
  const ids = lines(
    tryRun(flavour, flavour.engine, ['images', '-q', '--filter', 'label=byre.project']),
  );
  if (ids.length === 0) return [];
  const format = '{{.Id}} {{index .Config.Labels "byre.project"}}';
  return lines(
    tryRun(flavour, flavour.engine, ['image', 'inspect', '--format', format, ...new Set(ids)]),
  )
    .filter((l) => carriesTag(l, tag))
    .map((l) => l.split(' ')[0]);
}

/**
 * Removes what `leftovers` finds, trying again while something is still
 * there (a box on its way out of `run --rm` can refuse removal for a moment);
 * returns what was left after the last try.
 */
export function sweep(flavour, tag, tries = 5) {
  for (let i = 1; ; i++) {
    const { containers, images, volumes } = leftovers(flavour, tag);
    if (containers.length + images.length + volumes.length === 0 || i > tries) {
      return { containers, images, volumes };
    }
    if (i > 1) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    if (containers.length) tryRun(flavour, flavour.engine, ['rm', '-f', ...containers]);
    if (images.length) tryRun(flavour, flavour.engine, ['rmi', '-f', ...images]);
    if (volumes.length) tryRun(flavour, flavour.engine, ['volume', 'rm', '-f', ...volumes]);
  }
}

/** One-line engine version for the report header. */
export function engineVersion(flavour) {
  const ask = (format) => tryRun(flavour, flavour.engine, ['version', '--format', format]).trim();
  if (flavour.engine === 'podman') return ask('{{.Version}}') || 'unknown';
  const server = ask('{{.Server.Version}}') || 'unknown';
  const client = ask('{{.Client.Version}}');
  return client === '' || client === server ? server : `${server}, client ${client}`;
}

/** The short commit of the git checkout holding `dir`, with `-dirty` when it has changes. */
export function commitOf(dir) {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? head : `${head}-dirty`;
  } catch {
    return 'unknown';
  }
}
