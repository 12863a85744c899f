// Pure argv builders for every engine call except the box's own run/create
// (gen/run-argv.ts, in the pure core). The adapter in runner.ts only executes
// what these return, so the docker/podman differences live here where a table
// test pins them.
// Nothing here spawns, reads files or looks at the environment.

import path from 'node:path';

import type {
  BuildSpec,
  EngineName,
  ExecSpec,
  ImageFilter,
  PsQuery,
  VolumeFilter,
} from './types.js';

/** The explicit keep-id mapping onto the baked dev user (adr/0008). */
export const KEEP_ID_USERNS = '--userns=keep-id:uid=1000,gid=1000';

const LABELS_FORMAT = '{{json .Config.Labels}}';
const ENV_FORMAT = '{{json .Config.Env}}';
const NETWORK_MODE_FORMAT = '{{.HostConfig.NetworkMode}}';
const IMAGE_ID_FORMAT = '{{.Id}}';
const PODMAN_ROOTLESS_FORMAT = '{{.Host.Security.Rootless}}';
/** Docker has no Host.Security; rootless shows up as `name=rootless` here. */
const DOCKER_SECURITY_FORMAT = '{{json .SecurityOptions}}';

function sortedEntries(record: Readonly<Record<string, string>> | undefined): [string, string][] {
  return Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function labelFlags(labels: Readonly<Record<string, string>> | undefined): string[] {
  return sortedEntries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
}

function labelFilters(
  labels: Readonly<Record<string, string>> | undefined,
  has: readonly string[] = [],
): string[] {
  return [
    ...sortedEntries(labels).flatMap(([k, v]) => ['--filter', `label=${k}=${v}`]),
    ...[...has].sort().flatMap((k) => ['--filter', `label=${k}`]),
  ];
}

/**
 * `build -t <tag> -f <ctx>/Dockerfile.generated [--no-cache] --force-rm [--format docker]
 * --build-arg BYRE_UID=<uid> --build-arg BYRE_GID=<gid> [--label k=v] <ctx>`.
 * Podman needs `--format docker` or it silently drops HEALTHCHECK.
 */
export function buildArgv(engine: EngineName, spec: BuildSpec): string[] {
  const dockerfile = spec.dockerfile ?? path.join(spec.contextDir, 'Dockerfile.generated');
  const extra = sortedEntries(spec.buildArgs).filter(([k]) => k !== 'BYRE_UID' && k !== 'BYRE_GID');
  return [
    'build',
    '-t',
    spec.tag,
    '-f',
    dockerfile,
    ...(spec.noCache ? ['--no-cache'] : []),
    // A failed step's container is removed too (docker keeps it by default).
    '--force-rm',
    ...(engine === 'podman' ? ['--format', 'docker'] : []),
    '--build-arg',
    `BYRE_UID=${spec.uid}`,
    '--build-arg',
    `BYRE_GID=${spec.gid}`,
    ...extra.flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    ...(spec.labelsInDockerfile === true ? [] : labelFlags(spec.labels)),
    spec.contextDir,
  ];
}

export function versionArgv(): string[] {
  return ['--version'];
}

/**
 * Podman's rootless answer that also evaluates its OCI runtime's facts,
 * printing nothing more: podman gathers them by running the runtime, and
 * fails (exit 125) when that runtime is missing or does not run, where
 * `{{.Host.Security.Rootless}}` alone logs the failure and exits 0. Measured
 * (podman 4.3): no slower than the plain probe; it is one `info` either way.
 */
const PODMAN_HEALTH_FORMAT = '{{.Host.Security.Rootless}}{{with .Host.OCIRuntime.Name}}{{end}}';

/**
 * Rootless probe; doubles as the "is it answering" probe under engine = auto.
 * `health` (doctor) asks podman the variant that fails on a broken runtime.
 */
export function rootlessProbeArgv(engine: EngineName, health = false): string[] {
  if (engine === 'docker') return ['info', '--format', DOCKER_SECURITY_FORMAT];
  return ['info', '--format', health ? PODMAN_HEALTH_FORMAT : PODMAN_ROOTLESS_FORMAT];
}

export function imageIdArgv(tag: string): string[] {
  return ['image', 'inspect', '-f', IMAGE_ID_FORMAT, tag];
}

export function imageLabelsArgv(tag: string): string[] {
  return ['image', 'inspect', '-f', LABELS_FORMAT, tag];
}

/** Id and labels in one call: `<id>\t<labels json>`. */
/** Id and labels of each of `refs`, a line each in their order. */
export function imageInfoArgv(...refs: readonly string[]): string[] {
  return ['image', 'inspect', '-f', `${IMAGE_ID_FORMAT}\t${LABELS_FORMAT}`, ...refs];
}

export function removeImageArgv(tag: string): string[] {
  return ['image', 'rm', tag];
}

const IMAGE_LIST_FORMAT = '{{.ID}} {{.Repository}}:{{.Tag}}';

/** Every image (dangling ones included), one `<id> <repo>:<tag>` row per tag. */
export function imageListArgv(filter: ImageFilter): string[] {
  return [
    'images',
    '--no-trunc',
    '--format',
    IMAGE_LIST_FORMAT,
    ...labelFilters(filter.labels, filter.hasLabels),
  ];
}

/**
 * One JSON array per image: id and labels. `.ID`, not `.Id`: Podman 4.3 cannot
 * pass `.Id` to `json` ("can't evaluate field Id"); both engines accept `.ID`.
 */
const IMAGE_FACTS_FORMAT = '[{{json .ID}},{{json .Config.Labels}}]';

export function inspectImagesArgv(ids: readonly string[]): string[] {
  return ['image', 'inspect', '-f', IMAGE_FACTS_FORMAT, ...ids];
}

/** One JSON array per volume: name and labels. */
const VOLUME_FACTS_FORMAT = '[{{json .Name}},{{json .Labels}}]';

export function inspectVolumesArgv(names: readonly string[]): string[] {
  return ['volume', 'inspect', '-f', VOLUME_FACTS_FORMAT, ...names];
}

/**
 * Where images live: docker's root dir and OS (Docker Desktop keeps it in a
 * VM), podman's graph root and whether its service is remote (podman machine).
 */
export function storageInfoArgv(engine: EngineName): string[] {
  return [
    'info',
    '--format',
    engine === 'docker'
      ? '[{{json .DockerRootDir}},{{json .OperatingSystem}}]'
      : '[{{json .Store.GraphRoot}},{{json .Host.ServiceIsRemote}}]',
  ];
}

/** Asks the image's registry for its manifest: whether a build could pull it, without pulling. */
export function manifestInspectArgv(ref: string): string[] {
  return ['manifest', 'inspect', ref];
}

/** Attach to a created box: stdio passes straight through to the engine client. */
export function startAttachedArgv(name: string): string[] {
  return ['start', '--attach', '--interactive', name];
}

export function psArgv(query: PsQuery): string[] {
  return ['ps', '-q', ...psQueryArgs(query)];
}

function psQueryArgs(query: PsQuery): string[] {
  return [
    '--no-trunc',
    ...(query.all ? ['-a'] : []),
    ...labelFilters(query.labels),
    ...[...(query.hasLabels ?? [])].sort().flatMap((k) => ['--filter', `label=${k}`]),
    ...(query.volume === undefined ? [] : ['--filter', `volume=${query.volume}`]),
  ];
}

/**
 * `ps` printing one JSON array per container: the id, then each of `keys`'
 * label values ("" when absent). The engines spell a label lookup differently
 * (docker's `.Label "k"`, podman's `index .Labels "k"`); JSON keeps a hostile
 * value's tabs and newlines from splitting a row.
 */
export function psLabelsArgv(
  engine: EngineName,
  query: PsQuery,
  keys: readonly string[],
): string[] {
  const cells = keys.map((k) => {
    if (!/^[a-z0-9._-]+$/.test(k)) throw new RangeError(`not a label key byre uses: ${k}`);
    return engine === 'docker' ? `{{json (.Label "${k}")}}` : `{{json (index .Labels "${k}")}}`;
  });
  return ['ps', ...psQueryArgs(query), '--format', `[${['{{json .ID}}', ...cells].join(',')}]`];
}

export function inspectLabelsArgv(id: string): string[] {
  return ['inspect', '-f', LABELS_FORMAT, id];
}

/**
 * One JSON array per container: id, running, labels, env. `container inspect` (not
 * `inspect`) so an image id never answers; `.ID` is the spelling both
 * engines accept inside `json`.
 */
const CONTAINER_FACTS_FORMAT =
  '[{{json .ID}},{{json .State.Running}},{{json .Config.Labels}},{{json .Config.Env}}]';

export function inspectContainersArgv(ids: readonly string[]): string[] {
  return ['container', 'inspect', '-f', CONTAINER_FACTS_FORMAT, ...ids];
}

export function inspectEnvArgv(id: string): string[] {
  return ['inspect', '-f', ENV_FORMAT, id];
}

export function networkModeArgv(id: string): string[] {
  return ['inspect', '-f', NETWORK_MODE_FORMAT, id];
}

/** The container's log; its last `tail` lines when given. */
export function logsArgv(id: string, tail?: number): string[] {
  if (tail === undefined) return ['logs', id];
  if (!Number.isSafeInteger(tail) || tail < 1)
    throw new RangeError('logs tail must be a positive integer');
  return ['logs', '--tail', String(tail), id];
}

export function stopArgv(id: string, seconds: number): string[] {
  if (!Number.isInteger(seconds) || seconds < 0)
    throw new RangeError(`stop grace must be a whole number of seconds, got ${seconds}`);
  return ['stop', '-t', String(seconds), id];
}

/** `rm -f`: removal is only ever asked for boxes byre is done with. */
export function removeArgv(id: string): string[] {
  return ['rm', '-f', id];
}

export function volumeCreateArgv(name: string, labels: Readonly<Record<string, string>>): string[] {
  return ['volume', 'create', ...labelFlags(labels), name];
}

/** No `-f`: on Podman it would also remove containers using the volume. */
export function volumeRemoveArgv(name: string): string[] {
  return ['volume', 'rm', name];
}

export function volumeListArgv(filter: VolumeFilter): string[] {
  return [
    'volume',
    'ls',
    '-q',
    ...(filter.name === undefined ? [] : ['--filter', `name=${filter.name}`]),
    ...labelFilters(filter.labels, filter.hasLabels),
  ];
}

export function execArgv(spec: ExecSpec, withInput: boolean): string[] {
  return [
    'exec',
    ...(spec.interactive === true || withInput ? ['-i'] : []),
    ...(spec.tty === true ? ['-t'] : []),
    ...(spec.user === undefined ? [] : ['-u', spec.user]),
    ...(spec.workdir === undefined ? [] : ['-w', spec.workdir]),
    ...sortedEntries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    spec.id,
    ...spec.command,
  ];
}

/**
 * Every container byre runs is of an image it built or found local; asking a
 * registry for one that vanished would send its name (the project's id) out.
 */
export const NEVER_PULL = '--pull=never';

/**
 * Every container byre runs drops every capability and gains no privilege
 * through exec (setuid, setgid and file capabilities are ignored): the box
 * and each helper add back only what their own work takes, named where they
 * are built (adr/0050). Both spellings are docker 20.10's and podman 4.3's.
 */
export const DROP_PRIVILEGES: readonly string[] = [
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
];

/** `--cap-add` for each capability, after DROP_PRIVILEGES. */
export function capAddFlags(caps: readonly string[]): string[] {
  return caps.flatMap((cap) => ['--cap-add', cap]);
}

/**
 * The userns flag every helper container that touches the box's volumes must
 * carry, so files land owned by the baked uid just as in the box.
 */
export function helperUsernsArgs(keepId: boolean): string[] {
  return keepId ? [KEEP_ID_USERNS] : [];
}

/**
 * What a volume helper's root needs to copy a tree and hand it to the box's
 * user (`cp -a`, `chown -R`): chown, read and write past modes, set modes and
 * times on files it no longer owns, keep setgid bits. Nothing else (adr/0050).
 */
const VOLUME_HELPER_CAPS: readonly string[] = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID'];

/**
 * The head of a volume helper: a throwaway, network-less container of the
 * box's image running `sh` as root (in the box's user namespace on rootless
 * Podman) with only VOLUME_HELPER_CAPS, for byre's own scripts that fill or
 * copy volumes. Mounts, image and script follow.
 */
export function rootShellHelperArgv(keepId: boolean, interactive = false): string[] {
  return [
    'run',
    '--rm',
    NEVER_PULL,
    ...(interactive ? ['-i'] : []),
    '--network',
    'none',
    ...DROP_PRIVILEGES,
    ...capAddFlags(VOLUME_HELPER_CAPS),
    '--entrypoint',
    'sh',
    '-u',
    '0:0',
    ...helperUsernsArgs(keepId),
  ];
}
