// The docker/podman adapter of the Engine interface over the engine CLI
// (never an SDK; on docker, three read-only queries go over the daemon's
// socket when the CLI would ask that very socket, adr/0040). It only
// executes argv from argv.ts and parses answers; it never decides policy,
// never prints except streamed build output, and always runs the absolute
// path pinned by detection.
// Over 500 lines: the CLI and API engines are one adapter; each method runs argv and parses.

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
  logsArgv,
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
import { apiGet, findApiRoute } from './docker-api.js';
import {
  containerFactsOf,
  containerInspectPath,
  containerListPath,
  idsOf,
  labelRowsOf,
  parseContainerList,
  type ApiRoute,
} from './docker-api-shape.js';
import {
  committedImages,
  fromImages,
  isBuildWorkingContainer,
  isStepLine,
  stepContainers,
} from './build-output.js';
import {
  classifyEngineFailure,
  isListingRace,
  isNotFound,
  onlyNotFound,
  tail,
} from './classify.js';
import { InterruptedError } from '../errors.js';
import { signalNumber } from './signals.js';

/** SIGINT's number, should the platform's table lack the signal byre forwarded. */
const SIGINT_NUMBER = 2;
import type {
  BuildIo,
  Engine,
  EngineOptions,
  EngineOutput,
  ExecResult,
  ImageInfo,
  RunOptions,
  StreamIo,
  StreamResult,
} from './engine.js';
import {
  lines,
  normalizeImageId,
  parseContainerFacts,
  parseEnvList,
  parseImageList,
  parseLabelRows,
  parseLabelledObjects,
  parseStorageInfo,
  parseStringRecord,
} from './output.js';
import { engineFailure, runEngineCommand, streamEngineExec, type Captured } from './spawn.js';
import type {
  BuildSpec,
  ContainerFacts,
  EngineFacts,
  ExecSpec,
  ImageFilter,
  ImageRef,
  LabelledContainer,
  LabelledObjectFacts,
  PsQuery,
  StorageInfo,
  VolumeFilter,
} from './types.js';

const DEFAULT_QUERY_TIMEOUT_MS = 120_000;
/** How an engine refuses to remove an image a container (or a child image) still holds. */
const IMAGE_IN_USE = /being used by|in use by|image is in use|dependent child images/i;
/** An interrupted build's images are tried this often, this far apart: ten seconds in all. */
const LEFTOVER_ATTEMPTS = 20;
const LEFTOVER_RETRY_MS = 500;
/** How often a podman listing that raced a removal is asked in all (`listQuery`). */
const LISTING_ASKS = 3;

/** An image's `{{.Id}}\t{{json .Config.Labels}}` line (imageInfoArgv). */
function imageInfoOf(row: string, ref: string): ImageInfo {
  const tab = row.indexOf('\t');
  return {
    id: normalizeImageId(row.slice(0, tab)),
    labels: parseStringRecord(row.slice(tab + 1), `labels of image ${ref}`),
  };
}

/**
 * One CLI adapter serves both engines: every docker/podman difference (build
 * `--format docker`, the keep-id userns flag) is an argv difference, so it
 * lives in argv.ts / gen/run-argv.ts keyed by `facts.name`, where a table test pins it.
 */
class CliEngine implements Engine {
  readonly facts: EngineFacts;
  protected readonly env: Readonly<Record<string, string | undefined>> | undefined;
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

  /**
   * A listing (ps, images, volumes). On podman one that raced a removal by
   * another client (`isListingRace`) is asked again, up to three asks a
   * moment apart; docker's daemon lists consistently.
   */
  private async listQuery(args: readonly string[]): Promise<string> {
    for (let ask = 1; ; ask++) {
      const c = await this.call(args, { timeoutMs: this.queryTimeoutMs });
      if (c.exitCode === 0) return c.stdout;
      const again = this.facts.name === 'podman' && ask < LISTING_ASKS && isListingRace(c.stderr);
      if (!again) throw engineFailure(this.facts.name, args, c);
      await new Promise((r) => setTimeout(r, 100 * ask));
    }
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
    // Podman's working containers from before this build are never this build's
    // leftovers; asked first, as the build makes its base's container at once.
    const before =
      this.facts.name === 'podman' ? await this.workingContainers().catch(() => null) : null;
    // Its own process group (adr/0026): a terminal Ctrl-C reaches byre alone, which
    // forwards exactly one signal and then removes what the build left.
    const sub = execa(this.facts.path, args, {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      detached: true,
      ...(this.env === undefined ? {} : { env: this.env, extendEnv: false }),
    });
    let interrupted: NodeJS.Signals | null = null;
    const forward = (signal: NodeJS.Signals): void => {
      if (interrupted !== null) return;
      interrupted = signal;
      sub.kill(signal);
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, forward);
    let stderr = '';
    let combined = '';
    let steps = '';
    let partial = '';
    const keep = (acc: string, chunk: string): string => {
      const next = acc + chunk;
      return next.length > 4 * 64 * 1024 ? tail(next) : next;
    };
    const track = (chunk: string): void => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (isStepLine(line)) steps += `${line}\n`;
    };
    sub.stdout.setEncoding('utf8');
    sub.stderr.setEncoding('utf8');
    sub.stdout.on('data', (chunk: string) => {
      combined = keep(combined, chunk);
      track(chunk);
      onOutput(chunk);
    });
    sub.stderr.on('data', (chunk: string) => {
      stderr = keep(stderr, chunk);
      combined = keep(combined, chunk);
      onOutput(chunk);
    });
    let r: Awaited<typeof sub>;
    let leftovers: string[] = [];
    try {
      r = await sub;
      // Still listening: a repeated Ctrl-C during the removal is swallowed, not fatal.
      if (interrupted !== null) {
        leftovers = await this.removeBuildLeftovers(`${steps}${partial}`, before);
      }
    } finally {
      for (const signal of signals) process.off(signal, forward);
    }
    if (interrupted !== null) {
      throw new InterruptedError(
        `the build was interrupted (${interrupted})${leftovers.length === 0 ? '' : `; could not remove ${leftovers.join(', ')}`}`,
        signalNumber(interrupted) ?? SIGINT_NUMBER,
        {
          rule: 'build.interrupted',
          ...(leftovers.length === 0
            ? {}
            : {
                remedy: `remove them with \`${this.facts.name} rm -f\` / \`${this.facts.name} image rm\``,
              }),
        },
      );
    }
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

  /** Podman's build working containers (`ps --external`): id and name. */
  private async workingContainers(): Promise<{ id: string; name: string }[]> {
    const out = await this.query(['ps', '-a', '--external', '--format', '{{.ID}} {{.Names}}']);
    return lines(out).flatMap((line) => {
      const [id, name] = line.split(' ');
      return id === undefined || name === undefined ? [] : [{ id, name }];
    });
  }

  /**
   * Removes what an interrupted build left: the images its steps committed
   * (newest first; one still in use stays) and, on podman, the working
   * containers of those images and of its base that were not there before.
   * Returns what could not be removed.
   */
  private async removeBuildLeftovers(
    steps: string,
    before: readonly { id: string; name: string }[] | null,
  ): Promise<string[]> {
    const committed = committedImages(steps);
    const failed: string[] = [];
    for (const id of stepContainers(steps)) {
      if (!(await this.removeStepContainer(id))) failed.push(`container ${id}`);
    }
    if (this.facts.name === 'podman') {
      const known = new Set((before ?? []).map((c) => c.id));
      const bases = before === null ? [] : fromImages(steps);
      const now = await this.workingContainers().catch(() => []);
      for (const c of now) {
        if (known.has(c.id) || !isBuildWorkingContainer(c.name, committed, bases)) continue;
        const gone = await this.call(['rm', '-f', c.id]);
        if (gone.exitCode !== 0) failed.push(`container ${c.name}`);
      }
    }
    const kept = await this.removeImagesNewestFirst(committed);
    return [...failed, ...kept.map((id) => `image ${id}`)];
  }

  /**
   * Removes an interrupted build's step container. Docker stops and removes
   * it too once its client went away, and while it does, a remove is refused
   * ("removal of container … is already in progress", or the kill still under
   * way): a refused remove is tried again for a while, until it is gone.
   */
  private async removeStepContainer(id: string): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const gone = await this.call(removeArgv(id));
      if (gone.exitCode === 0 || isNotFound(gone.stderr)) return true;
      if (attempt >= LEFTOVER_ATTEMPTS) return false;
      await new Promise((r) => setTimeout(r, LEFTOVER_RETRY_MS));
    }
  }

  /**
   * Removes a build's committed images, newest first (a parent goes only after
   * its child). Docker stops the step it was running on its own a moment
   * after its client went away, and until then that step's container holds
   * the newest image and so every image under it: an image refused as in use
   * is tried again for a while before it counts as left behind.
   */
  private async removeImagesNewestFirst(committed: readonly string[]): Promise<string[]> {
    let left = [...committed].reverse();
    for (let attempt = 1; ; attempt++) {
      const kept: string[] = [];
      let inUse = false;
      for (const id of left) {
        const gone = await this.call(removeImageArgv(id));
        if (gone.exitCode === 0 || isNotFound(gone.stderr)) continue;
        kept.push(id);
        inUse ||= IMAGE_IN_USE.test(gone.stderr);
      }
      if (kept.length === 0 || !inUse || attempt >= LEFTOVER_ATTEMPTS) return kept;
      left = kept;
      await new Promise((r) => setTimeout(r, LEFTOVER_RETRY_MS));
    }
  }

  async imageId(tag: string): Promise<string> {
    return normalizeImageId(await this.query(imageIdArgv(tag)));
  }

  async imageExists(tag: string): Promise<boolean> {
    return (await this.queryMaybe(imageIdArgv(tag))) !== null;
  }

  async imageInfo(ref: string): Promise<ImageInfo | null> {
    const out = await this.queryMaybe(imageInfoArgv(ref));
    return out === null ? null : imageInfoOf(out, ref);
  }

  async imageInfoAll(refs: readonly string[]): Promise<ImageInfo[] | null> {
    const c = await this.call(imageInfoArgv(...refs), { timeoutMs: this.queryTimeoutMs });
    // One absent fails the call on both engines, and the lines then name no ref.
    if (c.exitCode !== 0) return null;
    const rows = lines(c.stdout);
    if (rows.length !== refs.length) return null;
    return rows.map((row, i) => imageInfoOf(row, refs[i] ?? ''));
  }

  async imageLabels(tag: string): Promise<Record<string, string>> {
    return parseStringRecord(await this.query(imageLabelsArgv(tag)), `labels of image ${tag}`);
  }

  async removeImage(tag: string): Promise<boolean> {
    return (await this.queryMaybe(removeImageArgv(tag))) !== null;
  }

  async imageList(filter: ImageFilter): Promise<ImageRef[]> {
    return parseImageList(await this.listQuery(imageListArgv(filter)));
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
      // The client itself died (SIGSEGV, SIGABRT …): say so, never as a box status.
      throw engineFailure(this.facts.name, args, {
        exitCode: undefined,
        stderr: '',
        timedOut: false,
        spawnError: r.signal === undefined ? r.shortMessage : undefined,
        signal: r.signal,
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

  /** A streamed call whose engine client never ran or was killed: the engine's failure, not a status. */
  private throwIfClientFailed(
    args: readonly string[],
    r: { stderr: string; spawnError?: string; signal?: string },
  ): void {
    if (r.spawnError === undefined && r.signal === undefined) return;
    throw engineFailure(this.facts.name, args, {
      exitCode: undefined,
      stderr: r.stderr,
      timedOut: false,
      spawnError: r.spawnError,
      signal: r.signal,
    });
  }

  async runStream(argv: readonly string[], io: StreamIo): Promise<StreamResult> {
    if (argv[0] !== 'run' && argv[0] !== 'start') {
      throw new TypeError('Engine.runStream takes a `run …` or `start …` argv');
    }
    const r = await streamEngineExec(this.facts.path, argv, io, this.env);
    this.throwIfClientFailed(argv, r);
    return { exitCode: r.exitCode, stderr: r.stderr, stderrHead: r.stderrHead };
  }

  async ps(query: PsQuery): Promise<string[]> {
    return lines(await this.listQuery(psArgv(query)));
  }

  async psLabels(query: PsQuery, keys: readonly string[]): Promise<LabelledContainer[]> {
    return parseLabelRows(await this.listQuery(psLabelsArgv(this.facts.name, query, keys)), keys);
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

  async logs(id: string, options: { tail?: number } = {}): Promise<EngineOutput | null> {
    const args = logsArgv(id, options.tail);
    const c = await this.call(args, { timeoutMs: this.queryTimeoutMs });
    if (c.exitCode === 0) return { stdout: c.stdout, stderr: c.stderr };
    if (c.exitCode !== undefined && isNotFound(c.stderr)) return null;
    throw engineFailure(this.facts.name, args, c);
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
    // Podman ORs a name filter with label filters; ask by label and match the name here, so both AND.
    if (filter.name === undefined || filter.labels === undefined) {
      return lines(await this.listQuery(volumeListArgv(filter)));
    }
    const name = filter.name;
    const byLabel = lines(await this.listQuery(volumeListArgv({ labels: filter.labels })));
    return byLabel.filter((v) => v.includes(name));
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
    if (c.exitCode !== 0 && classifyEngineFailure(c.stderr) !== 'other') {
      throw engineFailure(this.facts.name, args, c);
    }
    return { exitCode: c.exitCode, stdout: c.stdout, stderr: c.stderr };
  }

  async execStream(spec: ExecSpec, io: StreamIo): Promise<StreamResult> {
    const args = execArgv(spec, io.stdin !== undefined);
    const r = await streamEngineExec(this.facts.path, args, io, this.env);
    this.throwIfClientFailed(args, r);
    if (r.exitCode !== 0 && classifyEngineFailure(r.stderr) !== 'other') {
      throw engineFailure(this.facts.name, args, { ...r, timedOut: false, spawnError: undefined });
    }
    return { exitCode: r.exitCode, stderr: r.stderr, stderrHead: r.stderrHead };
  }
}

/**
 * Docker's `ps` and `container inspect` asked over the daemon's socket when
 * the CLI would ask that same socket (adr/0040): one HTTP request in place of
 * a client process. Any doubt (another endpoint, a refusal, a slow or odd
 * reply) asks the CLI instead, so the answer is always the CLI's.
 */
class DockerApiEngine extends CliEngine {
  private route: ApiRoute | null = null;

  private socket(): string | null {
    this.route ??= findApiRoute(this.facts.path, this.env ?? process.env);
    return this.route.kind === 'socket' ? this.route.path : null;
  }

  private async apiList(query: PsQuery): Promise<ReturnType<typeof parseContainerList>> {
    const socket = this.socket();
    if (socket === null) return null;
    const reply = await apiGet(socket, containerListPath(query));
    return reply?.status === 200 ? parseContainerList(reply.body) : null;
  }

  override async ps(query: PsQuery): Promise<string[]> {
    const list = await this.apiList(query);
    return (list === null ? null : idsOf(list)) ?? super.ps(query);
  }

  override async psLabels(query: PsQuery, keys: readonly string[]): Promise<LabelledContainer[]> {
    psLabelsArgv(this.facts.name, query, keys); // the same key check as the CLI path
    const list = await this.apiList(query);
    return list === null ? super.psLabels(query, keys) : labelRowsOf(list, keys);
  }

  override async inspectContainers(
    ids: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ContainerFacts[]> {
    const socket = ids.length === 0 ? null : this.socket();
    const paths = ids.map(containerInspectPath);
    if (socket !== null && paths.every((p): p is string => p !== null)) {
      const get = options.signal === undefined ? {} : { signal: options.signal };
      const facts = containerFactsOf(await Promise.all(paths.map((p) => apiGet(socket, p, get))));
      if (facts !== null) return facts;
    }
    return super.inspectContainers(ids, options);
  }
}

/** The adapter for what detection pinned. */
export function createEngine(facts: EngineFacts, options: EngineOptions = {}): Engine {
  return facts.name === 'docker' && options.api !== false
    ? new DockerApiEngine(facts, options)
    : new CliEngine(facts, options);
}
