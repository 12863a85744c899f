// The Engine interface and its docker/podman adapters over the engine CLI
// (execa; never an SDK). Adapters only execute argv from argv.ts and parse
// answers; they never decide policy, never print except streamed build output,
// and always run the absolute path pinned by detection.

import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { EngineError } from '../errors.js';
import {
  buildArgv,
  execArgv,
  imageIdArgv,
  imageInfoArgv,
  imageLabelsArgv,
  imageListArgv,
  inspectContainersArgv,
  inspectEnvArgv,
  inspectImagesArgv,
  inspectVolumesArgv,
  manifestInspectArgv,
  inspectLabelsArgv,
  networkModeArgv,
  psArgv,
  psLabelsArgv,
  removeArgv,
  removeImageArgv,
  startAttachedArgv,
  stopArgv,
  storageInfoArgv,
  volumeCreateArgv,
  volumeListArgv,
  volumeRemoveArgv,
} from './argv.js';
import {
  UNREACHABLE_REMEDY,
  classifyEngineFailure,
  isNotFound,
  onlyNotFound,
  tail,
} from './classify.js';
import type {
  BuildSpec,
  ContainerFacts,
  EngineFacts,
  LabelledContainer,
  EngineName,
  ExecSpec,
  ImageFilter,
  ImageRef,
  LabelledObjectFacts,
  PsQuery,
  StorageInfo,
  VolumeFilter,
} from './types.js';

export { classifyEngineFailure } from './classify.js';
export type { EngineFailure } from './classify.js';

export interface BuildIo {
  /** Receives engine output (stdout and stderr) as it arrives; defaults to the terminal's stderr. */
  onOutput?: (chunk: string) => void;
}

export interface ImageInfo {
  /** `sha256:<hex>`. */
  id: string;
  labels: Record<string, string>;
}

export interface EngineOutput {
  stdout: string;
  stderr: string;
}

export interface ExecResult extends EngineOutput {
  exitCode: number;
}

/** Streams for `execStream`: bytes flow through, never buffered whole. */
export interface StreamIo {
  /**
   * Fed to the box's stdin: a stream (byre copies it), or an open file
   * descriptor handed to the engine client as is (no copy through byre).
   */
  stdin?: Readable | number;
  /**
   * Receives the box's stdout: a stream (with backpressure; it is ended when
   * the box's stdout ends), or an open file descriptor the engine client
   * writes to directly (no copy through byre).
   */
  stdout: Writable | number;
}

export interface StreamResult {
  exitCode: number;
  /** The tail of the engine's stderr (64 KiB). */
  stderr: string;
  /** The first bytes of the engine's stderr (4 KiB), where a box script's header sits. */
  stderrHead: string;
}

export interface RunOptions {
  /** Piped to the container's stdin (the argv should carry `-i`). */
  input?: string;
  timeoutMs?: number;
}

export interface Engine {
  readonly facts: EngineFacts;
  build(spec: BuildSpec, io?: BuildIo): Promise<void>;
  /** `sha256:<hex>` on both engines. */
  imageId(tag: string): Promise<string>;
  imageExists(tag: string): Promise<boolean>;
  imageLabels(tag: string): Promise<Record<string, string>>;
  /** Id and labels in one engine call; null when the image is absent. */
  imageInfo(ref: string): Promise<ImageInfo | null>;
  /** False when there was no such image. */
  removeImage(tag: string): Promise<boolean>;
  /** Images matching `filter`, dangling ones included. */
  imageList(filter: ImageFilter): Promise<ImageRef[]>;
  /** `argv` from buildRunArgv(…, 'create'); returns the container id. */
  create(argv: readonly string[]): Promise<string>;
  /** `start --attach --interactive`, stdio inherited; the agent's exit status. */
  startAttached(name: string, options: { tty: boolean }): Promise<number>;
  /** A `run …` argv (helpers, dockerrun); throws EngineError on a non-zero exit. */
  run(argv: readonly string[], options?: RunOptions): Promise<EngineOutput>;
  ps(query: PsQuery): Promise<string[]>;
  /** `ps` with the values of `keys` per container, in one call (absent labels are left out). */
  psLabels(query: PsQuery, keys: readonly string[]): Promise<LabelledContainer[]>;
  inspectLabels(id: string): Promise<Record<string, string>>;
  inspectEnv(id: string): Promise<Record<string, string>>;
  /**
   * Id, labels and env of each container, in one engine call. Ids (or
   * unique prefixes) that name no container are left out, not errors.
   */
  inspectContainers(
    ids: readonly string[],
    options?: { signal?: AbortSignal },
  ): Promise<ContainerFacts[]>;
  networkMode(id: string): Promise<string>;
  stop(id: string, seconds: number): Promise<void>;
  /** Force-removes; false when there was no such container. */
  remove(id: string): Promise<boolean>;
  volumeExists(name: string): Promise<boolean>;
  volumeCreate(name: string, labels: Readonly<Record<string, string>>): Promise<void>;
  /** False when there was no such volume. */
  volumeRemove(name: string): Promise<boolean>;
  volumeList(filter: VolumeFilter): Promise<string[]>;
  /** Name and labels of each volume, in one call; names that vanished are left out. */
  inspectVolumes(names: readonly string[]): Promise<LabelledObjectFacts[]>;
  /** Id and labels of each image, in one call; ids that vanished are left out. */
  inspectImages(ids: readonly string[]): Promise<LabelledObjectFacts[]>;
  /** Where the engine keeps images. */
  storageInfo(): Promise<StorageInfo>;
  /**
   * Whether `ref`'s registry has it, asked without pulling (`manifest
   * inspect`); `why` is the engine's first line of refusal.
   */
  registryHas(ref: string, timeoutMs: number): Promise<{ has: true } | { has: false; why: string }>;
  /** The command's exit status is data here, not an error. */
  exec(spec: ExecSpec, options?: { input?: string }): Promise<ExecResult>;
  /** `exec` with the terminal attached (stdio inherited), e.g. `byre shell`; the exit status. */
  execAttached(spec: ExecSpec): Promise<number>;
  /**
   * `exec` with stdin and stdout streamed (deliver, grab). The exit status is
   * data; a failing consumer or source kills the exec and rethrows.
   */
  execStream(spec: ExecSpec, io: StreamIo): Promise<StreamResult>;
}

export interface EngineOptions {
  /** Environment for engine processes (DOCKER_HOST, XDG_RUNTIME_DIR …); defaults to this process's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Bound for queries (inspect, ps, volume ls …); reference: 2 min for network-mode inspect. */
  queryTimeoutMs?: number;
}

const DEFAULT_QUERY_TIMEOUT_MS = 120_000;

interface Captured {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError: string | undefined;
}

/**
 * Runs one engine command to completion, capturing output; never throws.
 * node's own spawn, not execa: this is every short query's path, and loading
 * execa costs ~8 ms of a ~15 ms start in the compiled binary (ADR 0007).
 * execa is imported on demand for the long-running calls below.
 */
export async function runEngineCommand(
  enginePath: string,
  args: readonly string[],
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    input?: string;
    timeoutMs?: number;
    /** Kills the command when aborted (a query whose answer is no longer needed). */
    signal?: AbortSignal;
  } = {},
): Promise<Captured> {
  return new Promise<Captured>((resolve) => {
    const command = `${enginePath} ${args.join(' ')}`;
    let child: ChildProcess;
    try {
      child = spawn(enginePath, [...args], {
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        ...(options.env === undefined ? {} : { env: options.env as NodeJS.ProcessEnv }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      resolve({
        exitCode: undefined,
        stdout: '',
        stderr: '',
        timedOut: false,
        spawnError: `${command}: ${(error as Error).message}`,
      });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let timedOut = false;
    let failure: string | undefined;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
            // A client that ignores SIGTERM still goes.
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }, options.timeoutMs);
    child.on('error', (error) => {
      failure = error.message;
    });
    child.on('close', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      // A spawn that failed (ENOENT …) still closes, with the errno as its "code".
      const ran = failure === undefined && code !== null;
      resolve({
        exitCode: ran ? code : undefined,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        spawnError:
          ran || timedOut
            ? undefined
            : `${command}: ${failure ?? `killed by ${signal ?? 'a signal'}`}`,
      });
    });
    if (options.input !== undefined && child.stdin !== null) {
      // A client that exits without reading its input is answered by its status.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** The one place a failed engine call becomes an EngineError. */
export function engineFailure(
  engine: EngineName,
  args: readonly string[],
  c: Omit<Captured, 'stdout'>,
): EngineError {
  const verb = args
    .slice(0, args[0] === 'image' || args[0] === 'volume' || args[0] === 'container' ? 2 : 1)
    .join(' ');
  const stderr = tail(c.stderr);
  if (c.timedOut) {
    return new EngineError(`${engine} ${verb} did not answer in time`, {
      engine,
      argv: args,
      stderr,
      rule: 'engine.timeout',
      remedy: UNREACHABLE_REMEDY[engine],
    });
  }
  if (c.spawnError !== undefined) {
    return new EngineError(`could not run ${engine}: ${c.spawnError}`, {
      engine,
      argv: args,
      stderr,
      rule: 'engine.spawn',
    });
  }
  const unreachable = classifyEngineFailure(stderr) === 'unreachable';
  return new EngineError(
    unreachable
      ? `${engine} is not answering`
      : `${engine} ${verb} failed (exit ${c.exitCode ?? '?'})`,
    {
      engine,
      argv: args,
      ...(c.exitCode === undefined ? {} : { exitCode: c.exitCode }),
      stderr,
      ...(unreachable ? { rule: 'engine.unreachable', remedy: UNREACHABLE_REMEDY[engine] } : {}),
    },
  );
}

function parseStringRecord(text: string, what: string): Record<string, string> {
  return stringRecordOf(JSON.parse(text.trim() === '' ? 'null' : text), what);
}

function stringRecordOf(value: unknown, what: string): Record<string, string> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new TypeError(`${what}: expected a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new TypeError(`${what}: value of ${k} is not a string`);
    out[k] = v;
  }
  return out;
}

/** `["K=V", …]` → record; a later duplicate wins, as in the process env. */
export function parseEnvList(text: string): Record<string, string> {
  return envOf(JSON.parse(text.trim() === '' ? 'null' : text));
}

function envOf(value: unknown): Record<string, string> {
  if (value === null) return {};
  if (!Array.isArray(value)) throw new TypeError('container env: expected a JSON array');
  const out: Record<string, string> = {};
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** psLabels rows: `[id, value…]` per line, values in `keys` order; "" is an absent label. */
export function parseLabelRows(text: string, keys: readonly string[]): LabelledContainer[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (
      !Array.isArray(value) ||
      value.length !== keys.length + 1 ||
      !value.every((v) => typeof v === 'string')
    ) {
      throw new TypeError(`ps: expected [id, ${keys.join(', ')}]`);
    }
    const [id, ...values] = value as string[];
    const labels: Record<string, string> = {};
    keys.forEach((k, i) => {
      const v = values[i] ?? '';
      if (v !== '') labels[k] = v;
    });
    return { id: id ?? '', labels };
  });
}

/** `container inspect` lines in CONTAINER_FACTS_FORMAT → facts; a malformed line throws. */
export function parseContainerFacts(text: string): ContainerFacts[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (
      !Array.isArray(value) ||
      value.length !== 4 ||
      typeof value[0] !== 'string' ||
      typeof value[1] !== 'boolean'
    ) {
      throw new TypeError('container inspect: expected [id, running, labels, env]');
    }
    const [id, running, labels, env] = value as [string, boolean, unknown, unknown];
    return {
      id,
      running,
      labels: stringRecordOf(labels, `labels of ${id}`),
      env: envOf(env),
    };
  });
}

/** `[name-or-id, labels]` lines (VOLUME_FACTS_FORMAT, IMAGE_FACTS_FORMAT); a malformed line throws. */
export function parseLabelledObjects(text: string, what: string): LabelledObjectFacts[] {
  return lines(text).map((line) => {
    const value: unknown = JSON.parse(line);
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') {
      throw new TypeError(`${what} inspect: expected [id, labels]`);
    }
    const id = what === 'image' ? normalizeImageId(value[0]) : value[0];
    return { id, labels: stringRecordOf(value[1] as unknown, `labels of ${what} ${id}`) };
  });
}

/** storageInfoArgv's answer: docker `[root, os]`, podman `[graphRoot, serviceIsRemote]`. */
export function parseStorageInfo(engine: EngineName, text: string): StorageInfo {
  const value: unknown = JSON.parse(text.trim());
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') {
    throw new TypeError(`${engine} info: expected [root, …]`);
  }
  const remote =
    engine === 'docker'
      ? typeof value[1] === 'string' && /docker desktop/i.test(value[1])
      : value[1] === true;
  return { root: value[0], remote };
}

/** `images --format '{{.ID}} {{.Repository}}:{{.Tag}}'` rows; `<none>:<none>` is dangling. */
export function parseImageList(text: string): ImageRef[] {
  return lines(text).flatMap((line) => {
    const space = line.indexOf(' ');
    if (space <= 0) return [];
    const ref = line.slice(space + 1).trim();
    const dangling = ref === '' || ref === '<none>:<none>' || ref.startsWith('<none>:');
    return [{ id: normalizeImageId(line.slice(0, space)), ref: dangling ? null : ref }];
  });
}

/** Podman prints the bare hex; Docker prefixes `sha256:`. */
export function normalizeImageId(raw: string): string {
  const id = raw.trim();
  return /^[0-9a-f]{64}$/.test(id) ? `sha256:${id}` : id;
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/**
 * One CLI adapter serves both engines: every docker/podman difference (build
 * `--format docker`, the keep-id userns flag) is an argv difference, so it
 * lives in argv.ts / run-argv.ts keyed by `facts.name`, where a table test pins it.
 */
class CliEngine implements Engine {
  readonly facts: EngineFacts;
  private readonly env: Readonly<Record<string, string | undefined>> | undefined;
  private readonly queryTimeoutMs: number;

  constructor(facts: EngineFacts, options: EngineOptions) {
    this.facts = facts;
    this.env = options.env;
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  }

  private spawnEnv(): { env?: Readonly<Record<string, string | undefined>> } {
    return this.env === undefined ? {} : { env: this.env };
  }

  private async call(
    args: readonly string[],
    options: { input?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Captured> {
    return runEngineCommand(this.facts.path, args, { ...this.spawnEnv(), ...options });
  }

  /** Runs a query; throws EngineError unless it exited 0. */
  private async query(
    args: readonly string[],
    timeoutMs: number = this.queryTimeoutMs,
  ): Promise<string> {
    const c = await this.call(args, { timeoutMs });
    if (c.exitCode !== 0) throw engineFailure(this.facts.name, args, c);
    return c.stdout;
  }

  /** Like query, but "no such object" is an answer (null) rather than an error. */
  private async queryMaybe(args: readonly string[]): Promise<string | null> {
    const c = await this.call(args, { timeoutMs: this.queryTimeoutMs });
    if (c.exitCode === 0) return c.stdout;
    if (c.exitCode !== undefined && isNotFound(c.stderr)) return null;
    throw engineFailure(this.facts.name, args, c);
  }

  async build(spec: BuildSpec, io: BuildIo = {}): Promise<void> {
    const { execa } = await import('execa');
    const args = buildArgv(this.facts.name, spec);
    const onOutput = io.onOutput ?? ((chunk: string) => void process.stderr.write(chunk));
    const sub = execa(this.facts.path, args, {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      ...(this.env === undefined ? {} : { env: this.env, extendEnv: false }),
    });
    let stderr = '';
    let combined = '';
    const keep = (acc: string, chunk: string): string => {
      const next = acc + chunk;
      return next.length > 4 * 64 * 1024 ? tail(next) : next;
    };
    sub.stdout.setEncoding('utf8');
    sub.stderr.setEncoding('utf8');
    sub.stdout.on('data', (chunk: string) => {
      combined = keep(combined, chunk);
      onOutput(chunk);
    });
    sub.stderr.on('data', (chunk: string) => {
      stderr = keep(stderr, chunk);
      combined = keep(combined, chunk);
      onOutput(chunk);
    });
    const r = await sub;
    if (r.exitCode === 0) return;
    // Legacy docker builds report the failing step on stdout; keep whichever tail says why.
    const why = stderr.trim() === '' ? combined : stderr;
    throw engineFailure(this.facts.name, args, {
      exitCode: r.exitCode,
      stderr: why,
      timedOut: r.timedOut,
      spawnError: r.failed && r.exitCode === undefined ? r.shortMessage : undefined,
    });
  }

  async imageId(tag: string): Promise<string> {
    return normalizeImageId(await this.query(imageIdArgv(tag)));
  }

  async imageExists(tag: string): Promise<boolean> {
    return (await this.queryMaybe(imageIdArgv(tag))) !== null;
  }

  async imageInfo(ref: string): Promise<ImageInfo | null> {
    const out = await this.queryMaybe(imageInfoArgv(ref));
    if (out === null) return null;
    const tab = out.indexOf('\t');
    return {
      id: normalizeImageId(out.slice(0, tab)),
      labels: parseStringRecord(out.slice(tab + 1), `labels of image ${ref}`),
    };
  }

  async imageLabels(tag: string): Promise<Record<string, string>> {
    return parseStringRecord(await this.query(imageLabelsArgv(tag)), `labels of image ${tag}`);
  }

  async removeImage(tag: string): Promise<boolean> {
    return (await this.queryMaybe(removeImageArgv(tag))) !== null;
  }

  async imageList(filter: ImageFilter): Promise<ImageRef[]> {
    return parseImageList(await this.query(imageListArgv(filter)));
  }

  async create(argv: readonly string[]): Promise<string> {
    if (argv[0] !== 'create') throw new TypeError('Engine.create takes a `create …` argv');
    const c = await this.call(argv);
    if (c.exitCode !== 0) throw engineFailure(this.facts.name, argv, c);
    return c.stdout.trim().split('\n').pop() ?? '';
  }

  async startAttached(name: string, _options: { tty: boolean }): Promise<number> {
    return this.attached(startAttachedArgv(name));
  }

  async execAttached(spec: ExecSpec): Promise<number> {
    return this.attached(execArgv(spec, false));
  }

  /** Runs an engine command on this terminal and returns its exit status. */
  private async attached(args: string[]): Promise<number> {
    // A non-TTY Ctrl-C reaches byre too; the engine client forwards it to the
    // box, and byre must stay alive to report the exit rather than die first.
    const ignore = (): void => {};
    process.on('SIGINT', ignore);
    try {
      const { execa } = await import('execa');
      const r = await execa(this.facts.path, args, {
        reject: false,
        stdio: 'inherit',
        ...(this.env === undefined ? {} : { env: this.env, extendEnv: false }),
      });
      if (r.exitCode !== undefined) return r.exitCode;
      if (r.signal !== undefined) return 128 + signalNumber(r.signal);
      throw engineFailure(this.facts.name, args, {
        exitCode: undefined,
        stderr: '',
        timedOut: false,
        spawnError: r.shortMessage,
      });
    } finally {
      process.off('SIGINT', ignore);
    }
  }

  async run(argv: readonly string[], options: RunOptions = {}): Promise<EngineOutput> {
    if (argv[0] !== 'run') throw new TypeError('Engine.run takes a `run …` argv');
    const c = await this.call(argv, {
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    if (c.exitCode !== 0) throw engineFailure(this.facts.name, argv, c);
    return { stdout: c.stdout, stderr: c.stderr };
  }

  async ps(query: PsQuery): Promise<string[]> {
    return lines(await this.query(psArgv(query)));
  }

  async psLabels(query: PsQuery, keys: readonly string[]): Promise<LabelledContainer[]> {
    return parseLabelRows(await this.query(psLabelsArgv(this.facts.name, query, keys)), keys);
  }

  async inspectLabels(id: string): Promise<Record<string, string>> {
    return parseStringRecord(await this.query(inspectLabelsArgv(id)), `labels of ${id}`);
  }

  async inspectEnv(id: string): Promise<Record<string, string>> {
    return parseEnvList(await this.query(inspectEnvArgv(id)));
  }

  async inspectContainers(
    ids: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ContainerFacts[]> {
    if (ids.length === 0) return [];
    const args = inspectContainersArgv(ids);
    const c = await this.call(args, {
      timeoutMs: this.queryTimeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    // A container that stopped since it was listed is an answer, not a failure.
    if (c.exitCode !== 0 && (c.exitCode === undefined || !onlyNotFound(c.stderr))) {
      throw engineFailure(this.facts.name, args, c);
    }
    return parseContainerFacts(c.stdout);
  }

  async networkMode(id: string): Promise<string> {
    return (await this.query(networkModeArgv(id))).trim();
  }

  async stop(id: string, seconds: number): Promise<void> {
    // The engine's own grace plus headroom; a hung stop must not hang byre.
    await this.query(stopArgv(id, seconds), this.queryTimeoutMs + seconds * 1000);
  }

  async remove(id: string): Promise<boolean> {
    // docker `rm -f` on a missing container exits 0 silently; podman says "no such container".
    const out = await this.queryMaybe(removeArgv(id));
    return out !== null && out.trim() !== '';
  }

  async volumeExists(name: string): Promise<boolean> {
    // `volume ls` rather than `volume inspect`: an unreachable engine must
    // throw, not read as "no volume". The name filter is fuzzy on docker.
    return (await this.volumeList({ name })).includes(name);
  }

  async volumeCreate(name: string, labels: Readonly<Record<string, string>>): Promise<void> {
    await this.query(volumeCreateArgv(name, labels));
  }

  async volumeRemove(name: string): Promise<boolean> {
    return (await this.queryMaybe(volumeRemoveArgv(name))) !== null;
  }

  async volumeList(filter: VolumeFilter): Promise<string[]> {
    return lines(await this.query(volumeListArgv(filter)));
  }

  async inspectVolumes(names: readonly string[]): Promise<LabelledObjectFacts[]> {
    return this.inspectBatch(inspectVolumesArgv(names), names.length, 'volume');
  }

  async inspectImages(ids: readonly string[]): Promise<LabelledObjectFacts[]> {
    return this.inspectBatch(inspectImagesArgv(ids), ids.length, 'image');
  }

  /** One batched inspect; objects that vanished since they were listed are an answer, not a failure. */
  private async inspectBatch(
    args: readonly string[],
    count: number,
    what: 'volume' | 'image',
  ): Promise<LabelledObjectFacts[]> {
    if (count === 0) return [];
    const c = await this.call(args, { timeoutMs: this.queryTimeoutMs });
    if (c.exitCode !== 0 && (c.exitCode === undefined || !onlyNotFound(c.stderr))) {
      throw engineFailure(this.facts.name, args, c);
    }
    return parseLabelledObjects(c.stdout, what);
  }

  async storageInfo(): Promise<StorageInfo> {
    return parseStorageInfo(this.facts.name, await this.query(storageInfoArgv(this.facts.name)));
  }

  async registryHas(
    ref: string,
    timeoutMs: number,
  ): Promise<{ has: true } | { has: false; why: string }> {
    const args = manifestInspectArgv(ref);
    const c = await this.call(args, { timeoutMs });
    if (c.exitCode === 0) return { has: true };
    if (c.timedOut)
      return { has: false, why: `the registry did not answer in ${timeoutMs / 1000} s` };
    if (c.spawnError !== undefined) throw engineFailure(this.facts.name, args, c);
    const first = c.stderr.split('\n').find((l) => l.trim() !== '') ?? `exit ${c.exitCode ?? '?'}`;
    return { has: false, why: first.trim() };
  }

  async exec(spec: ExecSpec, options: { input?: string } = {}): Promise<ExecResult> {
    const args = execArgv(spec, options.input !== undefined);
    const c = await this.call(args, options.input === undefined ? {} : { input: options.input });
    if (c.exitCode === undefined) throw engineFailure(this.facts.name, args, c);
    // Exit 125/126/127 from the engine client can be its own failure; only an
    // unreachable engine is lifted into an error, the rest is the command's status.
    if (c.exitCode !== 0 && classifyEngineFailure(c.stderr) === 'unreachable') {
      throw engineFailure(this.facts.name, args, c);
    }
    return { exitCode: c.exitCode, stdout: c.stdout, stderr: c.stderr };
  }

  async execStream(spec: ExecSpec, io: StreamIo): Promise<StreamResult> {
    const args = execArgv(spec, io.stdin !== undefined);
    const r = await streamEngineExec(this.facts.path, args, io, this.env);
    if (r.spawnError !== undefined) {
      throw engineFailure(this.facts.name, args, {
        exitCode: undefined,
        stderr: r.stderr,
        timedOut: false,
        spawnError: r.spawnError,
      });
    }
    if (r.exitCode !== 0 && classifyEngineFailure(r.stderr) === 'unreachable') {
      throw engineFailure(this.facts.name, args, { ...r, timedOut: false, spawnError: undefined });
    }
    return { exitCode: r.exitCode, stderr: r.stderr, stderrHead: r.stderrHead };
  }
}

const STDERR_HEAD = 4096;

/**
 * Runs one engine exec with streamed stdio. Shared by CliEngine; exported for
 * the runner's own tests. An early box exit (EPIPE on stdin) is not an error:
 * the exit status says what happened.
 */
export async function streamEngineExec(
  enginePath: string,
  args: readonly string[],
  io: StreamIo,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<StreamResult & { spawnError?: string }> {
  const stdinMode =
    io.stdin === undefined ? 'ignore' : typeof io.stdin === 'number' ? io.stdin : 'pipe';
  const child = spawn(enginePath, [...args], {
    stdio: [stdinMode, typeof io.stdout === 'number' ? io.stdout : 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env: env as NodeJS.ProcessEnv }),
  });
  // stderr is a pipe (stdio above), and stdout one unless a descriptor was handed over.
  const childErr = child.stderr as Readable;
  let stderr = '';
  let stderrHead = '';
  childErr.setEncoding('utf8');
  childErr.on('data', (chunk: string) => {
    if (stderrHead.length < STDERR_HEAD) stderrHead = (stderrHead + chunk).slice(0, STDERR_HEAD);
    stderr = tail(stderr + chunk);
  });
  let spawnError: string | undefined;
  const closed = new Promise<number>((resolve) => {
    child.on('error', (err) => {
      spawnError = err.message;
    });
    child.on('close', (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal)));
    });
  });
  const failures: unknown[] = [];
  const kill = (error: unknown): void => {
    failures.push(error);
    child.kill('SIGKILL');
  };
  const feeding =
    io.stdin instanceof Readable && child.stdin !== null
      ? pipeline(io.stdin, child.stdin).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          // The box stopped reading (it exited); its status tells why.
          if (code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
            if (!(io.stdin as Readable).destroyed) (io.stdin as Readable).destroy();
            return;
          }
          kill(error);
        })
      : Promise.resolve();
  const draining =
    typeof io.stdout === 'number'
      ? Promise.resolve()
      : pipeline(child.stdout as Readable, io.stdout).catch(kill);
  const exitCode = await closed;
  await Promise.all([feeding, draining]);
  if (failures.length > 0) throw failures[0];
  return { exitCode, stderr, stderrHead, ...(spawnError === undefined ? {} : { spawnError }) };
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGTERM: 15,
};

function signalNumber(signal: string): number {
  return SIGNALS[signal] ?? 0;
}

/** The adapter for what detection pinned. */
export function createEngine(facts: EngineFacts, options: EngineOptions = {}): Engine {
  return new CliEngine(facts, options);
}
