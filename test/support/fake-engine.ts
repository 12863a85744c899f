// An in-memory Engine for unit tests of commands: it records every call and
// keeps just enough state (images, containers, volumes, each box's files) for
// ps-by-label and exists checks to answer consistently, and runs what byre
// execs in a box, and the helpers it runs, through fake-box.ts's interpreter.
// A helper's binds mount a virtual host (`host`, a tree the test fills; never
// the real disk): a missing source is the engine's refusal, a read-only bind
// stays read-only, and what a helper writes through a writable one lands
// back in it. A helper the interpreter does not model answers empty output,
// exit 0: the netns helper's init hook, which joins the box's network
// namespace, is the one byre runs. The engine contract (engine-contract.ts)
// holds the fake to what docker and podman do. It must never spawn, and
// touches disk only to write a run's cidfile where the caller named it (the
// engine's client writes it on the host).
// Over 500 lines: one in-memory engine, a method for each Engine method.

import { EngineError } from '../../src/errors.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path/posix';
import { Readable } from 'node:stream';
import {
  FakeBoxFs,
  isModelled,
  isPlain,
  runInBox,
  type BoxRun,
  type FakeNode,
} from './fake-box.js';
import type {
  BuildIo,
  Engine,
  EngineOutput,
  ExecResult,
  ImageInfo,
  RunOptions,
  StreamIo,
  StreamResult,
} from '../../src/engine/engine.js';
import type {
  BuildSpec,
  ContainerFacts,
  EngineFacts,
  LabelledContainer,
  ExecSpec,
  ImageFilter,
  ImageRef,
  LabelledObjectFacts,
  PsQuery,
  StorageInfo,
  VolumeFilter,
} from '../../src/engine/types.js';

/** The edge input's last line (src/credentials/edge-input.ts). */
const EDGE_INPUT_END = '{"byre-edge":1,"end":true}\n';

export type EngineMethod = Exclude<keyof Engine, 'facts'>;

export interface FakeCall {
  method: EngineMethod;
  args: unknown[];
}

export interface FakeContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  env: Record<string, string>;
  networkMode: string;
  running: boolean;
  image: string;
  /** What it runs: the words after the image in its run/create argv. */
  command: string[];
  /** Created with `--rm`: gone once its session ends. */
  autoRemove: boolean;
  /** The named volumes its `--mount type=volume` flags mount. */
  volumes: string[];
  /** What its exec'd commands see and change. */
  fs: FakeBoxFs;
}

export interface FakeImage {
  id: string;
  labels: Record<string, string>;
}

function hasAll(
  labels: Readonly<Record<string, string>>,
  filter: { labels?: Readonly<Record<string, string>>; hasLabels?: readonly string[] },
): boolean {
  return (
    Object.entries(filter.labels ?? {}).every(([k, v]) => labels[k] === v) &&
    (filter.hasLabels ?? []).every((k) => labels[k] !== undefined)
  );
}

/** What a `run` that exited `code` throws: a helper container's own exit status. */
export function runExited(code: number): EngineError {
  return new EngineError(`docker run failed (exit ${code})`, {
    engine: 'docker',
    argv: ['run'],
    exitCode: code,
  });
}

function matchesQuery(c: FakeContainer, query: PsQuery): boolean {
  return (
    (query.all || c.running) &&
    Object.entries(query.labels).every(([k, v]) => c.labels[k] === v) &&
    (query.hasLabels ?? []).every((k) => c.labels[k] !== undefined) &&
    (query.volume === undefined || c.volumes.includes(query.volume))
  );
}

/** One mount of a run/create argv. */
interface Mount {
  type: string;
  source: string;
  target: string;
  readonly: boolean;
  /** Given as `-v`: docker makes a missing bind source a directory. */
  short: boolean;
}

/** A `--mount` value's type, source, target and whether it is read-only. */
function mountOf(spec: string): Mount {
  const fields = new Map(
    spec.split(',').map((f): [string, string] => {
      const eq = f.indexOf('=');
      return eq < 0 ? [f, ''] : [f.slice(0, eq), f.slice(eq + 1)];
    }),
  );
  const ro = fields.get('readonly') ?? fields.get('ro');
  return {
    type: fields.get('type') ?? '',
    source: fields.get('source') ?? fields.get('src') ?? '',
    target: fields.get('target') ?? fields.get('dst') ?? fields.get('destination') ?? '',
    readonly: ro === '' || ro === 'true' || ro === '1',
    short: false,
  };
}

/** A `-v SOURCE:TARGET[:OPTIONS]` value: a bind when its source is a path, else a named volume. */
function volumeFlagOf(spec: string): Mount {
  const [source = '', target = '', options = ''] = spec.split(':');
  return {
    type: source.startsWith('/') ? 'bind' : 'volume',
    source,
    target,
    readonly: options.split(',').includes('ro'),
    short: true,
  };
}

/** The named volume a `--mount` value mounts: none unless it is `type=volume`. */
function volumeOfMount(spec: string): string[] {
  const m = mountOf(spec);
  return m.type === 'volume' && m.source !== '' ? [m.source] : [];
}

/** Every `--mount` and `-v` of a run/create argv, before its image. */
function mountsOf(argv: readonly string[]): Mount[] {
  const out: Mount[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--mount') out.push(mountOf(argv[i + 1] ?? ''));
    if (a === '-v' || a === '--volume') out.push(volumeFlagOf(argv[i + 1] ?? ''));
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) break;
  }
  return out;
}

/** Whether `p` is `root` or lies under it. */
function isUnder(p: string, root: string): boolean {
  return p === root || p.startsWith(root === '/' ? '/' : `${root}/`);
}

/** The `-e K=V` of a run argv, and its `--entrypoint`. */
function envAndEntrypoint(argv: readonly string[]): {
  env: Record<string, string>;
  entrypoint: string[];
} {
  const env: Record<string, string> = {};
  let entrypoint: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const next = argv[i + 1] ?? '';
    if (a === '-e') {
      const eq = next.indexOf('=');
      if (eq > 0) env[next.slice(0, eq)] = next.slice(eq + 1);
    } else if (a === '--entrypoint') entrypoint = [next];
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) break;
  }
  return { env, entrypoint };
}

/**
 * A helper's stdin, read to its end or, for the edge, to its input's end
 * line: byre holds the edge's stdin open past that for the session
 * (adr/0079).
 */
async function helperStdin(io: StreamIo): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (io.stdin instanceof Readable) {
    for await (const chunk of io.stdin) {
      chunks.push(Buffer.from(chunk as Buffer));
      if (Buffer.concat(chunks).toString('utf8').endsWith(EDGE_INPUT_END)) break;
    }
  }
  return Buffer.concat(chunks);
}

/** Run/create flags that take the next word as their value. */
const VALUED = new Set([
  '--name',
  '--cidfile',
  '-e',
  '--label',
  '--mount',
  '-p',
  '--cap-add',
  '--cap-drop',
  '--security-opt',
  '--group-add',
  '-u',
  '--user',
  '-v',
  '--volume',
  '--entrypoint',
  '--network',
  '--net',
  '--add-host',
  '--stop-timeout',
  '-w',
  '--hostname',
]);

/** The command a run/create argv gives its box: the words after the image. */
function commandOf(argv: readonly string[]): string[] {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) return argv.slice(i + 1);
  }
  return [];
}

export const FAKE_FACTS: EngineFacts = {
  name: 'docker',
  path: '/usr/bin/docker',
  rootless: false,
  keepId: false,
  version: '28.2.2',
  warnings: [],
};

export class FakeEngine implements Engine {
  readonly facts: EngineFacts;
  readonly calls: FakeCall[] = [];
  readonly images = new Map<string, FakeImage>();
  readonly containers = new Map<string, FakeContainer>();
  readonly volumes = new Map<string, Record<string, string>>();
  /** What each named volume holds, by path under its root; a helper box sees it at its mount. */
  readonly volumeData = new Map<string, Map<string, FakeNode>>();
  /**
   * The virtual host a helper's binds mount: what a test puts here is what a
   * bind of that path shows the helper, and what the helper writes through a
   * writable bind lands back here. Never the real disk.
   */
  readonly host = new FakeBoxFs(['/']);
  /** What `startAttached` returns; unset: the status of the box's own command (0 when not modelled). */
  exitCode: number | undefined = undefined;
  /** The session itself: runs while the started box is running (default: ends at once). */
  onStart: (box: FakeContainer) => Promise<void> = async () => undefined;
  /** What a detached `run -d` box writes (its `logs`); nothing unless set. */
  onRunDetached: (argv: readonly string[]) => EngineOutput | null = () => null;
  /** What `logs` answers per container name or id; a container without an entry logs nothing. */
  readonly logText = new Map<string, EngineOutput>();
  /** Answers a foreground `run` instead of a fresh box; unset: its command runs in one. */
  onRun: ((argv: readonly string[], options: RunOptions) => EngineOutput) | undefined = undefined;
  /** Answers `exec` and `execAttached` instead of the box (a hostile or broken box); unset: the box's interpreter. */
  onExec: ((spec: ExecSpec, input: string | undefined) => ExecResult) | undefined = undefined;
  /** Answers `execStream` with the stdin bytes it was fed instead of the box; unset: the box's interpreter. */
  onExecStream:
    | ((
        spec: ExecSpec,
        stdin: Buffer,
      ) => { exitCode: number; stdout: Buffer | string; stderr: string })
    | undefined = undefined;
  /** Answers `runStream` with the stdin bytes it was fed (it may never settle: a helper that hangs); unset: modelled like `run`. */
  onRunStream:
    | ((
        argv: readonly string[],
        stdin: Buffer,
      ) => Promise<{ exitCode: number; stdout: Buffer | string; stderr: string }>)
    | undefined = undefined;
  /** What `execStream` was asked to write to a descriptor, instead of writing it. */
  readonly descriptorOutput: { fd: number; bytes: Buffer }[] = [];
  /** Output `build` streams to onOutput; empty: one line naming the tag, as an engine says something. */
  buildOutput: string[] = [];
  private readonly failures = new Map<EngineMethod, Error[]>();
  private seq = 0;

  constructor(facts: Partial<EngineFacts> = {}) {
    this.facts = { ...FAKE_FACTS, ...facts };
  }

  /** The next call(s) to `method` throw `error` (default: an EngineError with exit 1). */
  failNext(method: EngineMethod, error?: Error, times = 1): void {
    const err =
      error ??
      new EngineError(`${this.facts.name} ${method} failed (exit 1)`, {
        engine: this.facts.name,
        argv: [method],
        exitCode: 1,
        stderr: 'fake failure',
      });
    const queue = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push(err);
    this.failures.set(method, queue);
  }

  /** Calls to one method, in order. */
  callsTo(method: EngineMethod): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** Adds a container as if created by a run/create argv, for session-discovery tests. */
  addContainer(c: Partial<FakeContainer> & { name: string }): FakeContainer {
    const full: FakeContainer = {
      id: this.nextId(),
      labels: {},
      env: {},
      networkMode: 'bridge',
      running: true,
      image: '',
      command: [],
      autoRemove: false,
      volumes: [],
      fs: new FakeBoxFs(),
      ...c,
    };
    this.containers.set(full.id, full);
    return full;
  }

  private record(method: EngineMethod, ...args: unknown[]): void {
    this.calls.push({ method, args });
    const err = this.failures.get(method)?.shift();
    if (err !== undefined) throw err;
  }

  private nextId(): string {
    this.seq += 1;
    return this.seq.toString(16).padStart(64, '0');
  }

  private find(idOrName: string): FakeContainer | undefined {
    for (const c of this.containers.values()) {
      if (
        c.id === idOrName ||
        c.name === idOrName ||
        (idOrName.length >= 12 && c.id.startsWith(idOrName))
      )
        return c;
    }
    return undefined;
  }

  private missing(what: string, argv: string): EngineError {
    return new EngineError(`${this.facts.name} ${argv} failed (exit 1)`, {
      engine: this.facts.name,
      argv: [argv, what],
      exitCode: 1,
      stderr: `Error: No such object: ${what}`,
    });
  }

  async build(spec: BuildSpec, io: BuildIo = {}): Promise<void> {
    this.record('build', spec);
    const said =
      this.buildOutput.length > 0 ? this.buildOutput : [`Successfully tagged ${spec.tag}\n`];
    for (const chunk of said) io.onOutput?.(chunk);
    this.images.set(spec.tag, { id: `sha256:${this.nextId()}`, labels: { ...spec.labels } });
  }

  async imageId(tag: string): Promise<string> {
    this.record('imageId', tag);
    const img = this.images.get(tag);
    if (img === undefined) throw this.missing(tag, 'image inspect');
    return img.id;
  }

  async imageExists(tag: string): Promise<boolean> {
    this.record('imageExists', tag);
    return this.images.has(tag);
  }

  async imageInfo(ref: string): Promise<ImageInfo | null> {
    this.record('imageInfo', ref);
    const img = this.images.get(ref);
    return img === undefined ? null : { id: img.id, labels: { ...img.labels } };
  }

  async imageInfoAll(refs: readonly string[]): Promise<ImageInfo[] | null> {
    this.record('imageInfoAll', [...refs]);
    const found = refs.map((ref) => this.images.get(ref));
    if (found.some((img) => img === undefined)) return null;
    return found.map((img) => ({ id: img?.id ?? '', labels: { ...img?.labels } }));
  }

  async imageLabels(tag: string): Promise<Record<string, string>> {
    this.record('imageLabels', tag);
    const img = this.images.get(tag);
    if (img === undefined) throw this.missing(tag, 'image inspect');
    return { ...img.labels };
  }

  async removeImage(tag: string): Promise<boolean> {
    this.record('removeImage', tag);
    const bare = tag.endsWith(':latest') ? tag.slice(0, -':latest'.length) : tag;
    for (const [t, img] of this.images) {
      if (img.id === tag) return this.images.delete(t);
    }
    return this.images.delete(bare);
  }

  async imageList(filter: ImageFilter): Promise<ImageRef[]> {
    this.record('imageList', filter);
    return [...this.images.entries()]
      .filter(([, img]) => hasAll(img.labels, filter))
      .map(([tag, img]) => ({ id: img.id, ref: `${tag}:latest` }));
  }

  /** Refuses a name in use, as both engines do. */
  async create(argv: readonly string[]): Promise<string> {
    this.record('create', [...argv]);
    const name = argv[argv.indexOf('--name') + 1];
    if (argv.includes('--name') && name !== undefined && this.find(name) !== undefined) {
      throw new EngineError(`${this.facts.name} create failed (exit 125)`, {
        engine: this.facts.name,
        argv: [...argv],
        exitCode: 125,
        stderr: `the container name "${name}" is already in use`,
      });
    }
    return this.containerFromArgv(argv, false).id;
  }

  /**
   * A `container:NAME` network as the engine records it: the joined
   * container's id. One that does not exist is refused at create, as both
   * engines do (neither needs it running until the start).
   */
  private joinedNetwork(mode: string, argv: readonly string[]): string {
    if (!mode.startsWith('container:')) return mode;
    const joined = this.find(mode.slice('container:'.length));
    if (joined === undefined) {
      throw new EngineError(`${this.facts.name} ${argv[0] ?? 'create'} failed (exit 125)`, {
        engine: this.facts.name,
        argv: [...argv],
        exitCode: 125,
        stderr: this.notFound(mode.slice('container:'.length)),
      });
    }
    return `container:${joined.id}`;
  }

  async startAttached(name: string, options: { tty: boolean }): Promise<number> {
    this.record('startAttached', name, options);
    const c = this.find(name);
    if (c === undefined) throw this.missing(name, 'start');
    c.running = true;
    await this.onStart(c);
    const status =
      this.exitCode ??
      (isPlain(c.command) ? (await runInBox(c.fs, c.command, Buffer.alloc(0))).exitCode : 0);
    c.running = false;
    if (c.autoRemove) this.containers.delete(c.id);
    return status;
  }

  async run(argv: readonly string[], options: RunOptions = {}): Promise<EngineOutput> {
    this.record('run', [...argv], options);
    if (argv.includes('-d') || argv.includes('--detach')) {
      const c = this.containerFromArgv(argv, true);
      const out = this.onRunDetached(argv);
      if (out !== null) this.logText.set(c.id, out);
      return { stdout: `${c.id}\n`, stderr: '' };
    }
    if (this.onRun !== undefined) return this.onRun(argv, options);
    // A helper box: its command runs in a fresh one over the volumes and the
    // virtual host's paths it mounts; a non-zero exit is the engine's
    // failure. A command the box does not model (the netns helper) answers
    // empty output, exit 0.
    const { env, entrypoint } = envAndEntrypoint(argv);
    const command = [...entrypoint, ...commandOf(argv)];
    if (!isModelled(command)) return { stdout: '', stderr: '' };
    const mounts = mountsOf(argv);
    const fs = this.mountAll(argv, mounts);
    const r = await runInBox(fs, command, Buffer.from(options.input ?? ''), env);
    this.keepVolumes(fs, mounts);
    this.keepBinds(fs, mounts);
    if (r.exitCode === 0) return { stdout: r.stdout.toString(), stderr: r.stderr };
    throw new EngineError(`${this.facts.name} run failed (exit ${r.exitCode})`, {
      engine: this.facts.name,
      argv: [...argv],
      exitCode: r.exitCode,
      stderr: r.stderr,
    });
  }

  /**
   * A helper box's files: each mount in place, shallowest target first as
   * the engines order them. A volume shows what it holds (made when
   * missing); a bind shows the virtual host's object at its source and all
   * under it (a final link followed). A bind source the host lacks fails the
   * run as the engine does, before anything runs; docker's `-v` makes it a
   * directory instead.
   */
  private mountAll(argv: readonly string[], mounts: readonly Mount[]): FakeBoxFs {
    const fs = new FakeBoxFs();
    const depth = (m: Mount): number => path.resolve('/', m.target).split('/').length;
    for (const m of [...mounts].sort((a, b) => depth(a) - depth(b))) {
      const target = path.resolve('/', m.target);
      for (const at of fs.tree(target).reverse()) fs.nodes.delete(at);
      fs.mkdirp(path.dirname(target));
      if (m.type === 'volume') {
        if (!this.volumes.has(m.source)) this.volumes.set(m.source, {});
        fs.mkdirp(target);
        for (const [rel, node] of this.volumeData.get(m.source) ?? [])
          fs.nodes.set(path.join(target, rel), node);
        continue;
      }
      const source = this.bindSource(argv, m);
      for (const at of this.host.tree(source))
        fs.nodes.set(path.join(target, path.relative(source, at)), this.host.lstat(at) as FakeNode);
    }
    fs.mounts.push(
      ...mounts.map((m) => ({ target: path.resolve('/', m.target), readonly: m.readonly })),
    );
    return fs;
  }

  /** Where a bind's source resolves on the virtual host; a missing one is the engine's refusal. */
  private bindSource(argv: readonly string[], m: Mount): string {
    let source = path.resolve('/', m.source);
    for (let hop = 0; hop < 8; hop++) {
      const node = this.host.lstat(source);
      if (node?.kind !== 'link') break;
      source = path.resolve(path.dirname(source), node.target);
    }
    if (this.host.lstat(source) !== undefined) return source;
    if (m.short && this.facts.name === 'docker') {
      this.host.mkdirp(source);
      return source;
    }
    throw new EngineError(`${this.facts.name} run failed (exit 125)`, {
      engine: this.facts.name,
      argv: [...argv],
      exitCode: 125,
      stderr:
        this.facts.name === 'podman'
          ? `Error: statfs ${m.source}: no such file or directory\n`
          : `docker: Error response from daemon: invalid mount config for type "bind": bind source path does not exist: ${m.source}\n`,
    });
  }

  /** What a helper left under each volume's mount is what the volume holds now. */
  private keepVolumes(fs: FakeBoxFs, mounts: readonly Mount[]): void {
    for (const m of mounts) {
      if (m.type !== 'volume') continue;
      const root = path.resolve('/', m.target);
      const data = new Map<string, FakeNode>();
      for (const at of fs.tree(root).slice(1)) {
        const node = fs.lstat(at);
        if (node !== undefined) data.set(path.relative(root, at), node);
      }
      this.volumeData.set(m.source, data);
    }
  }

  /**
   * What a helper left under each writable bind is what the virtual host
   * holds there now, but for what another mount inside it covers; the
   * source's own object stays (it was the mount point). A read-only bind
   * changes nothing.
   */
  private keepBinds(fs: FakeBoxFs, mounts: readonly Mount[]): void {
    for (const m of mounts) {
      if (m.type !== 'bind' || m.readonly) continue;
      const target = path.resolve('/', m.target);
      const source = this.bindSource([], m);
      if (this.host.lstat(source)?.kind !== 'dir') {
        const node = fs.lstat(target);
        if (node !== undefined) this.host.nodes.set(source, node);
        continue;
      }
      const covered = mounts
        .map((o) => path.resolve('/', o.target))
        .filter((t) => t !== target && isUnder(t, target));
      const mine = (at: string, root: string): boolean =>
        at !== root && !covered.some((t) => isUnder(at, path.join(root, path.relative(target, t))));
      for (const at of this.host.tree(source).filter((a) => mine(a, source)))
        this.host.nodes.delete(at);
      for (const at of fs.tree(target).filter((a) => mine(a, target)))
        this.host.nodes.set(path.join(source, path.relative(target, at)), fs.lstat(at) as FakeNode);
    }
  }

  async ps(query: PsQuery): Promise<string[]> {
    this.record('ps', query);
    return [...this.containers.values()].filter((c) => matchesQuery(c, query)).map((c) => c.id);
  }

  async psLabels(query: PsQuery, keys: readonly string[]): Promise<LabelledContainer[]> {
    this.record('psLabels', query, [...keys]);
    return [...this.containers.values()]
      .filter((c) => matchesQuery(c, query))
      .map((c) => ({
        id: c.id,
        labels: Object.fromEntries(keys.flatMap((k) => (c.labels[k] ? [[k, c.labels[k]]] : []))),
      }));
  }

  async inspectLabels(id: string): Promise<Record<string, string>> {
    this.record('inspectLabels', id);
    const c = this.find(id);
    if (c === undefined) throw this.missing(id, 'inspect');
    return { ...c.labels };
  }

  async inspectEnv(id: string): Promise<Record<string, string>> {
    this.record('inspectEnv', id);
    const c = this.find(id);
    if (c === undefined) throw this.missing(id, 'inspect');
    return { ...c.env };
  }

  async inspectContainers(ids: readonly string[]): Promise<ContainerFacts[]> {
    this.record('inspectContainers', [...ids]);
    return ids.flatMap((id) => {
      const c = this.find(id);
      if (c === undefined) return [];
      return [{ id: c.id, running: c.running, labels: { ...c.labels }, env: { ...c.env } }];
    });
  }

  async networkMode(id: string): Promise<string> {
    this.record('networkMode', id);
    const c = this.find(id);
    if (c === undefined) throw this.missing(id, 'inspect');
    return c.networkMode;
  }

  async logs(id: string, options: { tail?: number } = {}): Promise<EngineOutput | null> {
    this.record('logs', id, options);
    const c = this.find(id);
    if (c === undefined) return null;
    const out = this.logText.get(c.name) ?? this.logText.get(c.id) ?? { stdout: '', stderr: '' };
    if (options.tail === undefined) return { ...out };
    // The engines' tail counts both streams' lines together; the fake logs stdout first.
    const lines = (text: string, err: boolean): { text: string; err: boolean }[] =>
      text
        .split('\n')
        .slice(0, -1)
        .map((l) => ({ text: `${l}\n`, err }));
    const kept = [...lines(out.stdout, false), ...lines(out.stderr, true)].slice(-options.tail);
    const join = (err: boolean): string =>
      kept
        .filter((l) => l.err === err)
        .map((l) => l.text)
        .join('');
    return { stdout: join(false), stderr: join(true) };
  }

  async stop(id: string, seconds: number): Promise<void> {
    this.record('stop', id, seconds);
    const c = this.find(id);
    if (c === undefined) throw this.missing(id, 'stop');
    c.running = false;
  }

  async remove(id: string): Promise<boolean> {
    this.record('remove', id);
    const c = this.find(id);
    if (c === undefined) return false;
    // Podman will not remove a container whose network another one joins.
    const dependent = [...this.containers.values()].find(
      (d) => d.networkMode === `container:${c.id}`,
    );
    if (this.facts.name === 'podman' && dependent !== undefined) {
      throw new EngineError('podman rm failed (exit 2)', {
        engine: 'podman',
        argv: ['rm', '-f', id],
        exitCode: 2,
        stderr: `Error: container ${c.id} has dependent containers which must be removed before it: ${dependent.id}: container already exists\n`,
      });
    }
    return this.containers.delete(c.id);
  }

  async volumeExists(name: string): Promise<boolean> {
    this.record('volumeExists', name);
    return this.volumes.has(name);
  }

  async volumeCreate(name: string, labels: Readonly<Record<string, string>>): Promise<void> {
    this.record('volumeCreate', name, { ...labels });
    if (!this.volumes.has(name)) this.volumes.set(name, { ...labels });
  }

  async volumeRemove(name: string): Promise<boolean> {
    this.record('volumeRemove', name);
    this.volumeData.delete(name);
    return this.volumes.delete(name);
  }

  async volumeList(filter: VolumeFilter): Promise<string[]> {
    this.record('volumeList', filter);
    return [...this.volumes.entries()]
      .filter(([name]) => filter.name === undefined || name.includes(filter.name))
      .filter(([, labels]) => hasAll(labels, filter))
      .map(([name]) => name)
      .sort();
  }

  async inspectVolumes(names: readonly string[]): Promise<LabelledObjectFacts[]> {
    this.record('inspectVolumes', [...names]);
    return names.flatMap((name) => {
      const labels = this.volumes.get(name);
      return labels === undefined ? [] : [{ id: name, labels: { ...labels } }];
    });
  }

  async inspectImages(ids: readonly string[]): Promise<LabelledObjectFacts[]> {
    this.record('inspectImages', [...ids]);
    return ids.flatMap((id) => {
      const img = [...this.images.values()].find((i) => i.id === id);
      return img === undefined ? [] : [{ id: img.id, labels: { ...img.labels } }];
    });
  }

  /** What `storageInfo` answers. */
  storage: StorageInfo = { root: '/var/lib/docker', remote: false };

  async storageInfo(): Promise<StorageInfo> {
    this.record('storageInfo');
    return { ...this.storage };
  }

  /** Image refs `registryHas` says a registry has. */
  readonly registry = new Set<string>();

  async registryHas(
    ref: string,
    timeoutMs: number,
  ): Promise<{ has: true } | { has: false; why: string }> {
    this.record('registryHas', ref, timeoutMs);
    return this.registry.has(ref) ? { has: true } : { has: false, why: `manifest unknown: ${ref}` };
  }

  async exec(spec: ExecSpec, options: { input?: string } = {}): Promise<ExecResult> {
    this.record('exec', spec, options);
    // Like the engines: a missing box is the client's non-zero status, not a thrown error.
    const box = this.find(spec.id);
    if (box === undefined)
      return { exitCode: this.missingExit(), stdout: '', stderr: this.notFound(spec.id) };
    if (this.onExec !== undefined) return this.onExec(spec, options.input);
    const r = await this.inBox(box, spec, Buffer.from(options.input ?? ''));
    return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr };
  }

  /** Runs `spec` in a running box, as the engines do; a stopped one refuses. */
  private async inBox(box: FakeContainer, spec: ExecSpec, stdin: Buffer): Promise<BoxRun> {
    if (!box.running)
      return {
        exitCode: this.facts.name === 'podman' ? 125 : 1,
        stdout: Buffer.alloc(0),
        stderr: `Error: container ${box.id} is not running\n`,
      };
    return runInBox(box.fs, spec.command, stdin);
  }

  /** What the engine client exits with when the box is not there. */
  private missingExit(): number {
    return this.facts.name === 'podman' ? 125 : 1;
  }

  private notFound(id: string): string {
    return this.facts.name === 'podman'
      ? `Error: no container with name or id "${id}" found: no such container\n`
      : `Error response from daemon: No such container: ${id}\n`;
  }

  async execAttached(spec: ExecSpec): Promise<number> {
    this.record('execAttached', spec);
    // Like the engines: a missing box is the client's non-zero status.
    const box = this.find(spec.id);
    if (box === undefined) return this.missingExit();
    if (this.onExec !== undefined) return this.onExec(spec, undefined).exitCode;
    return (await this.inBox(box, spec, Buffer.alloc(0))).exitCode;
  }

  async execStream(spec: ExecSpec, io: StreamIo): Promise<StreamResult> {
    this.record('execStream', spec);
    const box = this.find(spec.id);
    if (box === undefined) {
      const stderr = this.notFound(spec.id);
      return { exitCode: this.missingExit(), stderr, stderrHead: stderr };
    }
    const chunks: Buffer[] = [];
    if (io.stdin instanceof Readable) {
      for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    }
    const stdin = Buffer.concat(chunks);
    const r =
      this.onExecStream !== undefined
        ? this.onExecStream(spec, stdin)
        : await this.inBox(box, spec, stdin);
    return this.streamOut(io, r);
  }

  /** A streamed call's answer delivered to its io: stderr, then stdout (a descriptor is kept, not written: the fake never touches disk). */
  private async streamOut(
    io: StreamIo,
    r: { exitCode: number; stdout: Buffer | string; stderr: string },
  ): Promise<StreamResult> {
    if (r.stderr !== '') io.onStderr?.(r.stderr);
    const out = io.stdout;
    if (typeof out === 'number')
      this.descriptorOutput.push({ fd: out, bytes: Buffer.from(r.stdout) });
    else {
      await new Promise<void>((resolve, reject) => {
        out.on('error', reject);
        out.end(r.stdout, () => resolve());
      });
    }
    return { exitCode: r.exitCode, stderr: r.stderr, stderrHead: r.stderr.slice(0, 4096) };
  }

  /**
   * An attached helper fed on stdin: modelled like `run`'s helpers (a plain
   * command over volumes), the rest answer nothing, exit 0.
   */
  async runStream(argv: readonly string[], io: StreamIo): Promise<StreamResult> {
    this.record('runStream', [...argv]);
    if (argv[0] === 'run' && argv.includes('--cidfile')) return this.runWithCidfile(argv, io);
    const stdin = await helperStdin(io);
    if (argv[0] === 'start') {
      const name = argv[argv.length - 1] ?? '';
      const c = this.find(name);
      if (c === undefined) throw this.missing(name, 'start');
      return this.startStream(c, argv, stdin, io);
    }
    const { env, entrypoint } = envAndEntrypoint(argv);
    const command = [...entrypoint, ...commandOf(argv)];
    const mounts = mountsOf(argv);
    const modelled = isPlain(command) && mounts.every((m) => m.type === 'volume');
    const r =
      this.onRunStream !== undefined
        ? await this.onRunStream(argv, stdin)
        : modelled
          ? await runInBox(this.mountAll(argv, mounts), command, stdin, env)
          : { exitCode: 0, stdout: Buffer.alloc(0), stderr: '' };
    return this.streamOut(io, r);
  }

  /**
   * `run -i --cidfile FILE …`: the container made (a name in use refused,
   * exit 125, as both engines do), its id written to FILE before it runs,
   * then started attached like `start --attach --interactive`.
   */
  private async runWithCidfile(argv: readonly string[], io: StreamIo): Promise<StreamResult> {
    const c = this.madeByRun(argv);
    if (typeof c === 'string') {
      return this.streamOut(io, { exitCode: 125, stdout: Buffer.alloc(0), stderr: c });
    }
    const stdin = await helperStdin(io);
    return this.startStream(c, argv, stdin, io);
  }

  /**
   * What a `run --cidfile FILE …` makes before its container starts: the
   * container, its id written to FILE; or the engine's refusal (its name
   * in use, its image absent: runs never pull here). For tests that stand
   * in for the run's stream themselves.
   */
  madeByRun(argv: readonly string[]): FakeContainer | string {
    const name = argv[argv.indexOf('--name') + 1];
    if (argv.includes('--name') && name !== undefined && this.find(name) !== undefined)
      return `the container name "${name}" is already in use`;
    const c = this.containerFromArgv(argv, false);
    const known =
      this.images.has(c.image) || [...this.images.values()].some((i) => i.id === c.image);
    if (!known) {
      this.containers.delete(c.id);
      return `${c.image}: image not known`;
    }
    writeFileSync(argv[argv.indexOf('--cidfile') + 1] ?? '', c.id, { flag: 'wx' });
    return c;
  }

  /** A created container started attached (`start --attach --interactive`, or a `run`'s): its command fed `stdin`, running meanwhile. */
  private async startStream(
    c: FakeContainer,
    argv: readonly string[],
    stdin: Buffer,
    io: StreamIo,
  ): Promise<StreamResult> {
    c.running = true;
    try {
      const r =
        this.onRunStream !== undefined
          ? await this.onRunStream(argv, stdin)
          : isPlain(c.command)
            ? await runInBox(c.fs, c.command, stdin)
            : { exitCode: 0, stdout: Buffer.alloc(0), stderr: '' };
      return this.streamOut(io, r);
    } finally {
      c.running = false;
    }
  }

  /** Reads `--name`, `-e`, `--label` and the image from a run/create argv; later flags win like the engine. */
  private containerFromArgv(argv: readonly string[], running: boolean): FakeContainer {
    const labels: Record<string, string> = {};
    const env: Record<string, string> = {};
    let name = '';
    let image = '';
    let networkMode = 'bridge';
    let autoRemove = false;
    const volumes: string[] = [];

    for (let i = 1; i < argv.length; i++) {
      const a = argv[i] ?? '';
      const next = argv[i + 1] ?? '';
      const split = (kv: string): [string, string] => {
        const eq = kv.indexOf('=');
        return eq < 0 ? [kv, ''] : [kv.slice(0, eq), kv.slice(eq + 1)];
      };
      if (VALUED.has(a)) {
        if (a === '--name') name = next;
        else if (a === '-e') env[split(next)[0]] = split(next)[1];
        else if (a === '--label') labels[split(next)[0]] = split(next)[1];
        else if (a === '--network' || a === '--net') networkMode = next;
        else if (a === '--mount') volumes.push(...volumeOfMount(next));
        i++;
      } else if (a === '--rm') autoRemove = true;
      else if (a.startsWith('--network=')) networkMode = a.slice('--network='.length);
      else if (a.startsWith('--name=')) name = a.slice('--name='.length);
      else if (a.startsWith('--label=')) labels[split(a.slice(8))[0]] = split(a.slice(8))[1];
      else if (!a.startsWith('-')) {
        image = a;
        break;
      }
    }
    const c = this.addContainer({
      name: name === '' ? `fake-${this.seq + 1}` : name,
      labels,
      env,
      running,
      image,
      networkMode: this.joinedNetwork(networkMode, argv),
      autoRemove,
      volumes,
      command: commandOf(argv),
    });
    return c;
  }
}
