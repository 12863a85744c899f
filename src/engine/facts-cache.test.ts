import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { storeProbeCache, type CacheLookup } from './facts-cache.js';
import { encodeEntry } from './facts-key.js';

// Real files: a native executable (a copy of `true`) stands for the engine
// CLI, and a unix socket this test listens on stands for the daemon's.

let root: string;
let home: string;
let engine: string;
let sock: string;
const servers: Server[] = [];

const TRUE = ['/usr/bin/true', '/bin/true'].find((p) => existsSync(p)) ?? '/bin/true';

useTempDir('facts-cache', (tmp) => {
  root = tmp;
  home = path.join(root, 'home');
  mkdirSync(home);
  engine = path.join(root, 'bin', 'docker');
  mkdirSync(path.dirname(engine));
  copyFileSync(TRUE, engine);
  sock = path.join(root, 'd.sock');
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(at: string): Promise<Server> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at, resolve));
  return server;
}

/** A daemon restart: the old socket goes and a new one is made at the same path. */
async function restart(server: Server): Promise<void> {
  await new Promise((r) => server.close(r));
  rmSync(sock, { force: true });
  await listen(sock);
}

const dockerEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  HOME: root,
  DOCKER_HOST: `unix://${sock}`,
  ...extra,
});

function expectKind(l: CacheLookup, kind: CacheLookup['kind']): CacheLookup {
  expect(l.kind).toBe(kind);
  return l;
}

/** Looks up, stores `answer` on a miss, and looks up again. */
function remember(
  env: Record<string, string>,
  probe: 'docker-info' | 'podman-version',
  answer: string,
  uid = 0,
): void {
  const l = expectKind(storeProbeCache(home, env, uid).lookup(probe, engine), 'miss');
  if (l.kind === 'miss') l.store(answer);
  expect(storeProbeCache(home, env, uid).lookup(probe, engine)).toEqual({ kind: 'hit', answer });
}

/** Every file of the store named `probe`, wherever the cache keeps it. */
function cacheFiles(probe: string): string[] {
  return readdirSync(home, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === probe)
    .map((f) => path.join(home, f));
}

/** The one cache file of `probe`, once an answer is stored. */
function cacheFile(probe = 'docker-info'): string {
  const [only, ...rest] = cacheFiles(probe);
  expect(rest).toEqual([]);
  if (only === undefined) throw new Error(`no ${probe} file in the store`);
  return only;
}

const lookup = (
  env: Record<string, string>,
  probe: 'docker-info' | 'podman-version' = 'docker-info',
  uid = 0,
): CacheLookup => storeProbeCache(home, env, uid).lookup(probe, engine);

describe('storeProbeCache: docker info', () => {
  it('remembers the answer in the store, private', async () => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    const file = cacheFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('a restarted daemon (a new socket at the same path) misses', async () => {
    const server = await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=true');
    await restart(server);
    expectKind(lookup(dockerEnv()), 'miss');
  });

  it('a changed or replaced engine CLI misses', async () => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    utimesSync(engine, new Date(0), new Date(0));
    expectKind(lookup(dockerEnv()), 'miss');
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    const next = `${engine}.new`;
    copyFileSync(TRUE, next);
    renameSync(next, engine);
    expectKind(lookup(dockerEnv()), 'miss');
  });

  it.each([
    ['another DOCKER_CONFIG', { DOCKER_CONFIG: '/elsewhere' }],
    ['another docker variable', { DOCKER_TLS_VERIFY: '1' }],
    ['a podman variable', { CONTAINER_HOST: 'unix:///x' }],
    ['another HOME', { HOME: '/' }],
    ['another XDG_RUNTIME_DIR', { XDG_RUNTIME_DIR: '/run/user/5' }],
  ])('%s misses', async (_what, extra) => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    expectKind(lookup(dockerEnv(extra)), 'miss');
  });

  it('another user misses', async () => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false', 0);
    expectKind(lookup(dockerEnv(), 'docker-info', 1000), 'miss');
  });

  it.each([
    ['a tcp daemon', { DOCKER_HOST: 'tcp://127.0.0.1:2375' }],
    ['an ssh daemon', { DOCKER_HOST: 'ssh://me@host' }],
    ['a named context', { DOCKER_HOST: '', DOCKER_CONTEXT: 'colima' }],
  ])('%s is never cached', (_what, extra) => {
    expectKind(lookup(dockerEnv(extra)), 'uncached');
  });

  it('a config.json on a named context is never cached; on the default one it is keyed', () => {
    mkdirSync(path.join(root, '.docker'));
    const cfg = path.join(root, '.docker', 'config.json');
    writeFileSync(cfg, '{"currentContext":"colima"}');
    expectKind(lookup({ HOME: root }), 'uncached');
    writeFileSync(cfg, '{"currentContext":"default"}');
    // Keyed on the default socket: cached exactly when one is there.
    const want = existsSync('/var/run/docker.sock') ? 'miss' : 'uncached';
    expectKind(lookup({ HOME: root }), want);
  });

  it('no socket, or a file that is not a socket, is never cached', () => {
    expectKind(lookup(dockerEnv()), 'uncached');
    writeFileSync(sock, '');
    expectKind(lookup(dockerEnv()), 'uncached');
  });

  it('a script engine is never cached: its answer can come from anywhere', async () => {
    await listen(sock);
    writeFileSync(engine, '#!/bin/sh\necho "[]"\n');
    expectKind(lookup(dockerEnv()), 'uncached');
  });

  it('an answer whose key moved while the probe ran is not kept', async () => {
    const server = await listen(sock);
    const l = expectKind(lookup(dockerEnv()), 'miss');
    await restart(server);
    if (l.kind === 'miss') l.store('rootless=false');
    expect(cacheFiles('docker-info')).toEqual([]);
  });

  it('never creates the store', async () => {
    await listen(sock);
    rmSync(home, { recursive: true });
    const l = lookup(dockerEnv());
    if (l.kind === 'miss') l.store('rootless=false');
    expect(existsSync(home)).toBe(false);
  });

  it('keeps only well-formed answers', async () => {
    await listen(sock);
    const l = expectKind(lookup(dockerEnv()), 'miss');
    if (l.kind === 'miss') l.store('rootless=maybe');
    expectKind(lookup(dockerEnv()), 'miss');
  });
});

describe('storeProbeCache: the cache file is read like every store file', () => {
  const file = (): string => cacheFile();
  /** The key a stored entry carries, read back from a real store. */
  const storedKey = (): string => readFileSync(file(), 'utf8').split('\n')[1] ?? '';

  it.each([
    ['a symbolic link', (target: string, at: string) => symlinkSync(target, at)],
    ['a FIFO', (_target: string, at: string) => execFileSync('mkfifo', [at])],
  ])('%s there is no answer (and no wait)', async (_what, plant) => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=true');
    const at = file();
    const good = `${at}.good`;
    renameSync(at, good);
    plant(good, at);
    expectKind(lookup(dockerEnv()), 'miss');
  });

  it('an entry with a malformed answer under the right key is no answer', async () => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    writeFileSync(file(), encodeEntry(storedKey(), 'rootless=yes'));
    expectKind(lookup(dockerEnv()), 'miss');
  });

  it('an oversized entry is no answer', async () => {
    await listen(sock);
    remember(dockerEnv(), 'docker-info', 'rootless=false');
    writeFileSync(file(), encodeEntry(storedKey(), 'rootless=false') + ' '.repeat(2048));
    expectKind(lookup(dockerEnv()), 'miss');
  });
});

describe('storeProbeCache: podman --version', () => {
  it('is keyed on the CLI alone: a changed binary misses, the daemon is not asked about', () => {
    remember({}, 'podman-version', '4.3.1');
    expect(lookup({ CONTAINER_HOST: 'unix:///elsewhere' }, 'podman-version')).toEqual({
      kind: 'hit',
      answer: '4.3.1',
    });
    utimesSync(engine, new Date(0), new Date(0));
    expectKind(lookup({}, 'podman-version'), 'miss');
  });

  it('a script podman is never cached', () => {
    writeFileSync(engine, '#!/bin/sh\necho podman version 9.9.9\n');
    expectKind(lookup({}, 'podman-version'), 'uncached');
  });

  it('no uid, no cache', () => {
    expect(storeProbeCache(home, {}, undefined).lookup('podman-version', engine).kind).toBe(
      'uncached',
    );
  });
});
