// Shared plumbing for the benchmarks: which engines answer, a timed-command
// environment without NODE_EXTRA_CA_CERTS (it costs ~80 ms per node start on
// these machines, and byre's binary is not node), and medians.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const byre = path.resolve('dist/byre');

export const env = { ...process.env, BYRE_ALLOW_ROOT: '1' };
delete env.NODE_EXTRA_CA_CERTS;

export function answers(engine) {
  try {
    execFileSync(engine, ['info'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

export const enginesUp = () => ['docker', 'podman'].filter(answers);

/** Runs a command to success in the timing environment; returns stdout. */
export function run(file, args, options = {}) {
  const r = spawnSync(file, args, {
    encoding: 'utf8',
    ...options,
    env: { ...env, ...options.env },
  });
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Milliseconds one call of fn takes. */
export function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A throwaway project and store for one engine: { root, project, home, opts }. */
export function benchProject(engine) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'byretest-bench-')));
  const project = path.join(root, 'proj');
  const home = path.join(root, 'home');
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(path.join(home, 'default.config'), `engine = "${engine}"\n`);
  return { root, project, home, opts: { cwd: project, env: { BYRE_HOME: home } } };
}
