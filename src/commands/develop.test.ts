// develop's decision table against the fake engine: every refusal rule,
// build skip versus build, volume creation and seeding, the stale-box sweep,
// and the launch record written before the box is created.

import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { loadHostTree } from '../../test/support/host-tree.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EnginePool } from '../engine/pool.js';
import type { BuildSpec } from '../engine/types.js';
import { DEFAULT_BASE } from '../config/types.js';
import { createIdentity, sealInjected, sealValue } from '../credentials/seal.js';
import { containerName, LABEL } from '../gen/names.js';
import { wallHelperName } from '../network/netns.js';
import { edgeHelperName } from '../network/edge.js';
import { recordEdgeImage, recordedEdgeImage } from '../session/edge-image-record.js';
import { ByreError, EngineError, PassthroughExit, RefusedError } from '../errors.js';
import { failureReport } from '../output/render-error.js';
import { projectIdFor } from '../project/identity.js';
import type { CommandDeps } from './deps.js';
import { developCommand } from './develop.js';
import { withSetupLock } from '../host/lock.js';
import { packageInitCommand } from './package.js';
import { rebuildCommand } from './rebuild.js';
import { statusCommand } from './status.js';

/** What main prints for a failure: the rendered error, or the crash banner. */
function printed(error: unknown): string {
  const { text } = failureReport(error);
  if (text === null) throw new Error('failureReport printed nothing');
  return text;
}

const PID = 4242;
const CLOCK = new Date('2026-12-01T10:00:00Z');

interface World {
  dir: string;
  home: string;
  id: string;
  store: string;
  io: FakeIo;
  engine: FakeEngine;
  /** pids a test says are alive (besides this byre). */
  alive: Set<number>;
  deps: CommandDeps;
  writeConfig(text: string): void;
}

let w: World;

useTempDir('develop', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  const userHome = path.join(tmp, 'user');
  mkdirSync(dir);
  mkdirSync(userHome);
  const id = projectIdFor(dir);
  const store = path.join(home, 'projects', id);
  const engine = new FakeEngine();
  // The base image is local, so a context digest can prove a build a no-op.
  engine.images.set(DEFAULT_BASE, { id: 'sha256:base', labels: {} });
  const alive = new Set<number>();
  w = {
    dir,
    home,
    id,
    store,
    io: fakeIo({
      cwd: dir,
      env: { BYRE_HOME: home, HOME: userHome, PATH: '/usr/bin:/bin' },
      pid: PID,
    }),
    engine,
    alive,
    deps: {
      detect: async () => FAKE_FACTS,
      createEngine: () => engine,
      pool: poolOf(engine),
      clock: () => CLOCK,
      pidAlive: (pid) => alive.has(pid),
    },
    writeConfig(text) {
      mkdirSync(store, { recursive: true });
      writeFileSync(path.join(store, 'byre.config'), text);
    },
  };
});

/** A local skill whose manifest ends with `runtime`; its id. */
async function localSkill(name: string, runtime: string): Promise<string> {
  const io = fakeIo({ cwd: w.dir, env: w.io.env });
  await packageInitCommand(io, 'skill', name);
  const id = /local skill (\S+);/.exec(io.err)?.[1] ?? '';
  const manifest = path.join(io.out.trim(), 'skill.toml');
  const text = readFileSync(manifest, 'utf8').replace('[runtime]\n', '');
  writeFileSync(manifest, `${text.replace(/\[context\][^[]*$/, '')}${runtime}`);
  return id;
}

function poolOf(...engines: FakeEngine[]): EnginePool {
  return {
    members: engines.map((engine) => ({ name: engine.facts.name, state: 'ok' as const, engine })),
  };
}

function develop(deps: CommandDeps = {}): Promise<void> {
  return developCommand(w.io, {}, { ...w.deps, ...deps });
}

const EXCLUSIVE =
  '[[volumes]]\nname = "db"\nrole = "state"\ntarget = "/home/dev/db"\nsharing = "exclusive"\n';
const SEEDED =
  '[[volumes]]\nname = "prefs"\nrole = "state"\ntarget = "/home/dev/prefs"\n[volumes.seed]\nliteral = "seeded\\n"\npath = "conf/settings"\n';

function sessionLabels(extra: Record<string, string> = {}): Record<string, string> {
  return { [LABEL.project]: w.id, [LABEL.workdir]: w.id, ...extra };
}

function failing(name: 'docker' | 'podman', rule: string): FakeEngine {
  const e = new FakeEngine({ name });
  const error = new EngineError(`${name} ps failed`, { engine: name, argv: ['ps'], rule });
  e.failNext('ps', error, 10);
  return e;
}

async function refusal(run: Promise<void>): Promise<ByreError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ByreError)) throw new Error(`expected a ByreError, got ${String(error)}`);
  return error;
}

/** What develop asked the engine to change: nothing at all for a refusal before the build. */
function mutations(engine: FakeEngine): string[] {
  const changing = new Set(['build', 'create', 'startAttached', 'remove', 'volumeCreate', 'run']);
  return engine.calls.filter((c) => changing.has(c.method)).map((c) => c.method);
}

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!what()) throw new Error('condition never held');
}

describe('develop: the launch', () => {
  it('builds, writes the launch record before it creates the box, then starts it', async () => {
    const launches = path.join(w.store, 'launches');
    let recordAtCreate: string[] = [];
    const create = w.engine.create.bind(w.engine);
    w.engine.create = async (argv) => {
      recordAtCreate = existsSync(launches) ? readdirSync(launches) : [];
      return create(argv);
    };
    await develop();
    // The base image, then the wiring on it (adr/0073).
    expect(w.engine.callsTo('build')).toHaveLength(2);
    const argv = w.engine.callsTo('create')[0]?.[0] as string[];
    const label = argv.find((a) => a.startsWith(`${LABEL.launch}=`))?.split('=')[1];
    expect(label).toMatch(/^[0-9a-f]{64}$/);
    expect(recordAtCreate.some((f) => f.startsWith(label ?? '-'))).toBe(true);
    expect(argv).toContain(`${LABEL.client}=${PID}`);
    expect(w.engine.callsTo('startAttached')).toEqual([[`byre-${w.id}`, { tty: false }]]);
    expect(w.engine.containers.size).toBe(0);
  });

  it('launch.write-failed: a launch record it cannot write creates no box, and says where', async () => {
    mkdirSync(w.store, { recursive: true });
    symlinkSync(path.join(w.dir), path.join(w.store, 'launches'));
    const error = await refusal(develop());
    expect(error.rule).toBe('launch.write-failed');
    expect(printed(error)).toMatch(
      new RegExp(
        `cannot write the launch record ${w.store}/launches/[0-9a-f]{64}\\.toml: .*; the box was not created`,
      ),
    );
    expect(mutations(w.engine)).not.toContain('create');
    expect(mutations(w.engine)).not.toContain('startAttached');
  });

  it('skips the build when the image carries this exact context, and builds again when it changes', async () => {
    const tags = () => w.engine.callsTo('build').map((c) => (c[0] as { tag: string }).tag);
    await develop();
    await develop();
    expect(tags()).toHaveLength(2);
    w.writeConfig('apt = ["jq"]\n');
    await develop();
    expect(tags()).toHaveLength(4);
    // A wiring change builds the wiring alone, on the base it already has (adr/0073).
    w.writeConfig('apt = ["jq"]\n[[mcp]]\nname = "web"\nurl = "http://127.0.0.1:9/mcp"\n');
    await develop();
    expect(tags().slice(4)).toEqual([tags()[1]]);
  });

  it('creates a state volume and seeds it once, never again', async () => {
    w.writeConfig(SEEDED);
    await develop();
    const volume = `byre-${w.id}-prefs`;
    expect(w.engine.callsTo('volumeCreate').map((c) => c[0])).toEqual([volume]);
    const seeds = w.engine.callsTo('run');
    expect(seeds).toHaveLength(1);
    expect(seeds[0]?.[1]).toEqual({ input: 'seeded\n' });
    expect(w.engine.volumeData.get(volume)?.get('conf/settings')).toEqual({
      kind: 'file',
      bytes: Buffer.from('seeded\n'),
    });
    await develop();
    expect(w.engine.callsTo('volumeCreate')).toHaveLength(1);
    expect(w.engine.callsTo('run')).toHaveLength(1);
  });

  it('a host seed: the fresh volume holds what the seed directory held, proven as the directory byre pinned', async () => {
    const seed = path.join(w.io.env['HOME'] ?? '', 'seed');
    mkdirSync(path.join(seed, 'conf'), { recursive: true });
    writeFileSync(path.join(seed, 'conf', 'settings'), 'from the host\n');
    w.writeConfig(
      '[[volumes]]\nname = "prefs"\nrole = "state"\ntarget = "/home/dev/prefs"\n[volumes.seed]\nhost = "~/seed"\n',
    );
    loadHostTree(w.engine.host, seed);
    await develop();
    const volume = `byre-${w.id}-prefs`;
    expect(w.engine.volumeData.get(volume)?.get('conf/settings')).toEqual({
      kind: 'file',
      bytes: Buffer.from('from the host\n'),
    });
    expect(w.engine.callsTo('startAttached')).toHaveLength(1);
  });

  it('a skill’s socket: dev joins the group the engine shows for it, not the host file’s', async () => {
    const sock = path.join(w.io.env['HOME'] ?? '', 'sock');
    writeFileSync(sock, '');
    const id = await localSkill(
      'sock',
      '[runtime]\nsock_groups = ["/run/x.sock"]\nmounts = [{ host = "~/sock", target = "/run/x.sock", mode = "rw" }]\n',
    );
    w.writeConfig(`skills = ["${id}"]\n`);
    loadHostTree(w.engine.host, sock);
    const file = w.engine.host.lstat(sock);
    if (file === undefined) throw new Error('not loaded');
    // Under a VM the engine's view of the group differs from the host file's (adr/0021).
    w.engine.host.nodes.set(sock, { ...file, gid: 4242 });
    await develop();
    const argv = w.engine.callsTo('create')[0]?.[0] as string[];
    expect(argv[argv.indexOf('--group-add') + 1]).toBe('4242');
    expect(argv.filter((a) => a === '--group-add')).toHaveLength(1);
  });

  it('removes a box left created by a byre that is gone, then launches', async () => {
    const stale = w.engine.addContainer({
      name: `byre-${w.id}`,
      labels: sessionLabels({ [LABEL.client]: '999' }),
      running: false,
    });
    await develop();
    expect(w.engine.callsTo('remove')).toEqual([[stale.id]]);
    expect(w.engine.callsTo('startAttached')).toHaveLength(1);
  });

  it.each([
    [0, null],
    [7, 7],
    [127, 127],
  ])('the agent exiting %i passes through', async (code, passed) => {
    w.engine.exitCode = code;
    const outcome = await develop().then(
      () => null,
      (e: unknown) => (e instanceof PassthroughExit ? e.code : e),
    );
    expect(outcome).toBe(passed);
  });
});

describe('develop: the bind proof (adr/0045)', () => {
  function createArgv(): string[] {
    return w.engine.callsTo('create')[0]?.[0] as string[];
  }

  it('hands the launcher every bind with its source pinned, the workspace first', async () => {
    const data = path.join(path.dirname(w.dir), 'data');
    mkdirSync(data);
    w.writeConfig(`[[mounts]]\nhost = "${data}"\ntarget = "/data"\n`);
    await develop();
    const ws = statSync(w.dir, { bigint: true });
    const d = statSync(data, { bigint: true });
    expect(createArgv()).toContain(
      `BYRE_BIND_PROOF=${ws.dev}:${ws.ino}:/workspace,${d.dev}:${d.ino}:/data`,
    );
    expect(w.io.err).not.toContain('binds not proven');
  });

  it('bind.changed: the launcher’s proof status is a refusal naming the bind that leads elsewhere now', async () => {
    const data = path.join(path.dirname(w.dir), 'data');
    mkdirSync(data);
    w.writeConfig(`[[mounts]]\nhost = "${data}"\ntarget = "/data"\n`);
    // What a box that can write above the source does between byre's check and the start.
    w.engine.onStart = async () => {
      renameSync(data, `${data}.real`);
      symlinkSync(w.home, data);
    };
    w.engine.exitCode = 222;
    const error = await refusal(develop());
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('bind.changed');
    expect(error.message).toContain('byre stopped this box before anything ran in it');
    expect(error.details).toEqual([
      `the mount ${data} -> /data: ${data} now leads to ${w.home}, another object`,
    ]);
  });

  it('against an engine elsewhere, proves nothing and says so before the start', async () => {
    w.io.env['DOCKER_HOST'] = 'ssh://me@build-host';
    await develop();
    expect(createArgv().some((a) => a.startsWith('BYRE_BIND_PROOF='))).toBe(false);
    expect(w.io.err).toContain(
      "byre: 🛑 binds not proven: DOCKER_HOST names ssh://…, another machine's engine;",
    );
  });
});

describe('develop: every refusal', () => {
  it('develop.session-live: a running box here; the remedies render one per line', async () => {
    const live = w.engine.addContainer({
      name: `byre-${w.id}`,
      labels: sessionLabels(),
      running: true,
    });
    const error = await refusal(develop());
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('develop.session-live');
    const lines = printed(error).split('\n');
    expect(lines).toEqual([
      `byre: a session is already running for this directory (${live.id.slice(0, 12)}).`,
      `  • re-attach to it:     docker attach --detach-keys=ctrl-p,ctrl-q ${live.id.slice(0, 12)}`,
      '  • open a shell in it:  byre shell',
      `  • stop it:             docker stop ${live.id.slice(0, 12)}`,
    ]);
    expect(mutations(w.engine)).toEqual([]);
  });

  it('develop.session-live: a box another living byre has created and not yet started is left alone', async () => {
    w.alive.add(777);
    const starting = w.engine.addContainer({
      name: `byre-${w.id}`,
      labels: sessionLabels({ [LABEL.client]: '777' }),
      running: false,
    });
    expect((await refusal(develop())).rule).toBe('develop.session-live');
    expect(w.engine.containers.has(starting.id)).toBe(true);
    expect(mutations(w.engine)).toEqual([]);
  });

  it('develop.session-live: a session on another installed engine counts too', async () => {
    const podman = new FakeEngine({ name: 'podman' });
    podman.addContainer({ name: `byre-${w.id}`, labels: sessionLabels(), running: true });
    const error = await refusal(develop({ pool: poolOf(w.engine, podman) }));
    expect(error.rule).toBe('develop.session-live');
    expect(error.details.join('\n')).toContain('podman stop');
  });

  it('develop.session-unknown: an engine that failed its query might hide a session', async () => {
    const error = await refusal(
      develop({ pool: poolOf(w.engine, failing('podman', 'engine.failed')) }),
    );
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('develop.session-unknown');
    expect(mutations(w.engine)).toEqual([]);
  });

  it.each(['engine.unreachable', 'engine.denied'])(
    'an engine that is %s holds no session of this user: develop goes on',
    async (rule) => {
      await develop({ pool: poolOf(w.engine, failing('podman', rule)) });
      expect(w.engine.callsTo('startAttached')).toHaveLength(1);
    },
  );

  it('develop.exclusive-unknown: an engine byre cannot ask might hold the exclusive volume', async () => {
    w.writeConfig(EXCLUSIVE);
    // The worktree's own session check gets an answer; the project-wide question does not.
    const onlyWide = new FakeEngine({ name: 'podman' });
    const ps = onlyWide.ps.bind(onlyWide);
    onlyWide.ps = async (q) => {
      if (q.labels[LABEL.workdir] === undefined) {
        throw new EngineError('podman ps failed', { engine: 'podman', argv: ['ps'] });
      }
      return ps(q);
    };
    const error = await refusal(develop({ pool: poolOf(w.engine, onlyWide) }));
    expect(error.rule).toBe('develop.exclusive-unknown');
    expect(mutations(w.engine)).toEqual([]);
  });

  it('develop.exclusive-unknown: a sibling box whose launch record cannot be verified', async () => {
    w.writeConfig(EXCLUSIVE);
    w.engine.addContainer({
      name: 'byre-sibling',
      labels: {
        [LABEL.project]: w.id,
        [LABEL.workdir]: `${w.id}-feature`,
        [LABEL.launch]: 'f'.repeat(64),
      },
      running: true,
    });
    const error = await refusal(develop());
    expect(error.rule).toBe('develop.exclusive-unknown');
    expect(error.message).toContain('missing');
  });

  it('develop.exclusive-held: a sibling worktree session holds the exclusive volume', async () => {
    w.writeConfig(EXCLUSIVE);
    let second: ByreError | null = null;
    w.engine.onStart = async (box) => {
      if (second !== null) return;
      // This running box becomes a sibling worktree's session that holds db.
      box.labels[LABEL.workdir] = `${w.id}-feature`;
      second = await refusal(develop());
    };
    await develop();
    expect(second).not.toBeNull();
    expect(second!.rule).toBe('develop.exclusive-held');
    expect(second!.message).toMatch(/volume db is exclusive and box [0-9a-f]{12}/);
  });

  it('develop.engine-changed: the config names another engine by the time the lock is held', async () => {
    w.writeConfig('engine = "auto"\n');
    const error = await refusal(
      develop({
        detect: async () => {
          w.writeConfig('engine = "podman"\n');
          return FAKE_FACTS;
        },
      }),
    );
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('develop.engine-changed');
    expect(mutations(w.engine)).toEqual([]);
  });

  it('develop.config-changed: credential rows appear by the time the lock is held', async () => {
    w.writeConfig('engine = "auto"\n');
    const { table } = await createIdentity('passphrase', 10);
    const row = await sealValue(table.recipient, 'encrypted', 'API_KEY', Buffer.from('sk-test'));
    const sealed = `[env_from_host]\nAPI_KEY = "${row}"\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`;
    const error = await refusal(
      develop({
        detect: async () => {
          w.writeConfig(sealed);
          return FAKE_FACTS;
        },
      }),
    );
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('develop.config-changed');
    expect(mutations(w.engine)).toEqual([]);
  });

  async function injectedConfig(key = 'API_KEY', top = ''): Promise<string> {
    const { table } = await createIdentity('passphrase', 10);
    const rules = [
      {
        hosts: [{ name: 'api.example.com', port: 443 }],
        presentation: { kind: 'bearer' as const },
      },
    ];
    const row = await sealInjected(table.recipient, key, rules, Buffer.from('sk-test'));
    return `${top}[env_from_host]\n${key} = "${row}"\n\n[[inject.${key}]]\nhosts = ["api.example.com"]\nbearer = true\n\n[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n`;
  }

  const WALLED = 'skills = ["firewall"]\n';

  it('an injected credential behind a wall is served at the edge: develop goes on to ask the passphrase', async () => {
    w.writeConfig(await injectedConfig('API_KEY', WALLED));
    const error = await refusal(develop());
    // It gets as far as asking the passphrase (there is no terminal here to answer).
    expect(error.rule).toMatch(/^credential\./);
    expect(mutations(w.engine)).toEqual([]);
  });

  it('an injected credential without a wall gets as far as the passphrase too', async () => {
    w.writeConfig(await injectedConfig());
    const error = await refusal(develop());
    expect(error.rule).toMatch(/^credential\./);
  });

  it("the edge runs on byre's own image, built from byre's base, never on the box's image the config shapes (adr/0077)", async () => {
    w.writeConfig(await injectedConfig('API_KEY', 'dockerfile_post = ["RUN echo config-line"]\n'));
    const passphrase = path.join(w.dir, '..', 'passphrase');
    writeFileSync(passphrase, 'passphrase\n');
    const dockerfiles = new Map<string, string>();
    const build = w.engine.build.bind(w.engine);
    w.engine.build = async (spec, io) => {
      dockerfiles.set(spec.tag, readFileSync(spec.dockerfile ?? '', 'utf8'));
      return build(spec, io);
    };
    // The edge is ready before the box starts.
    w.engine.onRunStream = async () => ({ exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' });
    /** The edge's run argv and the box's create argv. */
    const launch = async (): Promise<(string[] | undefined)[]> => {
      w.engine.calls.length = 0;
      const fd = openSync(passphrase, 'r');
      try {
        await developCommand(w.io, { passphraseFd: fd }, w.deps);
      } finally {
        closeSync(fd);
      }
      const argvs = (method: 'runStream' | 'create'): string[][] =>
        w.engine.callsTo(method).map((args) => args[0] as string[]);
      return [argvs('runStream').find((a) => a[0] === 'run'), ...argvs('create')];
    };
    const [edge, box] = await launch();
    const edgeTag = `byre-${w.id}-edge`;
    const edgeImage = w.engine.images.get(edgeTag);
    expect(edgeImage?.labels[LABEL.project]).toBe(w.id);
    // The helper names the edge image by id; the box, its own image.
    expect(edge).toContain(edgeImage?.id);
    expect(box?.at(-1)).toBe(`byre-${w.id}-u1000-g1000`);
    expect(edge).not.toContain(box?.at(-1));
    // The config's line shapes the box's image only.
    const edgeFile = dockerfiles.get(edgeTag) ?? '';
    expect(edgeFile.split('\n').filter((l) => l.startsWith('FROM '))).toEqual([
      'FROM debian:bookworm-slim',
    ]);
    expect(edgeFile).not.toContain('config-line');
    expect([...dockerfiles.values()].some((d) => d.includes('RUN echo config-line'))).toBe(true);
    // A second launch finds it current: no build of it again.
    dockerfiles.clear();
    const [again] = await launch();
    expect(dockerfiles.has(edgeTag)).toBe(false);
    expect(again).toContain(edgeImage?.id);
  });

  describe('the edge started before the setup lock (adr/0080)', () => {
    const helper = (): string => edgeHelperName(containerName(w.id));
    const lockOf = () => ({ dir: w.store, lock: path.join(w.store, 'lock') });
    /** What each edge start was fed (its stdin), by the order they ran. */
    let fed: string[];

    /** A warm project: its edge image built by a first launch; the calls then forgotten. */
    async function warm(config = ''): Promise<string> {
      w.writeConfig(await injectedConfig('API_KEY', config));
      const passphrase = path.join(w.dir, '..', 'passphrase');
      writeFileSync(passphrase, 'passphrase\n');
      fed = [];
      w.engine.onRunStream = async (_argv, stdin) => {
        fed.push(stdin.toString('utf8'));
        return { exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' };
      };
      expect(await launch(passphrase)).toBeNull();
      w.engine.calls.length = 0;
      fed = [];
      return passphrase;
    }

    /** A launch: null once it ran (nothing is delivered into an injecting box), or its refusal. */
    async function launch(passphrase: string): Promise<ByreError | null> {
      const fd = openSync(passphrase, 'r');
      try {
        await developCommand(w.io, { passphraseFd: fd }, w.deps);
        return null;
      } catch (error) {
        if (error instanceof ByreError) return error;
        throw error;
      } finally {
        closeSync(fd);
      }
    }

    /** The lock held by another launch until `release`. */
    async function holdLock(): Promise<{ release: () => Promise<void> }> {
      let free = (): void => undefined;
      let taken = (): void => undefined;
      const got = new Promise<void>((resolve) => {
        taken = resolve;
      });
      const held = withSetupLock(lockOf(), async () => {
        taken();
        await new Promise<void>((resolve) => {
          free = resolve;
        });
      });
      await got;
      return {
        release: async () => {
          free();
          await held;
        },
      };
    }

    /** The edge's runs (adr/0081: made and started in one call). */
    const edgeRuns = (): string[][] =>
      w.engine
        .callsTo('runStream')
        .map((args) => args[0] as string[])
        .filter((argv) => argv[0] === 'run' && argv.includes(helper()));

    it('is made and started while another launch holds the lock, given its values only under it, and adopted: one edge, the box in its network', async () => {
      const passphrase = await warm();
      const lock = await holdLock();
      const running = launch(passphrase);
      await until(() => edgeRuns().length > 0);
      // Started, listening, and waiting: nothing of the values yet.
      expect(fed).toEqual([]);
      expect(w.engine.callsTo('ps')).toEqual([]);
      await lock.release();
      expect(await running).toBeNull();
      expect(edgeRuns()).toHaveLength(1);
      expect(fed).toHaveLength(1);
      expect(fed[0]).toContain('sk-test');
      const box = w.engine
        .callsTo('create')
        .map((args) => args[0] as string[])
        .find((a) => a.includes(containerName(w.id)));
      expect(box?.[box.indexOf('--network') + 1]).toBe(`container:${helper()}`);
      expect(w.engine.containers.size).toBe(0);
    });

    it("is dropped when the lock's read plans another edge (ports added meanwhile): its helper removed unfed, the launch's own made with them", async () => {
      const passphrase = await warm();
      const lock = await holdLock();
      const running = launch(passphrase);
      await until(() => edgeRuns().length > 0);
      const early = [...w.engine.containers].find(([, c]) => c.name === helper())?.[0];
      writeFileSync(
        path.join(w.store, 'byre.config'),
        `ports = [{ container = 80, host = 8080 }]\n${readFileSync(path.join(w.store, 'byre.config'), 'utf8')}`,
      );
      await lock.release();
      await running;
      const [before, after] = edgeRuns();
      expect(before).not.toContain('-p');
      expect(after).toContain('127.0.0.1:8080:80');
      const removed = w.engine.callsTo('remove').map(([id]) => id);
      expect(removed).toContain(early);
      // The values went to the launch's own edge only.
      expect(fed.filter((f) => f.includes('sk-test'))).toHaveLength(1);
      expect(w.engine.containers.size).toBe(0);
    });

    it('goes when the launch fails before the lock (a wrong passphrase): nothing is left', async () => {
      const passphrase = await warm();
      writeFileSync(passphrase, 'not the passphrase\n');
      const error = await launch(passphrase);
      expect(error?.rule).toMatch(/^credential\./);
      expect(edgeRuns()).toHaveLength(1);
      // Its stdin ended with nothing written to it.
      expect(fed.join('')).toBe('');
      expect(w.engine.containers.size).toBe(0);
    });

    const edgeTag = (): string => `byre-${w.id}-edge`;
    const recordFile = (): string => path.join(w.home, 'edge', `${w.id}.image-id`);
    /** Whether anything asked the engine about the image under the edge tag. */
    const askedEdgeTag = (): boolean =>
      w.engine.calls.some(
        (c) =>
          (c.method === 'imageInfo' && c.args[0] === edgeTag()) ||
          (c.method === 'imageInfoAll' && (c.args[0] as string[]).includes(edgeTag())),
      );

    it('runs on the image recorded current without asking the engine about the edge tag, before the lock or under it (adr/0083)', async () => {
      const passphrase = await warm();
      const current = w.engine.images.get(edgeTag())?.id ?? '';
      expect(recordedEdgeImage(recordFile(), w.engine.facts.name)).toBe(current);
      const lock = await holdLock();
      const running = launch(passphrase);
      await until(() => edgeRuns().length > 0);
      await lock.release();
      expect(await running).toBeNull();
      expect(edgeRuns()).toHaveLength(1);
      expect(edgeRuns()[0]).toContain(current);
      expect(fed).toHaveLength(1);
      expect(askedEdgeTag()).toBe(false);
      expect(w.engine.containers.size).toBe(0);
    });

    it('a recorded image that is gone: the engine refuses the early edge, and the launch runs on the one current under the tag, recording it', async () => {
      const passphrase = await warm();
      const current = w.engine.images.get(edgeTag())?.id ?? '';
      const gone = `sha256:${'e'.repeat(64)}`;
      await recordEdgeImage(recordFile(), w.engine.facts.name, gone);
      await launch(passphrase);
      const [early, own] = edgeRuns();
      expect(early).toContain(gone);
      expect(own).toContain(current);
      expect(askedEdgeTag()).toBe(true);
      expect(fed).toHaveLength(1);
      expect(recordedEdgeImage(recordFile(), w.engine.facts.name)).toBe(current);
      expect(w.engine.containers.size).toBe(0);
    });

    it("never takes a name held before the lock: a helper under it is left to the lock's path, which replaces it", async () => {
      const passphrase = await warm();
      const stale = w.engine.addContainer({ name: helper(), running: false });
      const lock = await holdLock();
      const running = launch(passphrase);
      await until(() => edgeRuns().length > 0);
      await new Promise((r) => setTimeout(r, 50));
      expect(w.engine.containers.has(stale.id)).toBe(true);
      expect(w.engine.callsTo('remove')).toEqual([]);
      await lock.release();
      await running;
      expect(w.engine.callsTo('remove').map(([id]) => id)).toContain(helper());
      expect(fed).toHaveLength(1);
      expect(w.engine.containers.size).toBe(0);
    });
  });

  it('edge.run-args: an injecting box refuses run_args that set its network, naming each and who set it, before anything is made', async () => {
    w.writeConfig(
      await injectedConfig(
        'API_KEY',
        'run_args = ["--memory=1g", "--network", "mynet", "-p", "9090:90"]\n',
      ),
    );
    const passphrase = path.join(w.dir, '..', 'passphrase');
    writeFileSync(passphrase, 'passphrase\n');
    const fd = openSync(passphrase, 'r');
    let error: ByreError;
    try {
      error = await refusal(developCommand(w.io, { passphraseFd: fd }, w.deps));
    } finally {
      closeSync(fd);
    }
    expect(error.rule).toBe('edge.run-args');
    expect(error.details).toEqual(['--network mynet (project)', '-p 9090:90 (project)']);
    expect(mutations(w.engine)).toEqual([]);
  });

  it("an injecting box joins its edge's network: the edge made and ready first, owning the box's host entries and ports; removed after the box (adr/0079)", async () => {
    w.writeConfig(await injectedConfig('API_KEY', 'ports = [{ container = 80, host = 8080 }]\n'));
    const passphrase = path.join(w.dir, '..', 'passphrase');
    writeFileSync(passphrase, 'passphrase\n');
    const order: string[] = [];
    let helperId = '';
    w.engine.onRunStream = async () => {
      order.push('edge ready');
      const helper = edgeHelperName(containerName(w.id));
      helperId = [...w.engine.containers].find(([, c]) => c.name === helper)![0];
      return { exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' };
    };
    w.engine.onStart = async () => {
      order.push('box started');
    };
    const fd = openSync(passphrase, 'r');
    try {
      await developCommand(w.io, { passphraseFd: fd }, w.deps);
    } finally {
      closeSync(fd);
    }
    // Nothing is delivered for an injected key (adr/0084): no exec into the box.
    expect(w.engine.callsTo('execStream')).toEqual([]);
    const edge = w.engine
      .callsTo('runStream')
      .map((args) => args[0] as string[])
      .find((a) => a[0] === 'run');
    const [box] = w.engine.callsTo('create').map((args) => args[0] as string[]);
    const helper = edgeHelperName(containerName(w.id));
    expect(edge?.slice(edge.indexOf('--name'), edge.indexOf('--name') + 2)).toEqual([
      '--name',
      helper,
    ]);
    expect(edge).toContain('--add-host');
    expect(edge).toContain('127.0.0.1:8080:80');
    // The box names the edge's network and carries none of what the edge owns.
    expect(box?.[box.indexOf('--network') + 1]).toBe(`container:${helper}`);
    expect(box).not.toContain('--add-host');
    expect(box).not.toContain('-p');
    // Its launcher sets the named keys to the sentinel once its edge gate opens; no tmpfs.
    expect(box).toContain('BYRE_EDGE_SENTINELS=API_KEY');
    expect(box).not.toContain('--tmpfs');
    expect(order).toEqual(['edge ready', 'box started']);
    // The box (which joins the edge's network) goes before the edge.
    const removed = w.engine.callsTo('remove').map((args) => args[0]);
    // By its id (adr/0080).
    expect(removed.indexOf(helperId)).toBeGreaterThan(removed.indexOf(containerName(w.id)));
    expect(w.engine.containers.size).toBe(0);
  });

  it('the box starts once its edge runs, before the edge is ready; an edge that then exits stops it (fail closed), and is the failure reported', async () => {
    w.writeConfig(await injectedConfig());
    const passphrase = path.join(w.dir, '..', 'passphrase');
    writeFileSync(passphrase, 'passphrase\n');
    const order: string[] = [];
    // Its shell says it runs; node then fails before its ready line (once
    // the box exists: an edge gone before the box's create is another case).
    w.engine.onRunStream = async () => {
      await until(() => w.engine.callsTo('create').length > 0);
      order.push('edge up');
      return {
        exitCode: 2,
        stdout: 'byre-edge 1 up\n',
        stderr: 'byre-edge: input line 1: not JSON\n',
      };
    };
    w.engine.onStart = async () => {
      order.push('box started');
      await until(() => w.engine.callsTo('stop').length > 0);
    };
    const fd = openSync(passphrase, 'r');
    let error: ByreError;
    try {
      error = await refusal(developCommand(w.io, { passphraseFd: fd }, w.deps));
    } finally {
      closeSync(fd);
    }
    expect(order).toEqual(['edge up', 'box started']);
    expect(error.rule).toBe('develop.credentials-failed');
    expect(error.details.join('\n')).toContain('exited before it was ready');
    expect(w.engine.callsTo('stop').map(([id]) => id)).toHaveLength(1);
    expect(w.engine.containers.size).toBe(0);
  });

  it.each([
    [137, /exited 137 \(SIGKILL\)/],
    [139, /possibly SIGSEGV/],
    [255, /exited 255/],
  ])('develop.box-exit: the box exiting %i is byre’s failure, explained', async (code, message) => {
    w.engine.exitCode = code;
    const error = await refusal(develop());
    expect(error.rule).toBe('develop.box-exit');
    expect(error.message).toMatch(message);
  });

  it('develop.firewall-failed: the wall did not apply, the box is stopped, one byre: prefix', async () => {
    w.writeConfig('skills = ["firewall"]\n');
    w.engine.failNext(
      'networkMode',
      new EngineError('docker inspect failed (exit 1)', {
        engine: 'docker',
        argv: ['inspect'],
        stderr: 'no such network\n',
      }),
    );
    w.engine.onStart = () => until(() => w.engine.callsTo('stop').length > 0);
    const error = await refusal(develop());
    expect(error.rule).toBe('develop.firewall-failed');
    const text = printed(error);
    expect(text.match(/byre:/g)).toHaveLength(1);
    expect(text).not.toContain('\\n');
    expect(text.split('\n').slice(0, 2)).toEqual([
      'byre: the network wall did not apply, so the box was stopped (fail closed):',
      '  docker inspect failed (exit 1)',
    ]);
  });
});

/** The wall's helper, started attached: its hook says the gate opened. */
const gateOpens = async (): Promise<{ exitCode: number; stdout: string; stderr: string }> => ({
  exitCode: 0,
  stdout: '',
  stderr: 'byre-firewall: gate opened\n',
});

describe('develop: who removes the box', () => {
  const box = (): string => containerName(w.id);

  it('a walled box is created without --rm and removed by byre after its helper', async () => {
    w.writeConfig('skills = ["firewall"]\n');
    w.engine.onRunStream = gateOpens;
    w.engine.onStart = () => until(() => w.engine.callsTo('runStream').length > 0);
    await develop();
    expect(w.engine.callsTo('create')[0]?.[0]).not.toContain('--rm');
    // At the end the helper first, then the box: podman cannot remove a
    // box another container joins (no stale helper, so none before).
    expect(w.engine.callsTo('remove')).toEqual([[wallHelperName(box())], [box()]]);
  });

  it('an open box is the engine’s to remove (--rm), and byre removes nothing', async () => {
    await develop();
    expect(w.engine.callsTo('create')[0]?.[0]).toContain('--rm');
    expect(w.engine.callsTo('remove')).toEqual([]);
  });
});

describe('develop: the wall’s last session (adr/0064)', () => {
  const recordFile = (): string => path.join(w.store, 'launches', `last-session-${w.id}.json`);
  const statusText = async (): Promise<string> => {
    let out = '';
    const io = fakeIo({ ...w.io, stdout: { write: (s: string) => ((out += s), true) } });
    await statusCommand(io, { full: true }, w.deps);
    // Rows wrap at the page width: one space per run of blanks reads them whole.
    return out.replace(/\s+/g, ' ');
  };

  it('a walled session’s refused names are kept when it ends; an open session removes them', async () => {
    w.writeConfig('skills = ["firewall"]\n');
    w.engine.onRunStream = gateOpens;
    w.engine.onStart = async () => {
      await until(() => w.engine.callsTo('runStream').length > 0);
      const helper = wallHelperName(containerName(w.id));
      w.engine.logText.set(helper, {
        stderr: 'byre-firewall: gate opened\n',
        stdout: [
          'dnsmasq: started',
          'byre-wall 1 refused-name 1764660000 evil.example A',
          'byre-wall 1 refused-name 1764660009 evil.example AAAA',
          'byre-wall 1 refused-name 1764660001 \x1b[2J.example A',
          'byre-wall 1 refused-connect 1764660002 tcp 10.0.0.5 443',
          '',
        ].join('\n'),
      });
      // While the box runs, status reads its helper's log.
      let out = '';
      const io = fakeIo({ ...w.io, stdout: { write: (s: string) => ((out += s), true) } });
      await statusCommand(io, { data: true }, w.deps);
      live = JSON.parse(out) as { network: { denials: unknown } };
    };
    let live: { network: { denials: unknown } } | null = null;
    await develop();
    expect(live).toMatchObject({
      network: {
        denials: {
          of: 'running_box',
          error: null,
          names: [{ name: 'evil.example', qtypes: ['A', 'AAAA'], count: 2 }],
          connects: [{ proto: 'tcp', address: '10.0.0.5', port: 443, count: 1 }],
        },
      },
    });
    expect(statSync(recordFile()).mode & 0o777).toBe(0o600);
    const text = await statusText();
    expect(text).toContain(
      'last session (ended 2026-12-01 10:00:00 UTC): 1 name refused (evil.example ×2); 1 connect rejected (10.0.0.5:443/tcp)',
    );
    expect(text).toContain(
      'name evil.example ×2 (A, AAAA; first 2025-12-02 07:20:00 UTC, last 2025-12-02 07:20:09 UTC)',
    );
    expect(text).not.toContain('\x1b');

    w.writeConfig('');
    w.engine.onStart = async () => undefined;
    await develop();
    expect(existsSync(recordFile())).toBe(false);
    expect(await statusText()).not.toContain('Denied');
  });

  it('a record that is not byre’s shape is no record', async () => {
    w.writeConfig('skills = ["firewall"]\n');
    mkdirSync(path.dirname(recordFile()), { recursive: true });
    writeFileSync(recordFile(), '{"format":"byre-wall-record","version":1,"names":["\\u001b[2J"]}');
    expect(await statusText()).not.toContain('Denied');
  });
});

describe('develop: a warm launch does only the work that changed', () => {
  const launches = (): string => path.join(w.store, 'launches');
  const podman = (): FakeEngine => new FakeEngine({ name: 'podman' });

  it('an unchanged launch record is not written again, and nothing is reaped or asked', async () => {
    await develop();
    const [name] = readdirSync(launches()).filter((f) => f.endsWith('.toml'));
    const inode = statSync(path.join(launches(), name ?? '-')).ino;
    const other = podman();
    await develop({ pool: poolOf(w.engine, other) });
    expect(readdirSync(launches()).filter((f) => f.endsWith('.toml'))).toEqual([name]);
    expect(statSync(path.join(launches(), name ?? '-')).ino).toBe(inode);
    // Only the session question went to podman; no reaping query.
    expect(other.callsTo('ps')).toHaveLength(1);
    expect(other.callsTo('psLabels')).toEqual([]);
  });

  it('a record no box points at is reaped beside the session, every engine asked', async () => {
    const stale = `${'e'.repeat(64)}.toml`;
    mkdirSync(launches(), { recursive: true });
    writeFileSync(path.join(launches(), stale), 'old\n');
    const other = podman();
    await develop({ pool: poolOf(w.engine, other) });
    expect(readdirSync(launches())).not.toContain(stale);
    expect(other.callsTo('psLabels')).toHaveLength(1);
  });
});

describe('develop: the engine record scopes the session check (adr/0032)', () => {
  const record = (): string => readFileSync(path.join(w.store, `engine.${w.id}`), 'utf8');
  const writeRecord = (text: string): void => {
    mkdirSync(w.store, { recursive: true });
    writeFileSync(path.join(w.store, `engine.${w.id}`), text);
  };
  const podmanSession = (): FakeEngine => {
    const podman = new FakeEngine({ name: 'podman' });
    podman.addContainer({ name: `byre-${w.id}`, labels: sessionLabels(), running: true });
    return podman;
  };

  it('records the engine it launched on', async () => {
    w.writeConfig('engine = "docker"\n');
    await develop();
    expect(record()).toBe('docker\n');
  });

  it('with a record naming the configured engine, no other engine is asked', async () => {
    w.writeConfig('engine = "docker"\n');
    writeRecord('docker\n');
    const podman = podmanSession();
    await develop({ pool: poolOf(w.engine, podman) });
    expect(podman.calls).toEqual([]);
    expect(w.engine.callsTo('startAttached')).toHaveLength(1);
  });

  it('after a switch of engine, the recorded engine is still asked: its session refuses', async () => {
    w.writeConfig('engine = "docker"\n');
    writeRecord('podman\n');
    const error = await refusal(develop({ pool: poolOf(w.engine, podmanSession()) }));
    expect(error.rule).toBe('develop.session-live');
    expect(record()).toBe('podman\n');
  });

  it.each([
    ['no record', null],
    ['an unreadable record', 'podman but garbled\n'],
    ['engine = "auto"', 'docker\n'],
  ])('with %s, every engine is asked', async (_name, text) => {
    w.writeConfig(_name === 'engine = "auto"' ? 'engine = "auto"\n' : 'engine = "docker"\n');
    if (text !== null) writeRecord(text);
    const error = await refusal(develop({ pool: poolOf(w.engine, podmanSession()) }));
    expect(error.rule).toBe('develop.session-live');
  });

  it('an engine that could not be asked stays in the record until it answers', async () => {
    w.writeConfig('engine = "docker"\n');
    await develop({ pool: poolOf(w.engine, failing('podman', 'engine.unreachable')) });
    expect(record()).toBe('docker unresolved=podman\n');
    const error = await refusal(develop({ pool: poolOf(w.engine, podmanSession()) }));
    expect(error.rule).toBe('develop.session-live');
    const quiet = new FakeEngine({ name: 'podman' });
    await develop({ pool: poolOf(w.engine, quiet) });
    expect(record()).toBe('docker\n');
  });

  it('status asks only the engines that can hold the project’s sessions', async () => {
    w.writeConfig('engine = "docker"\n');
    writeRecord('docker\n');
    const podman = podmanSession();
    const io = fakeIo({ ...w.io, stdout: { write: () => true } });
    await statusCommand(io, { data: true }, { ...w.deps, pool: poolOf(w.engine, podman) });
    expect(podman.calls).toEqual([]);
    expect(w.engine.callsTo('psLabels')).toHaveLength(1);
    writeFileSync(path.join(w.store, 'engine.other-worktree-abc123'), 'podman\n');
    await statusCommand(io, { data: true }, { ...w.deps, pool: poolOf(w.engine, podman) });
    expect(podman.callsTo('psLabels')).toHaveLength(1);
  });

  it('status asks the recorded engines before it reads the config, each once', async () => {
    writeRecord('podman\n');
    const podman = podmanSession();
    const io = fakeIo({ ...w.io, stdout: { write: () => true } });
    // A config that does not parse: the record's engine was already asked.
    w.writeConfig('engine = \n');
    await expect(
      statusCommand(io, { data: true }, { ...w.deps, pool: poolOf(w.engine, podman) }),
    ).rejects.toThrow();
    expect(podman.callsTo('psLabels')).toHaveLength(1);
    expect(w.engine.calls).toEqual([]);
    // Configured docker joins after the config; podman is not asked twice.
    w.writeConfig('engine = "docker"\n');
    await statusCommand(io, { data: true }, { ...w.deps, pool: poolOf(w.engine, podman) });
    expect(podman.callsTo('psLabels')).toHaveLength(2);
    expect(w.engine.callsTo('psLabels')).toHaveLength(1);
  });
});

describe('engines are never guessed (adr/0053)', () => {
  const DOCKER_SAID = 'Cannot connect to the Docker daemon at unix:///nowhere/docker.sock.';
  const dockerDown = (): EngineError =>
    new EngineError('docker is not answering (info failed)', {
      engine: 'docker',
      argv: ['info'],
      stderr: `${DOCKER_SAID}\n`,
      rule: 'engine.unreachable',
    });
  /** Detection with docker down: podman would answer, if byre asked it. */
  const asked: string[] = [];
  const podman = (): FakeEngine => new FakeEngine({ name: 'podman', path: '/usr/bin/podman' });
  const detectDockerDown: CommandDeps['detect'] = async (choice) => {
    asked.push(choice);
    if (choice === 'docker') throw dockerDown();
    return podman().facts;
  };
  const writeRecord = (text: string): void => {
    mkdirSync(w.store, { recursive: true });
    writeFileSync(path.join(w.store, `engine.${w.id}`), text);
  };

  it('auto on a project whose boxes are on docker refuses when docker does not answer', async () => {
    asked.length = 0;
    writeRecord('docker\n');
    const other = podman();
    const error = await refusal(
      develop({
        detect: detectDockerDown,
        pool: poolOf(w.engine, other),
        createEngine: () => other,
      }),
    );
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('engine.project-unavailable');
    expect(asked).toEqual(['docker']);
    expect([...mutations(w.engine), ...mutations(other)]).toEqual([]);
    const text = printed(error);
    expect(text).toContain("this project's boxes are on docker, and docker cannot be asked");
    expect(text).toContain(`docker said:\n      ${DOCKER_SAID}`);
    expect(text).toContain('to move this project to podman instead, set engine = "podman" in');
  });

  it('a configured docker the boxes are on, not answering, is refused the same way', async () => {
    writeRecord('docker\n');
    w.writeConfig('engine = "docker"\n');
    const error = await refusal(develop({ detect: detectDockerDown }));
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('engine.project-unavailable');
  });

  it('the launch records alone pin it: no engine record, docker down, still refused', async () => {
    await develop();
    const records = readdirSync(path.join(w.store, 'launches'));
    expect(records.some((f) => f.endsWith('.toml'))).toBe(true);
    for (const f of readdirSync(w.store).filter((n) => n.startsWith('engine.'))) {
      rmSync(path.join(w.store, f));
    }
    asked.length = 0;
    const error = await refusal(develop({ detect: detectDockerDown }));
    expect(error.rule).toBe('engine.project-unavailable');
    expect(asked).toEqual(['docker']);
  });

  it('a project that never launched lets auto pick, as before', async () => {
    asked.length = 0;
    const other = podman();
    await develop({ detect: detectDockerDown, pool: poolOf(other), createEngine: () => other });
    expect(asked).toEqual(['auto']);
  });

  it('a configured engine moves the project, announced on the first line with the reason', async () => {
    writeRecord('docker\n');
    w.writeConfig('engine = "podman"\n');
    const other = podman();
    await develop({
      detect: detectDockerDown,
      pool: poolOf(w.engine, other),
      createEngine: () => other,
    });
    expect(w.io.err.split('\n')[0]).toBe(
      'byre: engine: podman for this project, moved from docker because the config names podman (engine = "podman"); its image and volumes are made anew on podman, and docker\'s stay there',
    );
    expect(other.callsTo('startAttached')).toHaveLength(1);
    expect(readFileSync(path.join(w.store, `engine.${w.id}`), 'utf8')).toBe('podman\n');
    // Said once: the project is on podman now.
    const before = w.io.err.length;
    await develop({
      detect: detectDockerDown,
      pool: poolOf(w.engine, other),
      createEngine: () => other,
    });
    expect(w.io.err.slice(before)).not.toContain('moved from');
  });

  it('the engine detection remembered, not answering its ps, refuses: the project’s engine as detection does', async () => {
    writeRecord('docker\n');
    const dead = new FakeEngine({ name: 'docker' });
    dead.failNext('ps', dockerDown(), 10);
    const error = await refusal(develop({ pool: poolOf(dead), createEngine: () => dead }));
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('engine.project-unavailable');
    expect(mutations(dead)).toEqual([]);
    const text = printed(error);
    expect(text).toContain("this project's boxes are on docker, and docker cannot be asked");
    expect(text).toContain(`docker said:\n      ${DOCKER_SAID}`);
    expect(text).toContain('to move this project to podman instead, set engine = "podman" in');
  });

  it('develop.engine-unavailable: on a first launch, the engine detection remembered does not answer its ps', async () => {
    const dead = failing('docker', 'engine.unreachable');
    const error = await refusal(develop({ pool: poolOf(dead), createEngine: () => dead }));
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('develop.engine-unavailable');
    expect(mutations(dead)).toEqual([]);
  });

  it('cannot rule out a running session, quoting the engine’s own words', async () => {
    const broken = new FakeEngine({ name: 'podman' });
    broken.failNext(
      'ps',
      new EngineError('podman ps failed (exit 125)', {
        engine: 'podman',
        argv: ['ps'],
        stderr: 'Error: default OCI runtime "nosuchruntime" not found: invalid argument\n',
      }),
      10,
    );
    const error = await refusal(develop({ pool: poolOf(w.engine, broken) }));
    expect(error.rule).toBe('develop.session-unknown');
    expect(error.message).toBe(
      'cannot rule out a running session: podman (podman ps failed (exit 125): podman said "Error: default OCI runtime "nosuchruntime" not found: invalid argument")',
    );
  });

  it('status names the project’s engine that does not answer, and cannot say the box is not running', async () => {
    writeRecord('docker\n');
    const dead = failing('docker', 'engine.unreachable');
    dead.failNext('psLabels', dockerDown(), 10);
    let page = '';
    const io = fakeIo({ ...w.io, stdout: { write: (t: string) => (page += t) } });
    await statusCommand(
      io,
      { data: true },
      { ...w.deps, detect: detectDockerDown, pool: poolOf(dead, podman()) },
    );
    const data = JSON.parse(page) as {
      engine: { name: string | null; error: string | null };
      container: { state: string };
    };
    expect(data.engine.name).toBeNull();
    expect(data.engine.error).toContain(
      "this project's boxes are on docker, and docker cannot be asked",
    );
    expect(data.engine.error).toContain(`docker said "${DOCKER_SAID}"`);
    expect(data.container.state).toBe('unknown');
  });
});

describe('rebuild and status on the same fake', () => {
  it('rebuild refuses before any setup, then always builds without the cache', async () => {
    expect((await refusal(rebuildCommand(w.io, w.deps))).rule).toBe('rebuild.not-set-up');
    await develop();
    await rebuildCommand(w.io, w.deps);
    const builds = w.engine.callsTo('build').map((c) => (c[0] as { noCache: boolean }).noCache);
    expect(builds).toEqual([false, false, true, true]);
    expect(w.io.err).toContain('without the build cache');
  });

  it('rebuild.engine-changed: the engine pinned before the lock is the one the re-read must name', async () => {
    await develop();
    const builds = w.engine.callsTo('build').length;
    const error = await refusal(
      rebuildCommand(w.io, {
        ...w.deps,
        detect: async () => {
          w.writeConfig('engine = "podman"\n');
          return FAKE_FACTS;
        },
      }),
    );
    expect(error).toBeInstanceOf(RefusedError);
    expect(error.rule).toBe('rebuild.engine-changed');
    expect(error.remedy).toBe('run byre rebuild again');
    expect(w.engine.callsTo('build')).toHaveLength(builds);
  });

  it('status reads the running session off the fake, with its live creator', async () => {
    let page = '';
    w.engine.onStart = async () => {
      const io = fakeIo({ ...w.io, stdout: { write: (t: string) => (page += t) } });
      await statusCommand(io, { data: true }, { ...w.deps, pidAlive: (pid) => pid === PID });
    };
    await develop();
    const data = JSON.parse(page) as { container: { state: string; client_pid?: number } };
    expect(data.container.state).toBe('running');
  });
});

// Rootless podman binds the wiring read-only from the store (adr/0075).
describe('develop on rootless podman: the wiring bound from the store', () => {
  const ROOTLESS = {
    name: 'podman' as const,
    path: '/usr/bin/podman',
    rootless: true,
    keepId: true,
    version: '4.3.1',
  };
  function rootless(): CommandDeps {
    const engine = new FakeEngine(ROOTLESS);
    engine.images.set(DEFAULT_BASE, { id: 'sha256:base', labels: {} });
    w.engine = engine;
    return {
      detect: async () => ({ ...FAKE_FACTS, ...ROOTLESS }),
      createEngine: () => engine,
      pool: poolOf(engine),
    };
  }
  const createArgv = (n: number): string[] => w.engine.callsTo('create')[n]?.[0] as string[];
  const wiringMounts = (argv: string[]): string[] =>
    argv.filter((a) => a.includes('target=/etc/byre/'));

  it('builds one image without the wiring, binds each wiring entry read-only and proves it', async () => {
    const deps = rootless();
    await develop(deps);
    const builds = w.engine.callsTo('build').map((c) => c[0] as BuildSpec);
    expect(builds.map((b) => b.tag)).toEqual([`byre-${w.id}-u1000-g1000`]);
    expect(readFileSync(builds[0]?.dockerfile ?? '', 'utf8')).not.toContain('COPY wiring');
    const root = path.join(w.home, 'wiring', w.id);
    const [dir, ...others] = readdirSync(root);
    expect(others).toEqual([]);
    expect(dir).toMatch(/^[0-9a-f]{64}$/);
    const wiring = path.join(root, dir ?? '', 'wiring');
    // The Claude Skills tree is there, empty, as the COPY makes it.
    expect(wiringMounts(createArgv(0))).toEqual([
      `type=bind,source=${wiring}/claude-skills,target=/etc/byre/claude-skills,readonly`,
      `type=bind,source=${wiring}/mcp.json,target=/etc/byre/mcp.json,readonly`,
    ]);
    expect(readFileSync(path.join(wiring, 'mcp.json'), 'utf8')).toContain('mcpServers');
    const st = statSync(path.join(wiring, 'mcp.json'), { bigint: true });
    expect(createArgv(0).find((a) => a.startsWith('BYRE_BIND_PROOF='))).toContain(
      `,${st.dev}:${st.ino}:/etc/byre/mcp.json`,
    );
    // The launch record names where the wiring came from.
    const records = readdirSync(path.join(w.store, 'launches')).filter((f) => f.endsWith('.toml'));
    const record = readFileSync(path.join(w.store, 'launches', records[0] ?? ''), 'utf8');
    expect(record).toContain(`wiring = "${path.join(root, dir ?? '')}"`);
  });

  it('a wiring change builds nothing and binds a new directory; the old one is left as it was', async () => {
    const deps = rootless();
    await develop(deps);
    const root = path.join(w.home, 'wiring', w.id);
    const [first] = readdirSync(root);
    const before = readFileSync(path.join(root, first ?? '', 'wiring', 'mcp.json'), 'utf8');
    w.writeConfig('[[mcp]]\nname = "web"\nurl = "http://127.0.0.1:9/mcp"\n');
    await develop(deps);
    expect(w.engine.callsTo('build')).toHaveLength(1);
    const second = readdirSync(root).find((d) => d !== first);
    expect(second).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(root, first ?? '', 'wiring', 'mcp.json'), 'utf8')).toBe(before);
    expect(wiringMounts(createArgv(1))).toContain(
      `type=bind,source=${path.join(root, second ?? '', 'wiring')}/mcp.json,target=/etc/byre/mcp.json,readonly`,
    );
    expect(readFileSync(path.join(root, second ?? '', 'wiring', 'mcp.json'), 'utf8')).toContain(
      '"web"',
    );
  });

  it('a wiring directory that is not what its name says is written again', async () => {
    const deps = rootless();
    await develop(deps);
    const root = path.join(w.home, 'wiring', w.id);
    const [dir] = readdirSync(root);
    const mcp = path.join(root, dir ?? '', 'wiring', 'mcp.json');
    const good = readFileSync(mcp, 'utf8');
    writeFileSync(mcp, '{"mcpServers":{"evil":{}}}\n');
    await develop(deps);
    expect(readFileSync(mcp, 'utf8')).toBe(good);
  });

  it('against an engine elsewhere, the image carries the wiring as on docker', async () => {
    const deps = rootless();
    w.io.env['CONTAINER_HOST'] = 'ssh://me@build-host/run/podman.sock';
    await develop(deps);
    expect(w.engine.callsTo('build')).toHaveLength(2);
    expect(wiringMounts(createArgv(0))).toEqual([]);
    expect(existsSync(path.join(w.home, 'wiring'))).toBe(false);
  });
});
