import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { EngineError } from '../errors.js';
import { classifyEngineFailure, isNotFound, tail } from './classify.js';
import type { Engine } from './engine.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import { useTempDir } from '../../test/support/temp.js';
import { resolveHostTool } from './host-tools.js';
import { normalizeImageId, parseEnvList } from './output.js';
import { createEngine } from './runner.js';

// The adapter against a planted engine CLI: a script that logs its argv and
// answers from FAKE_* variables. The real-engine tier is test/engine/.

const sleepTool = resolveHostTool('sleep', { declinedRoots: [], env: process.env });
const SLEEP = sleepTool.kind === 'found' ? sleepTool.path : '/bin/sleep';

let root: string;
let log: string;
let enginePath: string;

/** The planted engine's first lines: log its argv, one call per line. */
const LOG_ARGV = `for a in "$@"; do printf '%s\\037' "$a" >> "$FAKE_LOG"; done
printf '\\n' >> "$FAKE_LOG"
`;

const SCRIPT = `#!/bin/sh
${LOG_ARGV}[ -n "$FAKE_STDIN" ] && cat > "$FAKE_STDIN"
[ -n "$FAKE_OUT1" ] && printf '%s' "$FAKE_OUT1"
[ -n "$FAKE_ERR1" ] && printf '%s' "$FAKE_ERR1" >&2
if [ -n "$FAKE_AWAIT" ]; then
  n=0; until [ -e "$FAKE_AWAIT" ]; do n=$((n+1)); [ $n -gt 1000 ] && exit 9; ${SLEEP} 0.01; done
fi
[ -n "$FAKE_HANG" ] && exec ${SLEEP} "$FAKE_HANG"
[ -n "$FAKE_SIGNAL" ] && kill -s "$FAKE_SIGNAL" $$
[ -n "$FAKE_STDOUT" ] && printf '%s' "$FAKE_STDOUT"
[ -n "$FAKE_STDERR" ] && printf '%s' "$FAKE_STDERR" >&2
exit "\${FAKE_EXIT:-0}"
`;

function engine(
  answers: Record<string, string> = {},
  name: 'docker' | 'podman' = 'docker',
  keepId = false,
): Engine {
  return createEngine(
    { name, path: enginePath, rootless: keepId, keepId, version: '1.0.0', warnings: [] },
    { env: { FAKE_LOG: log, ...answers } },
  );
}

/** Argv of each call the planted engine received. */
function calls(): string[][] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\x1f').slice(0, -1));
}

useTempDir('runner', (tmp) => {
  root = tmp;
  log = path.join(root, 'calls.log');
  writeFileSync(log, '');
  enginePath = path.join(root, 'engine');
  writeFileSync(enginePath, SCRIPT);
  chmodSync(enginePath, 0o755);
});

describe('build', () => {
  it('runs the pinned path with the podman build argv', async () => {
    await engine({}, 'podman').build(
      { tag: 't', contextDir: '/ctx', noCache: false, uid: 1000, gid: 1000 },
      { onOutput: () => {} },
    );
    expect(calls()).toEqual([
      // The working containers already there: never an interrupted build's leftovers.
      ['ps', '-a', '--external', '--format', '{{.ID}} {{.Names}}'],
      [
        'build',
        '-t',
        't',
        '-f',
        '/ctx/Dockerfile.generated',
        '--force-rm',
        '--format',
        'docker',
        '--build-arg',
        'BYRE_UID=1000',
        '--build-arg',
        'BYRE_GID=1000',
        '/ctx',
      ],
    ]);
  });

  it.each(['docker', 'podman'] as const)(
    'an interrupted %s build removes the images its steps committed, then refuses',
    async (name) => {
      // A build that commits two steps and hangs in the third until signalled.
      writeFileSync(
        enginePath,
        `#!/bin/sh
${LOG_ARGV}if [ "$1 $2 $3" = "image rm 3333333333cc" ]; then
  : > "$FAKE_ROOT/removing"
  n=0; until [ -e "$FAKE_ROOT/go" ]; do n=$((n+1)); [ $n -gt 1000 ] && exit 9; ${SLEEP} 0.01; done
fi
[ "$1" = build ] || exit 0
printf 'Step 1/4 : FROM debian:bookworm\\n ---> fcec78cd917e\\n'
printf 'Step 2/4 : RUN a\\n ---> 1111111111aa\\nStep 3/4 : RUN b\\n ---> Using cache\\n ---> 2222222222bb\\n'
printf 'Step 4/4 : RUN c\\n ---> 3333333333cc\\nStep 5/5 : RUN sleep\\n'
exec ${SLEEP} 30
`,
      );
      // Signalled once the hanging step's header has reached byre, never on a
      // guess of how long the steps before it take to arrive.
      let out = '';
      const listening = process.listenerCount('SIGINT');
      const building = engine({ FAKE_ROOT: root }, name).build(
        { tag: 't', contextDir: '/ctx', noCache: false, uid: 1, gid: 1 },
        { onOutput: (chunk) => (out += chunk) },
      );
      const caught = building.catch((e: unknown) => e);
      for (let i = 0; i < 1000 && !out.includes('Step 5/5'); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      process.emit('SIGINT', 'SIGINT');
      // While the first committed image is being removed, byre still holds
      // its handlers: a second Ctrl-C is swallowed, not the default exit.
      for (let i = 0; i < 1000 && !existsSync(path.join(root, 'removing')); i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(process.listenerCount('SIGINT')).toBe(listening + 1);
      writeFileSync(path.join(root, 'go'), '');
      // Exit 130, as a shell reports a command Ctrl-C ended: a cancel, not a failure.
      expect(await caught).toMatchObject({ rule: 'build.interrupted', exitCode: 130 });
      expect(process.listenerCount('SIGINT')).toBe(listening);
      const removed = calls().filter((c) => c[0] === 'image' && c[1] === 'rm');
      expect(removed).toEqual([
        ['image', 'rm', '3333333333cc'],
        ['image', 'rm', '1111111111aa'],
      ]);
    },
  );

  /** A no-cache docker build through the engine script, sent SIGINT once its output shows `marker`; what it rejected with. */
  async function interruptedDockerBuild(marker: string): Promise<unknown> {
    let out = '';
    const caught = engine({}, 'docker')
      .build(
        { tag: 't', contextDir: '/ctx', noCache: true, uid: 1, gid: 1 },
        { onOutput: (chunk) => (out += chunk) },
      )
      .catch((e: unknown) => e);
    for (let i = 0; i < 1000 && !out.includes(marker); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    process.emit('SIGINT', 'SIGINT');
    return caught;
  }

  it('an interrupted build’s image still held by the step docker is tearing down is removed once it lets go', async () => {
    // Docker stops the running step a moment after its client went away; until
    // then the newest image is in use and every image under it has a child.
    writeFileSync(
      enginePath,
      `#!/bin/sh
${LOG_ARGV}if [ "$1 $2" = "image rm" ]; then
  n=$(grep -c "image.rm" "$FAKE_LOG")
  [ "$3" = 3333333333cc ] && [ "$n" -le 1 ] && { echo "Error response from daemon: conflict: unable to delete 3333333333cc (cannot be forced) - image is being used by running container bf26984de12b" >&2; exit 1; }
  [ "$3" = 1111111111aa ] && [ "$n" -le 2 ] && { echo "Error response from daemon: conflict: unable to delete 1111111111aa (cannot be forced) - image has dependent child images" >&2; exit 1; }
  exit 0
fi
[ "$1" = build ] || exit 0
printf 'Step 1/3 : FROM debian:bookworm\\n ---> fcec78cd917e\\n'
printf 'Step 2/3 : RUN a\\n ---> 1111111111aa\\nStep 3/3 : RUN b\\n ---> 3333333333cc\\nStep 4/4 : RUN sleep\\n'
exec ${SLEEP} 30
`,
    );
    const error = await interruptedDockerBuild('Step 4/4');
    expect(error).toMatchObject({ rule: 'build.interrupted', exitCode: 130 });
    expect((error as Error).message).toBe('the build was interrupted (SIGINT)');
    expect(calls().filter((c) => c[0] === 'image' && c[1] === 'rm')).toEqual([
      ['image', 'rm', '3333333333cc'],
      ['image', 'rm', '1111111111aa'],
      ['image', 'rm', '3333333333cc'],
      ['image', 'rm', '1111111111aa'],
    ]);
  });

  it('an interrupted build’s step container docker is already removing counts as removed once it is gone', async () => {
    writeFileSync(
      enginePath,
      `#!/bin/sh
${LOG_ARGV}if [ "$1 $2" = "rm -f" ]; then
  n=$(grep -c "^rm" "$FAKE_LOG")
  [ "$n" -le 1 ] && { echo "Error response from daemon: removal of container $3 is already in progress" >&2; exit 1; }
  echo "Error: No such container: $3" >&2; exit 1
fi
[ "$1" = build ] || exit 0
printf 'Step 1/2 : FROM debian:bookworm\\n ---> fcec78cd917e\\n'
printf 'Step 2/2 : RUN sleep 600\\n ---> Running in b43f0fe81715\\n'
exec ${SLEEP} 30
`,
    );
    const error = await interruptedDockerBuild('Running in');
    expect((error as Error).message).toBe('the build was interrupted (SIGINT)');
    expect(calls().filter((c) => c[0] === 'rm')).toEqual([
      ['rm', '-f', 'b43f0fe81715'],
      ['rm', '-f', 'b43f0fe81715'],
    ]);
  });

  it('streams output as it happens, stdout and stderr both', async () => {
    // The engine writes its first lines and then waits for a file that only
    // the output callback creates once it has seen them: buffered output
    // would leave the build waiting until it gives up (exit 9).
    const go = path.join(root, 'go');
    let seen = '';
    const e = engine({
      FAKE_OUT1: 'Step 1/2\n',
      FAKE_ERR1: 'warn\n',
      FAKE_AWAIT: go,
      FAKE_STDOUT: 'Step 2/2\n',
    });
    await e.build(
      { tag: 't', contextDir: '/ctx', noCache: false, uid: 1, gid: 1 },
      {
        onOutput: (chunk) => {
          seen += chunk;
          if (seen.includes('Step 1/2\n') && seen.includes('warn\n')) writeFileSync(go, '');
        },
      },
    );
    expect(seen).toContain('Step 2/2\n');
    expect(seen.indexOf('Step 2/2')).toBeGreaterThan(seen.indexOf('Step 1/2'));
  });

  it('throws EngineError with the argv, exit code and stderr tail on failure', async () => {
    const e = engine({
      FAKE_STDOUT: 'Step 1/1 : RUN false\n',
      FAKE_STDERR: 'The command returned a non-zero code: 1\n',
      FAKE_EXIT: '1',
    });
    const err = await e
      .build(
        { tag: 't', contextDir: '/ctx', noCache: true, uid: 1, gid: 1 },
        { onOutput: () => {} },
      )
      .catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineError);
    const ee = err as EngineError;
    expect(ee.rule).toBe('engine.failed');
    expect(ee.engine).toBe('docker');
    expect(ee.engineExitCode).toBe(1);
    expect(ee.argv[0]).toBe('build');
    expect(ee.argv).toContain('--no-cache');
    expect(ee.stderr).toContain('non-zero code');
  });

  it('falls back to the output tail when the engine wrote nothing to stderr', async () => {
    const e = engine({
      FAKE_STDOUT: 'Step 3/9 : RUN exit 3\nreturned a non-zero code: 3\n',
      FAKE_EXIT: '1',
    });
    const err = (await e
      .build({ tag: 't', contextDir: '/c', noCache: false, uid: 1, gid: 1 }, { onOutput: () => {} })
      .catch((x: unknown) => x)) as EngineError;
    expect(err.stderr).toContain('returned a non-zero code: 3');
  });

  it('marks an engine that is not answering as unreachable, with a remedy', async () => {
    const e = engine({
      FAKE_STDERR:
        'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n',
      FAKE_EXIT: '1',
    });
    const err = (await e
      .build({ tag: 't', contextDir: '/c', noCache: false, uid: 1, gid: 1 }, { onOutput: () => {} })
      .catch((x: unknown) => x)) as EngineError;
    expect(err.rule).toBe('engine.unreachable');
    expect(err.remedy).toMatch(/start/i);
  });
});

describe('an engine client killed by a signal', () => {
  it.each(['SEGV', 'ABRT', 'PIPE'])(
    'SIG%s is reported as the client dying, never as a box exit status',
    async (sig) => {
      const e = engine({ FAKE_SIGNAL: sig });
      const spec = { id: 'b', command: ['true'] };
      const killed = {
        rule: 'engine.client-killed',
        message: expect.stringContaining(`SIG${sig}`),
      };
      await expect(e.startAttached('byre-p', { tty: false })).rejects.toMatchObject(killed);
      await expect(e.ps({ labels: {}, all: false })).rejects.toMatchObject(killed);
      await expect(
        e.execStream(spec, { stdout: new PassThrough().resume() }),
      ).rejects.toMatchObject(killed);
    },
  );
});

describe('a stream the caller stops', () => {
  it('kills the engine client and rejects with the reason the caller gave', async () => {
    const e = engine({ FAKE_HANG: '30' });
    const stop = new AbortController();
    const reason = new Error('too much');
    const running = e.execStream(
      { id: 'b', command: ['true'] },
      { stdout: new PassThrough().resume(), signal: stop.signal },
    );
    setTimeout(() => stop.abort(reason), 50);
    await expect(running).rejects.toBe(reason);
  });

  it('hands the caller the box’s stderr as it arrives, so it can stop on what the box said', async () => {
    const e = engine({ FAKE_ERR1: 'pid 42\n', FAKE_HANG: '30' });
    const stop = new AbortController();
    let said = '';
    const running = e.execStream(
      { id: 'b', command: ['true'] },
      {
        stdout: new PassThrough().resume(),
        signal: stop.signal,
        onStderr: (chunk) => {
          said += chunk;
          if (said.includes('\n')) stop.abort(new Error(said));
        },
      },
    );
    await expect(running).rejects.toThrow('pid 42\n');
  });
});

describe('queries', () => {
  it('imageId normalizes podman bare hex to sha256:', async () => {
    const hex = 'a'.repeat(64);
    expect(await engine({ FAKE_STDOUT: `${hex}\n` }).imageId('t')).toBe(`sha256:${hex}`);
    expect(await engine({ FAKE_STDOUT: `sha256:${hex}\n` }).imageId('t')).toBe(`sha256:${hex}`);
  });

  it.each([
    ['exists', { FAKE_STDOUT: 'sha256:x\n' }, true],
    [
      'docker missing',
      { FAKE_STDERR: 'Error response from daemon: No such image: t:latest\n', FAKE_EXIT: '1' },
      false,
    ],
    ['podman missing', { FAKE_STDERR: 'Error: t: image not known\n', FAKE_EXIT: '125' }, false],
  ])('imageExists: %s', async (_label, answers, expected) => {
    expect(await engine(answers).imageExists('t')).toBe(expected);
  });

  it('imageExists throws when the engine is unreachable rather than answering false', async () => {
    await expect(
      engine({
        FAKE_STDERR: 'Cannot connect to the Docker daemon. Is the docker daemon running?',
        FAKE_EXIT: '1',
      }).imageExists('t'),
    ).rejects.toMatchObject({ rule: 'engine.unreachable' });
  });

  it('names a socket that refuses this user as denied, with its own remedy', async () => {
    const err = (await engine({
      FAKE_STDERR:
        'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: dial unix /var/run/docker.sock: connect: permission denied\n',
      FAKE_EXIT: '1',
    })
      .ps({ labels: {}, all: false })
      .catch((x: unknown) => x)) as EngineError;
    expect(err.rule).toBe('engine.denied');
    expect(err.remedy).toMatch(/docker group/);
  });

  it.each([
    ['null', {}],
    ['', {}],
    ['{"byre.project":"p","x":"1"}\n', { 'byre.project': 'p', x: '1' }],
  ])('labels %j', async (stdout, expected) => {
    const e = engine({ FAKE_STDOUT: stdout });
    expect(await e.inspectLabels('c')).toEqual(expected);
    expect(await e.imageLabels('t')).toEqual(expected);
  });

  it('inspectEnv parses the env list', async () => {
    expect(
      await engine({ FAKE_STDOUT: '["PATH=/bin","A=b=c","EMPTY="]\n' }).inspectEnv('c'),
    ).toEqual({
      PATH: '/bin',
      A: 'b=c',
      EMPTY: '',
    });
  });

  it('ps returns one id per line and sends label filters', async () => {
    const ids = await engine({ FAKE_STDOUT: 'abc\n\ndef\n' }).ps({
      labels: { 'byre.project': 'p' },
      all: true,
    });
    expect(ids).toEqual(['abc', 'def']);
    expect(calls()).toEqual([['ps', '-q', '--no-trunc', '-a', '--filter', 'label=byre.project=p']]);
  });

  it('psLabels reads one JSON row per container, leaving absent labels out', async () => {
    const rows = await engine({
      FAKE_STDOUT: '["abc","p","1000"]\n["def","q\\tx\\n",""]\n',
    }).psLabels({ labels: {}, hasLabels: ['byre.project'], all: false }, [
      'byre.project',
      'byre.uid',
    ]);
    expect(rows).toEqual([
      { id: 'abc', labels: { 'byre.project': 'p', 'byre.uid': '1000' } },
      { id: 'def', labels: { 'byre.project': 'q\tx\n' } },
    ]);
    expect(calls()[0]?.slice(0, 4)).toEqual(['ps', '--no-trunc', '--filter', 'label=byre.project']);
  });

  it.each([
    ['a row of the wrong width', '["abc","p"]\n'],
    ['a non-string cell', '["abc",1,"2"]\n'],
    ['not JSON', 'abc p 1000\n'],
  ])('psLabels refuses %s', async (_what, stdout) => {
    await expect(
      engine({ FAKE_STDOUT: stdout }).psLabels({ labels: {}, all: false }, [
        'byre.project',
        'byre.uid',
      ]),
    ).rejects.toThrow();
  });

  it('inspectContainers parses id, state, labels and env in one call', async () => {
    const e = engine({
      FAKE_STDOUT:
        '["abc",true,{"byre.project":"p"},["BYRE_UID=1000","X=a=b"]]\n["def",false,null,null]\n',
    });
    expect(await e.inspectContainers(['abc', 'def'])).toEqual([
      {
        id: 'abc',
        running: true,
        labels: { 'byre.project': 'p' },
        env: { BYRE_UID: '1000', X: 'a=b' },
      },
      { id: 'def', running: false, labels: {}, env: {} },
    ]);
    expect(calls()).toHaveLength(1);
  });

  it('inspectContainers asks nothing for no ids', async () => {
    expect(await engine().inspectContainers([])).toEqual([]);
    expect(calls()).toEqual([]);
  });

  it('inspectContainers leaves out containers that vanished, and fails on anything else', async () => {
    const vanished = engine({
      FAKE_STDOUT: '["abc",true,{},[]]\n',
      FAKE_STDERR: 'Error response from daemon: No such container: def\n',
      FAKE_EXIT: '1',
    });
    expect((await vanished.inspectContainers(['abc', 'def'])).map((f) => f.id)).toEqual(['abc']);
    const broken = engine({
      FAKE_STDOUT: '["abc",true,{},[]]\n',
      FAKE_STDERR: 'Error: No such container: def\nError: permission denied\n',
      FAKE_EXIT: '125',
    });
    await expect(broken.inspectContainers(['abc', 'def'])).rejects.toBeInstanceOf(EngineError);
  });

  it('inspectContainers is cancelled by its signal', async () => {
    const cancel = new AbortController();
    const asking = engine({ FAKE_HANG: '30' }).inspectContainers(['abc'], {
      signal: cancel.signal,
    });
    cancel.abort();
    await expect(asking).rejects.toBeInstanceOf(EngineError);
  });

  it('networkMode trims', async () => {
    expect(await engine({ FAKE_STDOUT: 'bridge\n' }).networkMode('c')).toBe('bridge');
  });

  it('volumeExists matches exact names only (docker name filters are fuzzy)', async () => {
    const e = engine({ FAKE_STDOUT: 'byre-x-cache-old\nbyre-x-cache\n' });
    expect(await e.volumeExists('byre-x-cache')).toBe(true);
    expect(await e.volumeExists('byre-x')).toBe(false);
  });

  it.each([
    ['removed', { FAKE_STDOUT: 'v\n' }, true],
    [
      'docker missing',
      { FAKE_STDERR: 'Error response from daemon: get v: no such volume', FAKE_EXIT: '1' },
      false,
    ],
    [
      'podman missing',
      { FAKE_STDERR: 'Error: no volume with name "v" found: no such volume', FAKE_EXIT: '1' },
      false,
    ],
  ])('volumeRemove: %s', async (_label, answers, expected) => {
    expect(await engine(answers).volumeRemove('v')).toBe(expected);
  });

  it('volumeRemove surfaces an in-use volume as an EngineError', async () => {
    await expect(
      engine({
        FAKE_STDERR: 'Error response from daemon: remove v: volume is in use - [abc]',
        FAKE_EXIT: '1',
      }).volumeRemove('v'),
    ).rejects.toBeInstanceOf(EngineError);
  });

  it.each([
    ['removed', { FAKE_STDOUT: 'c\n' }, true],
    ['docker rm -f on nothing', {}, false],
    [
      'podman missing',
      {
        FAKE_STDERR: 'Error: no container with name or ID "c" found: no such container',
        FAKE_EXIT: '1',
      },
      false,
    ],
  ])('remove: %s', async (_label, answers, expected) => {
    expect(await engine(answers).remove('c')).toBe(expected);
  });

  it('query timeouts become engine.timeout', async () => {
    const e = createEngine(
      {
        name: 'podman',
        path: enginePath,
        rootless: false,
        keepId: false,
        version: '',
        warnings: [],
      },
      { env: { FAKE_LOG: log, FAKE_HANG: '5' }, queryTimeoutMs: 200 },
    );
    await expect(e.networkMode('c')).rejects.toMatchObject({
      rule: 'engine.timeout',
      engine: 'podman',
    });
  });
});

describe('a podman listing that raced a removal', () => {
  // Podman lists from its store, not a daemon: an image, layer or container
  // another process removes while the listing reads it fails the whole
  // listing (exit 125, "… not known"). Seen as forget's "could not check:
  // podman" while another podman client removed its own images.
  const RACED = `#!/bin/sh
${LOG_ARGV}n=$(wc -l < "$FAKE_LOG")
if [ "$n" -le "\${FAKE_RACES:-1}" ]; then
  echo "Error: locating item named \\"sha256:7e3c\\" for image with ID \\"7e3c\\": image not known" >&2; exit 125
fi
printf 'abc\\n'
`;
  const asks: [string, (e: Engine) => Promise<unknown>][] = [
    ['imageList', (e) => e.imageList({ labels: { 'byre.project': 'p' } })],
    ['volumeList', (e) => e.volumeList({ labels: { 'byre.project': 'p' } })],
    ['ps', (e) => e.ps({ labels: { 'byre.project': 'p' }, all: true })],
  ];

  it.each(asks)('%s asks again and answers', async (_name, ask) => {
    writeFileSync(enginePath, RACED);
    await expect(ask(engine({}, 'podman'))).resolves.toBeTruthy();
    expect(calls()).toHaveLength(2);
  });

  it('a race that does not settle is the engine’s failure, quoting it, after three asks', async () => {
    writeFileSync(enginePath, RACED);
    const error = await engine({ FAKE_RACES: '9' }, 'podman')
      .imageList({ labels: { 'byre.project': 'p' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).stderr).toContain('image not known');
    expect(calls()).toHaveLength(3);
  });

  it('docker answers from its daemon: its failure is not asked again', async () => {
    writeFileSync(enginePath, RACED);
    await expect(engine({}, 'docker').imageList({ labels: {} })).rejects.toBeInstanceOf(
      EngineError,
    );
    expect(calls()).toHaveLength(1);
  });
});

describe('run, create, exec', () => {
  it('create returns the id and refuses a non-create argv', async () => {
    const e = engine({ FAKE_STDOUT: 'deadbeef\n' });
    expect(await e.create(['create', '--rm', 'img'])).toBe('deadbeef');
    await expect(e.create(['run', 'img'])).rejects.toBeInstanceOf(TypeError);
  });

  it('run pipes input and throws on failure', async () => {
    const stdin = path.join(root, 'stdin');
    const e = engine({ FAKE_STDIN: stdin, FAKE_STDOUT: 'ok' });
    expect(await e.run(['run', '--rm', '-i', 'img'], { input: 'hello' })).toEqual({
      stdout: 'ok',
      stderr: '',
    });
    expect(readFileSync(stdin, 'utf8')).toBe('hello');
    await expect(
      engine({ FAKE_EXIT: '3', FAKE_STDERR: 'boom' }).run(['run', 'img']),
    ).rejects.toMatchObject({
      engineExitCode: 3,
      stderr: 'boom',
    });
  });

  it("exec reports the command's exit status as data", async () => {
    const r = await engine({ FAKE_EXIT: '7', FAKE_STDOUT: 'o', FAKE_STDERR: 'e' }).exec({
      id: 'c',
      command: ['false'],
    });
    expect(r).toEqual({ exitCode: 7, stdout: 'o', stderr: 'e' });
    expect(calls()).toEqual([['exec', 'c', 'false']]);
  });

  it('a missing engine binary is an engine.spawn EngineError', async () => {
    const e = createEngine({
      name: 'docker',
      path: path.join(root, 'nope'),
      rootless: false,
      keepId: false,
      version: '',
      warnings: [],
    });
    await expect(e.ps({ labels: {}, all: false })).rejects.toMatchObject({ rule: 'engine.spawn' });
  });
});

describe('classifyEngineFailure', () => {
  it.each([
    [
      'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      'unreachable',
    ],
    [
      'error during connect: Get "http://%2F%2F.%2Fpipe%2Fdocker_engine/v1.24/info": open //./pipe/docker_engine',
      'unreachable',
    ],
    [
      'Error: unable to connect to Podman socket: dial unix /run/user/1000/podman/podman.sock: connect: connection refused',
      'unreachable',
    ],
    [
      'Cannot connect to Podman. Please verify your connection to the Linux system using `podman system connection list`, or try `podman machine init` and `podman machine start` to manage a new Linux VM',
      'unreachable',
    ],
    [
      'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.50/containers/json": dial unix /var/run/docker.sock: connect: permission denied',
      'denied',
    ],
    [
      'Error: unable to connect to Podman socket: dial unix /run/podman/podman.sock: connect: permission denied',
      'denied',
    ],
    ['Error response from daemon: No such image: x', 'other'],
    [
      "The command '/bin/sh -c curl x' returned a non-zero code: 7\ncurl: (7) Failed to connect: Connection refused",
      'other',
    ],
    ['', 'other'],
  ] as const)('%s -> %s', (stderr, expected) => {
    expect(classifyEngineFailure(stderr)).toBe(expected);
  });

  it.each([
    ['Error response from daemon: No such container: c', true],
    ['Error: no container with name or ID "c" found: no such container', true],
    ['Error: x: image not known', true],
    ['Error response from daemon: conflict: unable to remove repository reference', false],
    ['Cannot connect to the Docker daemon. Is the docker daemon running? No such container', false],
  ])('isNotFound(%j) = %s', (stderr, expected) => {
    expect(isNotFound(stderr)).toBe(expected);
  });

  it('tail keeps the end, cut at a line boundary', () => {
    const text = `${'x'.repeat(100)}\nkeep me\nand me`;
    expect(tail(text, 20)).toBe('keep me\nand me');
    expect(tail('short', 20)).toBe('short');
  });
});

describe('parsers', () => {
  it.each([
    ['a'.repeat(64), `sha256:${'a'.repeat(64)}`],
    [`sha256:${'b'.repeat(64)}\n`, `sha256:${'b'.repeat(64)}`],
    ['abc', 'abc'],
  ])('normalizeImageId(%j)', (raw, expected) => {
    expect(normalizeImageId(raw)).toBe(expected);
  });

  it('parseEnvList lets a later duplicate win and skips malformed entries', () => {
    expect(parseEnvList('["A=1","noequals","=x","A=2",3]')).toEqual({ A: '2' });
    expect(parseEnvList('null')).toEqual({});
  });
});

describe('FakeEngine', () => {
  it('records calls and answers session discovery from create argv labels', async () => {
    const fake = new FakeEngine();
    const id = await fake.create([
      'create',
      '--rm',
      '-i',
      '--name',
      'byre-p',
      '-e',
      'A=1',
      '--label',
      'byre.project=p',
      '--label',
      'byre.workdir=w',
      'img',
    ]);
    expect(await fake.ps({ labels: { 'byre.project': 'p' }, all: true })).toEqual([id]);
    expect(await fake.ps({ labels: { 'byre.project': 'p' }, all: false })).toEqual([]);
    expect(await fake.inspectEnv('byre-p')).toEqual({ A: '1' });
    expect(await fake.startAttached('byre-p', { tty: false })).toBe(0);
    expect(await fake.ps({ labels: {}, all: true })).toEqual([]);
    expect(fake.calls.map((c) => c.method)).toEqual([
      'create',
      'ps',
      'ps',
      'inspectEnv',
      'startAttached',
      'ps',
    ]);
  });

  it('injects failures', async () => {
    const fake = new FakeEngine({ name: 'podman' });
    fake.failNext('volumeCreate');
    await expect(fake.volumeCreate('v', {})).rejects.toBeInstanceOf(EngineError);
    await fake.volumeCreate('v', { k: 'x' });
    expect(await fake.volumeExists('v')).toBe(true);
    expect(await fake.volumeList({ labels: { k: 'x' } })).toEqual(['v']);
    expect(await fake.volumeRemove('v')).toBe(true);
    expect(await fake.volumeRemove('v')).toBe(false);
  });

  it('build streams canned output and registers the image', async () => {
    const fake = new FakeEngine();
    fake.buildOutput = ['a', 'b'];
    const seen: string[] = [];
    await fake.build(
      { tag: 't', contextDir: '/c', noCache: false, uid: 1, gid: 1, labels: { l: '1' } },
      { onOutput: (c) => seen.push(c) },
    );
    expect(seen).toEqual(['a', 'b']);
    expect(await fake.imageExists('t')).toBe(true);
    expect(await fake.imageLabels('t')).toEqual({ l: '1' });
    expect(await fake.imageId('t')).toMatch(/^sha256:/);
  });
});
