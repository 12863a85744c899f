// The Engine interface: everything byre asks of docker or podman, as typed
// calls, split into the roles a caller asks for (images, sessions, volumes,
// exec; the Go reference's imageRunner/sessionRunner/volumeRunner split, plus
// exec and transfer into a running box). `Engine` is all of them; a function
// takes only the role it uses, so its fake in a test is as small as its need.
// runner.ts adapts it to the engine CLI; commands and the session steps depend only on
// this. The engine contract (test/support/engine-contract.ts) says what every
// method must do. Types only.

import type { Readable, Writable } from 'node:stream';
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
  /**
   * Aborting it kills the engine client at once; the exec then rejects with
   * the signal's reason (how a caller stops a stream it will not take).
   */
  signal?: AbortSignal;
  /** Each piece of the box's stderr as it arrives (the result still carries its head and tail). */
  onStderr?: (chunk: string) => void;
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

/** Which engine answers: every role carries it (names in messages, engine-specific argv). */
interface EngineIdentity {
  readonly facts: EngineFacts;
}

/** Images: build, query, list and remove them; where they are kept; what a registry has. */
interface ImageRunner extends EngineIdentity {
  build(spec: BuildSpec, io?: BuildIo): Promise<void>;
  /** `sha256:<hex>` on both engines. */
  imageId(tag: string): Promise<string>;
  imageExists(tag: string): Promise<boolean>;
  imageLabels(tag: string): Promise<Record<string, string>>;
  /** Id and labels in one engine call; null when the image is absent. */
  imageInfo(ref: string): Promise<ImageInfo | null>;
  /**
   * Id and labels of each of `refs`, in their order, in one engine call;
   * null when any is absent or the call failed (ask each then).
   */
  imageInfoAll(refs: readonly string[]): Promise<ImageInfo[] | null>;
  /** False when there was no such image. */
  removeImage(tag: string): Promise<boolean>;
  /** Images matching `filter`, dangling ones included. */
  imageList(filter: ImageFilter): Promise<ImageRef[]>;
  /** Id and labels of each image, in one call; ids that vanished are left out. */
  inspectImages(ids: readonly string[]): Promise<LabelledObjectFacts[]>;
  /** Where the engine keeps images. */
  storageInfo(): Promise<StorageInfo>;
  /**
   * Whether `ref`'s registry has it, asked without pulling (`manifest
   * inspect`); `why` is the engine's first line of refusal.
   */
  registryHas(ref: string, timeoutMs: number): Promise<{ has: true } | { has: false; why: string }>;
}

/** Containers: the box and its helpers, created, run, found, inspected, stopped and removed. */
export interface SessionRunner extends EngineIdentity {
  /** `argv` from buildRunArgv(…, 'create'); returns the container id. */
  create(argv: readonly string[]): Promise<string>;
  /** `start --attach --interactive`, stdio inherited; the agent's exit status. */
  startAttached(name: string, options: { tty: boolean }): Promise<number>;
  /** A `run …` argv (helpers, dockerrun); throws EngineError on a non-zero exit. */
  run(argv: readonly string[], options?: RunOptions): Promise<EngineOutput>;
  /**
   * A `run -i …` argv (the edge's with `--cidfile`, whose id is there
   * before it runs, adr/0081), or `start --attach --interactive NAME` of a
   * helper created with `-i`, attached, its stdin and stdout streamed: a
   * helper fed on its stdin that talks on its stdout for as long as it runs
   * (the edge, adr/0070). Settles when the helper ends; its exit status is
   * data.
   */
  runStream(argv: readonly string[], io: StreamIo): Promise<StreamResult>;
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
  /**
   * A container's stdout and stderr as the engine kept them (the last
   * `tail` lines of each, when given); null when there is no such container.
   */
  logs(id: string, options?: { tail?: number }): Promise<EngineOutput | null>;
  stop(id: string, seconds: number): Promise<void>;
  /** Force-removes; false when there was no such container. */
  remove(id: string): Promise<boolean>;
}

/** Named volumes: the project's state and caches. */
export interface VolumeRunner extends EngineIdentity {
  volumeExists(name: string): Promise<boolean>;
  volumeCreate(name: string, labels: Readonly<Record<string, string>>): Promise<void>;
  /** False when there was no such volume. */
  volumeRemove(name: string): Promise<boolean>;
  volumeList(filter: VolumeFilter): Promise<string[]>;
  /** Name and labels of each volume, in one call; names that vanished are left out. */
  inspectVolumes(names: readonly string[]): Promise<LabelledObjectFacts[]>;
}

/** Commands in a running box: credentials, deliver, grab, shell. */
export interface ExecRunner extends EngineIdentity {
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

/** Everything: what runner.ts and the fake implement, and what wiring hands out. */
export interface Engine extends ImageRunner, SessionRunner, VolumeRunner, ExecRunner {}

export interface EngineOptions {
  /** Environment for engine processes (DOCKER_HOST, XDG_RUNTIME_DIR …); defaults to this process's. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Bound for queries (inspect, ps, volume ls …); 2 minutes unless set. */
  queryTimeoutMs?: number;
  /** False: docker's `ps` and `inspect` always run the CLI, never its API socket (adr/0040). */
  api?: boolean;
}
