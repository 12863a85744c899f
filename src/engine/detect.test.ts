import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import { ByreError, EngineError, RefusedError } from '../errors.js';
import { detectEngine, judgeRootlessProbe, localPodmanRootless } from './detect.js';
import type { ProbeCache } from './facts-cache.js';
import type { CachedProbe } from './facts-key.js';
import { ShadowedToolError, resolveHostTool } from './host-tools.js';
import type { Captured } from './spawn.js';

// Planted engine CLIs: shell scripts that answer `info` and `--version` from
// environment variables and log their argv, so detection runs its real spawn
// path against engines whose answers each test controls.

// Scripts must not find the machine's real engines, so PATH holds only the
// planted dirs and the one external command they need is pinned absolutely.
const sleepTool = resolveHostTool('sleep', { declinedRoots: [], env: process.env });
const SLEEP = sleepTool.kind === 'found' ? sleepTool.path : '/bin/sleep';

let root: string;
let bin: string;
let log: string;

// LOG_LAST names a first argument whose call logs only after another call
// has: it forces an arrival order without timing.
const script = (name: string): string => `#!/bin/sh
if [ "$1" = "$LOG_LAST" ]; then until [ -s "$FAKE_LOG" ]; do ${SLEEP} 0.01; done; fi
echo "${name} $*" >> "$FAKE_LOG"
case "$1" in
  info)
    [ -n "$${name.toUpperCase()}_SLEEP" ] && exec ${SLEEP} "$${name.toUpperCase()}_SLEEP"
    if [ -n "$${name.toUpperCase()}_TRAP_SLEEP" ]; then
      ${SLEEP} "$${name.toUpperCase()}_TRAP_SLEEP" >/dev/null 2>&1 & pid=$!
      trap 'kill $pid; echo "caught SIGTERM" >&2; exit 0' TERM
      wait $pid
    fi
    if [ -n "$${name.toUpperCase()}_EMPTY_ONCE" ] && [ ! -e "$${name.toUpperCase()}_EMPTY_ONCE" ]; then
      : > "$${name.toUpperCase()}_EMPTY_ONCE"; echo; exit 0
    fi
    if [ -n "$${name.toUpperCase()}_INFO_ERR" ]; then echo "$${name.toUpperCase()}_INFO_ERR" >&2; exit 1; fi
    printf '%s\\n' "$${name.toUpperCase()}_INFO"
    ;;
  --version) printf '%s\\n' "$${name.toUpperCase()}_VERSION" ;;
esac
`;

function plantEngine(dir: string, name: 'docker' | 'podman'): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, script(name));
  chmodSync(p, 0o755);
  return p;
}

function env(extra: Record<string, string>, pathDirs: string[] = [bin]): Record<string, string> {
  return {
    PATH: pathDirs.join(':'),
    FAKE_LOG: log,
    DOCKER_INFO: '["name=seccomp,profile=default"]',
    DOCKER_VERSION: 'Docker version 28.2.2, build e6534b4',
    PODMAN_INFO: 'false',
    PODMAN_VERSION: 'podman version 4.3.1',
    ...extra,
  };
}

useTempDir('detect', (tmp) => {
  root = tmp;
  bin = path.join(root, 'bin');
  log = path.join(root, 'calls.log');
  writeFileSync(log, '');
});

/** The planted engines' calls, sorted: detection asks in parallel, so arrival order is not a fact. */
function loggedCalls(): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/** The stub engines here answer `info`; probe it even where the uid would answer. */
const detect = (...args: Parameters<typeof detectEngine>): ReturnType<typeof detectEngine> =>
  detectEngine(args[0], args[1], args[2], { alwaysProbeRootless: true, ...args[3] });

describe('detectEngine', () => {
  it('auto picks an answering docker and pins its absolute path, asking only info', async () => {
    const docker = plantEngine(bin, 'docker');
    plantEngine(bin, 'podman');
    const facts = await detect('auto', [], env({}));
    expect(facts).toEqual({
      name: 'docker',
      path: docker,
      rootless: false,
      keepId: false,
      version: '',
      warnings: [],
    });
    expect(readFileSync(log, 'utf8')).toBe('docker info --format {{json .SecurityOptions}}\n');
  });

  it.each(['info', '--version'])(
    'a podman that may be rootless is asked info and --version in parallel (%s arriving last)',
    async (last) => {
      plantEngine(bin, 'podman');
      const facts = await detect('podman', [], env({ PODMAN_INFO: 'true', LOG_LAST: last }));
      expect(facts).toMatchObject({ rootless: true, keepId: true, version: '4.3.1' });
      // Exactly these two, in either order.
      expect(loggedCalls()).toEqual([
        'podman --version',
        'podman info --format {{.Host.Security.Rootless}}',
      ]);
    },
  );

  it('asks the version too when told to (doctor shows it)', async () => {
    plantEngine(bin, 'docker');
    const facts = await detect('docker', [], env({}), { version: true });
    expect(facts.version).toBe('28.2.2');
    expect(readFileSync(log, 'utf8')).toContain('docker --version\n');
  });

  it.runIf(process.getuid?.() === 0)(
    'a local rootful podman is asked nothing: root runs it, and its version decides nothing',
    async () => {
      plantEngine(bin, 'podman');
      const facts = await detectEngine('podman', [], env({}), {});
      expect(facts).toMatchObject({ name: 'podman', rootless: false, keepId: false, version: '' });
      expect(readFileSync(log, 'utf8')).toBe('');
    },
  );

  it('health (doctor) asks every engine for real, podman through its runtime, remembering nothing', async () => {
    plantEngine(bin, 'docker');
    plantEngine(bin, 'podman');
    const { cache, lookups } = memoryCache({ 'docker-info': 'rootless=true' });
    // No alwaysProbeRootless: not even a local rootful podman is answered from the uid.
    const podman = await detectEngine('podman', [], env({}), { health: true, cache });
    const docker = await detectEngine('docker', [], env({}), { health: true, cache });
    expect([podman.version, docker.version, docker.rootless]).toEqual(['4.3.1', '28.2.2', false]);
    expect(lookups).toEqual([]);
    expect(loggedCalls()).toEqual([
      'docker --version',
      'docker info --format {{json .SecurityOptions}}',
      'podman --version',
      'podman info --format {{.Host.Security.Rootless}}{{with .Host.OCIRuntime.Name}}{{end}}',
    ]);
  });

  it('health refuses an engine whose info fails, keeping its own words', async () => {
    plantEngine(bin, 'podman');
    const failing = env({
      PODMAN_INFO_ERR: 'Error: default OCI runtime "nosuchruntime" not found: invalid argument',
    });
    const error = await detectEngine('podman', [], failing, { health: true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).stderr).toContain(
      'default OCI runtime "nosuchruntime" not found',
    );
  });

  it('auto falls back to podman when docker does not answer', async () => {
    plantEngine(bin, 'docker');
    const podman = plantEngine(bin, 'podman');
    const facts = await detect(
      'auto',
      [],
      env({
        DOCKER_INFO_ERR:
          'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      }),
    );
    expect(facts).toMatchObject({
      name: 'podman',
      path: podman,
      rootless: false,
      keepId: false,
      version: '4.3.1',
    });
  });

  it('auto treats a hung docker as not answering (short timeout)', async () => {
    plantEngine(bin, 'docker');
    plantEngine(bin, 'podman');
    const facts = await detect('auto', [], env({ DOCKER_SLEEP: '5' }), {
      probeTimeoutMs: 300,
    });
    expect(facts.name).toBe('podman');
  });

  it('auto with only a silent docker reports docker unreachable', async () => {
    plantEngine(bin, 'docker');
    await expect(
      detect('auto', [], env({ DOCKER_INFO_ERR: 'Cannot connect to the Docker daemon' })),
    ).rejects.toMatchObject({ name: 'EngineError', rule: 'engine.unreachable', engine: 'docker' });
  });

  it('auto with neither engine is engine.none', async () => {
    const err = await detect('auto', [], env({})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ByreError);
    expect((err as ByreError).rule).toBe('engine.none');
  });

  it('auto never reads a shadowed docker as absent: it refuses instead of trying podman', async () => {
    const work = path.join(root, 'work');
    const shadow = plantEngine(path.join(work, 'bin'), 'docker');
    plantEngine(bin, 'podman');
    const err = await detect('auto', [work], env({}, [path.join(work, 'bin'), bin])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ShadowedToolError);
    expect(err).toBeInstanceOf(RefusedError);
    expect(err).toMatchObject({
      rule: 'hosttool.declined',
      tool: 'docker',
      path: shadow,
      root: work,
    });
    expect(loggedCalls()).toEqual([]);
  });

  it('auto refuses a shadowed podman when docker is absent', async () => {
    const store = path.join(root, 'store');
    plantEngine(store, 'podman');
    await expect(detect('auto', [store], env({}, [store]))).rejects.toBeInstanceOf(
      ShadowedToolError,
    );
  });

  it('explicit docker refuses when shadowed and is absent when missing', async () => {
    await expect(detect('docker', [], env({}))).rejects.toMatchObject({
      rule: 'hosttool.absent',
    });
    const work = path.join(root, 'work');
    plantEngine(work, 'docker');
    await expect(detect('docker', [work], env({}, [work]))).rejects.toBeInstanceOf(
      ShadowedToolError,
    );
  });

  it('explicit podman ignores a working docker', async () => {
    plantEngine(bin, 'docker');
    const podman = plantEngine(bin, 'podman');
    expect((await detect('podman', [], env({}))).path).toBe(podman);
    expect(readFileSync(log, 'utf8')).not.toContain('docker');
  });

  it.each(['4.3.1', '4.9.0', '5.0.2'])('rootless podman %s gets keep-id', async (version) => {
    plantEngine(bin, 'podman');
    const facts = await detect(
      'podman',
      [],
      env({ PODMAN_INFO: 'true', PODMAN_VERSION: `podman version ${version}` }),
    );
    expect(facts).toMatchObject({ rootless: true, keepId: true, version, warnings: [] });
  });

  it('refuses rootless podman older than 4.3', async () => {
    plantEngine(bin, 'podman');
    const err = await detect(
      'podman',
      [],
      env({ PODMAN_INFO: 'true', PODMAN_VERSION: 'podman version 4.2.0' }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as RefusedError).rule).toBe('engine.rootless-podman-old');
  });

  it('BYRE_ALLOW_ROOTLESS_PODMAN=1 lets old rootless podman through with the warning kept, without keep-id', async () => {
    plantEngine(bin, 'podman');
    const facts = await detect(
      'podman',
      [],
      env({
        PODMAN_INFO: 'true',
        PODMAN_VERSION: 'podman version 3.4.4',
        BYRE_ALLOW_ROOTLESS_PODMAN: '1',
      }),
    );
    expect(facts).toMatchObject({ rootless: true, keepId: false, version: '3.4.4' });
    expect(facts.warnings.map((w) => w.rule)).toEqual(['engine.rootless-podman-old']);
  });

  it('rootful podman never uses keep-id, whatever its version', async () => {
    plantEngine(bin, 'podman');
    const facts = await detect('podman', [], env({ PODMAN_VERSION: 'podman version 3.0.0' }));
    expect(facts).toMatchObject({ rootless: false, keepId: false, warnings: [] });
  });

  it.each(['yes', 'True', '', 'true\ntrue'])('refuses a rootless answer of %j', async (answer) => {
    plantEngine(bin, 'podman');
    const err = await detect('podman', [], env({ PODMAN_INFO: answer })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).rule).toBe('engine.rootless-probe');
  });

  it('detects rootless docker from its security options', async () => {
    plantEngine(bin, 'docker');
    const facts = await detect(
      'docker',
      [],
      env({ DOCKER_INFO: '["name=seccomp,profile=builtin","name=rootless","name=cgroupns"]' }),
    );
    expect(facts).toMatchObject({ rootless: true, keepId: false });
  });
});

describe('the rootless probe on a busy machine', () => {
  it('a probe that traps the timeout and exits 0 with nothing is a timeout, with its words and its time', async () => {
    plantEngine(bin, 'podman');
    const error = await detectEngine('podman', [], env({ PODMAN_TRAP_SLEEP: '30' }), {
      health: true,
      probeTimeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ rule: 'engine.timeout', engine: 'podman' });
    expect((error as EngineError).message).toContain('within 0.3 s');
    expect((error as EngineError).stderr).toContain('caught SIGTERM');
  });

  it('an empty answer is asked once more, and the second answer is taken', async () => {
    plantEngine(bin, 'podman');
    const once = path.join(root, 'answered-empty');
    const facts = await detectEngine('podman', [], env({ PODMAN_EMPTY_ONCE: once }), {
      health: true,
    });
    expect(facts).toMatchObject({ name: 'podman', rootless: false });
    expect(loggedCalls().filter((c) => c.startsWith('podman info'))).toHaveLength(2);
  });
});

describe("judgeRootlessProbe: the probe's outcome → a finding", () => {
  const ran = (over: Partial<Captured>): Captured => ({
    exitCode: 0,
    stdout: '',
    stderr: '',
    timedOut: false,
    spawnError: undefined,
    ...over,
  });
  const argv = ['info', '--format', '{{.Host.Security.Rootless}}'];
  it.each<[string, string, 'docker' | 'podman', Captured, 1 | 2]>([
    ['podman true', 'answer true', 'podman', ran({ stdout: 'true\n' }), 1],
    ['podman false', 'answer false', 'podman', ran({ stdout: 'false\n' }), 1],
    ['podman empty, first ask', 'retry', 'podman', ran({ stdout: '\n' }), 1],
    ['podman empty, second ask', 'engine.rootless-probe', 'podman', ran({ stdout: '' }), 2],
    ['podman garbage', 'engine.rootless-probe', 'podman', ran({ stdout: 'maybe\n' }), 1],
    ['timed out, exit 0, empty', 'engine.timeout', 'podman', ran({ timedOut: true }), 1],
    [
      'timed out, exit 0, an answer',
      'engine.timeout',
      'podman',
      ran({ timedOut: true, stdout: 'true\n' }),
      1,
    ],
    [
      'timed out, killed',
      'engine.timeout',
      'podman',
      ran({ timedOut: true, exitCode: undefined }),
      2,
    ],
    [
      'killed by a signal',
      'engine.client-killed',
      'podman',
      ran({ exitCode: undefined, signal: 'SIGKILL' }),
      1,
    ],
    [
      'could not run',
      'engine.spawn',
      'podman',
      ran({ exitCode: undefined, spawnError: 'podman: EACCES' }),
      1,
    ],
    [
      'exit 125, daemon words',
      'engine.unreachable',
      'podman',
      ran({ exitCode: 125, stderr: 'Error: something broke' }),
      1,
    ],
    [
      'docker socket denied',
      'engine.denied',
      'docker',
      ran({
        exitCode: 1,
        stderr: 'permission denied while trying to connect to the Docker daemon socket',
      }),
      1,
    ],
    ['docker null', 'answer false', 'docker', ran({ stdout: 'null\n' }), 1],
    ['docker rootless', 'answer true', 'docker', ran({ stdout: '["name=rootless"]' }), 1],
    ['docker not json', 'engine.rootless-probe', 'docker', ran({ stdout: 'nope' }), 1],
  ])('%s → %s', (_what, expected, name, info, attempt) => {
    const f =
      attempt === 1
        ? judgeRootlessProbe(name, argv, info, 10_000, 1)
        : judgeRootlessProbe(name, argv, info, 10_000, 2);
    const got =
      f.kind === 'answer'
        ? `answer ${String(f.rootless)}`
        : f.kind === 'retry'
          ? 'retry'
          : f.error.rule;
    expect(got).toBe(expected);
  });

  it("a refusal carries the probe's own words, and a timeout the time it was given", () => {
    const timeout = judgeRootlessProbe(
      'podman',
      argv,
      ran({ timedOut: true, stderr: 'Error: waiting on the pause process\n' }),
      10_000,
      1,
    );
    expect(timeout.kind === 'refuse' && timeout.error.message).toContain('within 10 s');
    expect(timeout.kind === 'refuse' && timeout.error.stderr).toBe(
      'Error: waiting on the pause process',
    );
    const empty = judgeRootlessProbe('podman', argv, ran({ stderr: 'WARN: busy\n' }), 10_000, 2);
    expect(empty.kind === 'refuse' && empty.error.stderr).toBe('WARN: busy');
    expect(empty.kind === 'refuse' && empty.error.remedy).toContain('`podman info`');
  });
});

describe('probe parsers', () => {
  /** What the judgement makes of a clean exit printing `stdout`: null when it refuses it as no answer. */
  const parsed = (name: 'docker' | 'podman', stdout: string): boolean | string | null => {
    const info: Captured = {
      exitCode: 0,
      stdout,
      stderr: '',
      timedOut: false,
      spawnError: undefined,
    };
    const f = judgeRootlessProbe(name, [], info, 10_000, 2);
    if (f.kind === 'answer') return f.rootless;
    return f.error.rule === 'engine.rootless-probe' ? null : f.error.rule;
  };

  it.each([
    ['true\n', true],
    ['false\n', false],
    ['true', true],
    ['TRUE\n', null],
    [' true\n', null],
    ['', null],
  ])('podman rootless %j = %s', (input, expected) => {
    expect(parsed('podman', input)).toBe(expected);
  });

  it.each([
    ['["name=seccomp,profile=default"]\n', false],
    ['["name=seccomp,profile=default","name=rootless"]', true],
    ['null', false],
    ['not json', null],
    ['{"a":1}', null],
  ])('docker rootless %j = %s', (input, expected) => {
    expect(parsed('docker', input)).toBe(expected);
  });

  it.each([
    ['podman version 4.3.1\n', '4.3.1'],
    ['Docker version 28.2.2, build e6534b4', '28.2.2'],
    ['podman version 5.0\n', '5.0.0'],
    ['podman version v4.10.0-dev', '4.10.0'],
    ['garbage', ''],
  ])('version %j = %j', async (input, expected) => {
    plantEngine(bin, 'docker');
    const facts = await detect('docker', [], env({ DOCKER_VERSION: input }), { version: true });
    expect(facts.version).toBe(expected);
  });
});

describe('localPodmanRootless', () => {
  it.each<
    [string, 'docker' | 'podman', Record<string, string>, number | undefined, boolean | null]
  >([
    ['root podman is rootful', 'podman', {}, 0, false],
    ['user podman is rootless', 'podman', {}, 1000, true],
    ['docker always asks', 'docker', {}, 1000, null],
    ['a remote connection asks', 'podman', { CONTAINER_HOST: 'ssh://x' }, 1000, null],
    ['a named connection asks', 'podman', { CONTAINER_CONNECTION: 'vm' }, 0, null],
    ['no uid (not POSIX) asks', 'podman', {}, undefined, null],
  ])('%s', (_name, engine, env, uid, want) => {
    expect(localPodmanRootless(engine, env, uid)).toBe(want);
  });
});

/** An in-memory probe cache that records what detection looked up and stored. */
function memoryCache(answers: Partial<Record<CachedProbe, string>>): {
  cache: ProbeCache;
  lookups: string[];
  stored: string[];
} {
  const lookups: string[] = [];
  const stored: string[] = [];
  return {
    lookups,
    stored,
    cache: {
      lookup(probe, enginePath) {
        lookups.push(`${probe} ${path.basename(enginePath)}`);
        const answer = answers[probe];
        if (answer === 'uncached') return { kind: 'uncached' };
        return answer === undefined
          ? { kind: 'miss', store: (fresh) => stored.push(`${probe} ${fresh}`) }
          : { kind: 'hit', answer };
      },
    },
  };
}

describe('detectEngine with a probe cache (adr/0038)', () => {
  it.each([
    ['rootless=false', false],
    ['rootless=true', true],
  ])(
    'docker named by the config takes info from a hit (%s) and asks nothing',
    async (answer, rootless) => {
      plantEngine(bin, 'docker');
      const { cache, stored } = memoryCache({ 'docker-info': answer });
      const facts = await detectEngine('docker', [], env({}), { cache });
      expect(facts).toMatchObject({ name: 'docker', rootless, keepId: false });
      expect(readFileSync(log, 'utf8')).toBe('');
      expect(stored).toEqual([]);
    },
  );

  it.each([
    ['["name=seccomp,profile=default"]', 'rootless=false'],
    ['["name=seccomp,profile=default","name=rootless"]', 'rootless=true'],
  ])('a miss asks info (%s) and stores what it parsed', async (info, kept) => {
    plantEngine(bin, 'docker');
    const { cache, stored } = memoryCache({});
    await detectEngine('docker', [], env({ DOCKER_INFO: info }), { cache });
    expect(readFileSync(log, 'utf8')).toBe('docker info --format {{json .SecurityOptions}}\n');
    expect(stored).toEqual([`docker-info ${kept}`]);
  });

  it('a failed info stores nothing and still refuses', async () => {
    plantEngine(bin, 'docker');
    const { cache, stored } = memoryCache({});
    await expect(
      detectEngine('docker', [], env({ DOCKER_INFO_ERR: 'Cannot connect to the Docker daemon' }), {
        cache,
      }),
    ).rejects.toMatchObject({ rule: 'engine.unreachable' });
    expect(stored).toEqual([]);
  });

  it('an unkeyed lookup asks and stores nothing', async () => {
    plantEngine(bin, 'docker');
    const { cache } = memoryCache({ 'docker-info': 'uncached' });
    const facts = await detectEngine('docker', [], env({}), { cache });
    expect(facts.rootless).toBe(false);
    expect(readFileSync(log, 'utf8')).toBe('docker info --format {{json .SecurityOptions}}\n');
  });

  it('auto asks docker fresh: whether docker answers is the question', async () => {
    plantEngine(bin, 'docker');
    plantEngine(bin, 'podman');
    const { cache, lookups } = memoryCache({ 'docker-info': 'rootless=false' });
    const facts = await detectEngine('auto', [], env({}), { cache });
    expect(facts.name).toBe('docker');
    expect(lookups).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe('docker info --format {{json .SecurityOptions}}\n');
  });

  it('doctor (version asked) and alwaysProbeRootless never consult the cache', async () => {
    plantEngine(bin, 'docker');
    const { cache, lookups } = memoryCache({ 'docker-info': 'rootless=true' });
    const asked = await detectEngine('docker', [], env({}), { cache, version: true });
    const probed = await detectEngine('docker', [], env({}), { cache, alwaysProbeRootless: true });
    expect([asked.rootless, probed.rootless]).toEqual([false, false]);
    expect(lookups).toEqual([]);
  });

  it('a podman that may be rootless takes its version from a hit, and a miss stores it', async () => {
    plantEngine(bin, 'podman');
    const remote = { CONTAINER_HOST: 'unix:///run/podman/podman.sock', PODMAN_INFO: 'true' };
    const hit = memoryCache({ 'podman-version': '4.2.0' });
    const old = detectEngine('podman', [], env(remote), { cache: hit.cache });
    // 4.2 predates keep-id: the remembered version decides exactly as the asked one would.
    await expect(old).rejects.toMatchObject({ rule: 'engine.rootless-podman-old' });
    expect(loggedCalls()).toEqual(['podman info --format {{.Host.Security.Rootless}}']);
    const miss = memoryCache({});
    const facts = await detectEngine('podman', [], env(remote), { cache: miss.cache });
    expect(facts).toMatchObject({ rootless: true, keepId: true, version: '4.3.1' });
    expect(miss.stored).toEqual(['podman-version 4.3.1']);
    expect(miss.lookups).toEqual(['podman-version podman']);
  });
});
