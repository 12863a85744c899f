// The box's run/create argv, its thirteen sections always in one order (the
// credential tmpfs sits after the volumes, adr/0012), plus the POSIX quoting
// `byre dockerrun` prints it with. Pure: the caller has already
// resolved config, skills, delivered env and the launch record; this module
// never touches the filesystem, the environment or the engine. It sits in the
// pure core with the plan it serves; the engine adapter only executes it.

import { ByreError } from '../errors.js';
import { expandHostPath } from '../config/grammar.js';
import type { PortSpec } from '../config/types.js';
import {
  BIND_PROOF_ENV,
  CREDENTIAL_DIR,
  EDGE_GATE_FILE_ENV,
  EDGE_SENTINELS_ENV,
  WORKSPACE,
  portEnvKey,
} from './box-layout.js';
import { DROP_PRIVILEGES, KEEP_ID_USERNS, NEVER_PULL, capAddFlags } from '../engine/argv.js';
import { LABEL, containerName } from './names.js';
import type { EngineName } from '../engine/types.js';

/** A host bind. `MountSpec` from config fits as is. */
export interface RunBind {
  /** Absolute, or `~` / `~/…` (expanded against `home`). */
  host: string;
  target: string;
  mode: 'ro' | 'rw';
  disabled?: boolean;
}

export interface RunVolume {
  /** The engine-side, already scoped name (`byre-<project>-<name>`, `byre-machine-u<uid>-<name>`). */
  name: string;
  target: string;
}

export interface RunLabels {
  /**
   * The host byre process that starts the box and stays with it. Absent when
   * byre only prints the command (`byre dockerrun`): a pid that exits at once
   * would make the box look orphaned, so status reports it started outside byre.
   */
  client?: number;
  /** 32-hex nonce; only when netns hooks exist. */
  run?: string;
  /** sha256 of the launch record. */
  launch?: string;
  /** The store that made the box (storeTag), so doctor knows whose it is. */
  store?: string;
}

export interface RunParams {
  engine: EngineName;
  worktreeId: string;
  projectId: string;
  /** In-box dev ids (1000/1000 under keep-id). */
  uid: number;
  gid: number;
  /** Skills' `[runtime].env`, merged in enable order. */
  skillEnv: Readonly<Record<string, string>>;
  /** Delivered `env_from_host` values; beat skill env. */
  hostEnv: Readonly<Record<string, string>>;
  /** BYRE_EGRESS (`host:port …`) under an allowlist posture; absent otherwise. */
  egress?: string;
  /**
   * Keys of the credential rows develop delivers over the credential channel
   * (adr/0012). Never values: those reach the box only through the channel.
   * Non-empty adds the session tmpfs the channel lands on.
   */
  credentialKeys?: readonly string[];
  /**
   * `--add-host NAME:ADDRESS` entries pointing injected names at the box's
   * edge (adr/0070); develop's only (an ejected box has no edge).
   */
  edgeHosts?: readonly string[];
  /**
   * The injected keys (adr/0084): BYRE_EDGE_SENTINELS names them, and the
   * launcher sets each to the sentinel once its edge gate opened. Names
   * only; develop's only.
   */
  edgeKeys?: readonly string[];
  /**
   * `byre dockerrun` of a project that injects (adr/0084): no edge is
   * carried, so the box is told to skip its edge gate
   * (BYRE_EDGE_GATE_FILE=/dev/null) and holds no sentinel.
   */
  skipEdgeGate?: boolean;
  /**
   * The box's edge helper (develop's, when it injects; adr/0079): the box
   * joins its network namespace (and, under keep-id, its user namespace),
   * so the edge is up before the box starts. The edge then carries the
   * box's host entries and published ports (publishFlags), which the engine
   * refuses on a box in another container's network.
   */
  edgeHelper?: string;
  /** The worktree directory bound rw at /workspace. */
  workspaceDir: string;
  /** For `~` expansion of bind sources. */
  home: string;
  configMounts: readonly RunBind[];
  skillMounts: readonly RunBind[];
  /** Worktree common git dir + worktree dir, the self-edit store: after config and skill binds. */
  extraBinds: readonly RunBind[];
  configVolumes: readonly RunVolume[];
  skillVolumes: readonly RunVolume[];
  /** Config ports, as this session publishes them (a linked worktree's block, adr/0034). */
  ports: readonly PortSpec[];
  /** From skills, in enable order. */
  caps: readonly string[];
  /** Engine-side probe of sock_groups paths. */
  groupAdd: readonly (string | number)[];
  keepId: boolean;
  skillRunArgs: readonly string[];
  projectRunArgs: readonly string[];
  labels: RunLabels;
  image: string;
  /**
   * BYRE_BIND_PROOF (adr/0045): every bind's pinned source identity, for the
   * launcher to check first. Set by develop only, after the launch record;
   * absent for `byre dockerrun` and a remote engine.
   */
  bindProof?: string;
  /**
   * 'byre': the box is created without the engine's `--rm`, and develop
   * removes it after the wall's helper that joins its network namespace
   * (podman cannot remove a box another container still joins: its `start
   * --attach` then waits ~20 s after the box exits and leaves it behind).
   * 'user': the same for a box `byre dockerrun` prints on podman beside
   * `byre ejectfirewall`'s helper; whoever runs it removes the helper, then
   * the box. Absent: the engine removes the box when it exits.
   */
  removedBy?: 'byre' | 'user';
}

/** Keys byre owns; reasserted after skill and delivered env so neither can rewrite the box's identity. */
export const CHASSIS_ENV = ['BYRE_UID', 'BYRE_GID', 'BYRE_PROJECT', 'BYRE_WORKTREE'] as const;

export function buildRunArgv(
  params: RunParams,
  mode: 'run' | 'create',
  stdinIsTty: boolean,
): string[] {
  // byre's own create never pulls; the printed `dockerrun` line stays the
  // reference's, for the user to run as they see fit.
  const rm = params.removedBy === undefined ? ['--rm'] : [];
  const argv: string[] = mode === 'create' ? [mode, ...rm, NEVER_PULL, '-i'] : [mode, ...rm, '-i'];
  if (stdinIsTty) argv.push('-t');
  argv.push('--name', containerName(params.worktreeId));

  for (const [k, v] of runEnv(params)) argv.push('-e', `${k}=${v}`);

  for (const b of hostBinds(params)) {
    argv.push('--mount', bindMount(b.source, b.target, b.readonly));
  }
  for (const v of [...params.configVolumes, ...params.skillVolumes]) {
    argv.push(
      '--mount',
      `type=volume,source=${checkMountField(v.name)},target=${checkMountField(v.target)}`,
    );
  }
  if ((params.credentialKeys ?? []).length > 0) {
    argv.push(...credentialTmpfsFlag(params.engine, params.uid, params.gid));
  }
  if (params.edgeHelper === undefined) argv.push(...publishFlags(params));
  else argv.push('--network', `container:${params.edgeHelper}`);
  // The box runs as the baked user from its first process (the image's USER;
  // gosu is build-time only) and needs no capability: only a skill's declared
  // `caps` come back, and exec never raises privilege (adr/0050).
  argv.push(...DROP_PRIVILEGES, ...capAddFlags(unique(params.caps)));
  for (const g of sortGroups(params.groupAdd)) argv.push('--group-add', g);
  if (params.keepId && params.engine === 'podman') {
    // Joined: the edge holds the keep-id mapping (and owns the namespace).
    argv.push(
      params.edgeHelper === undefined ? KEEP_ID_USERNS : `--userns=container:${params.edgeHelper}`,
    );
  }
  // Users report Podman asking systemd for a healthcheck timer at every start
  // unless told not to, printing `ERRO … unable to get systemd connection`
  // without a systemd session (the image says HEALTHCHECK NONE; podman 4.3.1
  // here never asks). The flag costs nothing on a podman that would not.
  if (params.engine === 'podman') argv.push('--no-healthcheck');
  argv.push(...params.skillRunArgs, ...params.projectRunArgs);
  // Labels come after the raw run_args: later flags win, so a raw
  // `--label byre.project=…` cannot disguise which session this is.
  for (const [k, v] of runLabels(params)) argv.push('--label', `${k}=${v}`);
  argv.push(params.image);
  return argv;
}

/**
 * What names the box's network to the host: its host entries, then its
 * published ports. On the box's own create, or on its edge's, whose network
 * namespace the box then joins (adr/0079).
 */
function publishFlags(params: Pick<RunParams, 'edgeHosts' | 'ports'>): string[] {
  return [
    ...(params.edgeHosts ?? []).flatMap((h) => ['--add-host', h]),
    ...params.ports.flatMap((p) => ['-p', portFlag(p)]),
  ];
}

/**
 * What the box's edge owns of the box's create (adr/0079): the box's host
 * entries and published ports, and under keep-id the user namespace the box
 * then joins with the edge's network.
 */
export function edgeNetworkFlags(
  params: Pick<RunParams, 'edgeHosts' | 'ports' | 'keepId' | 'engine'>,
): string[] {
  return [
    ...publishFlags(params),
    ...(params.keepId && params.engine === 'podman' ? [KEEP_ID_USERNS] : []),
  ];
}

/** A host bind as the engine gets it. */
interface HostBind {
  /** Exactly the `source=` the engine is handed. */
  source: string;
  target: string;
  readonly: boolean;
  /** The declaration, for messages (`~/x`, or the workspace directory). */
  host: string;
}

/** Every host bind of the box in argv order: the workspace, then config, skill and extra binds. */
export function hostBinds(
  params: Pick<RunParams, 'workspaceDir' | 'home' | 'configMounts' | 'skillMounts' | 'extraBinds'>,
): HostBind[] {
  const out: HostBind[] = [
    { source: params.workspaceDir, target: WORKSPACE, readonly: false, host: params.workspaceDir },
  ];
  for (const b of [...params.configMounts, ...params.skillMounts, ...params.extraBinds]) {
    if (b.disabled === true) continue;
    out.push({
      source: expandHost(b.host, params.home),
      target: b.target,
      readonly: b.mode !== 'rw',
      host: b.host,
    });
  }
  return out;
}

/** The env the box gets, sorted by key; exported for launch records (keys only go there). */
export function runEnv(params: RunParams): [string, string][] {
  const env = new Map<string, string>();
  const chassis: Record<(typeof CHASSIS_ENV)[number], string> = {
    BYRE_UID: String(params.uid),
    BYRE_GID: String(params.gid),
    BYRE_PROJECT: params.projectId,
    BYRE_WORKTREE: params.worktreeId,
  };
  const set = (k: string, v: string): void => {
    if (k === '' || k.includes('=') || k.includes('\0')) {
      throw new ByreError(`environment variable name "${k}" cannot be passed to the engine`, {
        rule: 'env.bad-name',
      });
    }
    env.set(k, v);
  };
  for (const [k, v] of Object.entries(chassis)) set(k, v);
  for (const [k, v] of Object.entries(params.skillEnv)) set(k, v);
  for (const [k, v] of Object.entries(params.hostEnv)) set(k, v);
  for (const k of CHASSIS_ENV) set(k, chassis[k]);
  for (const p of params.ports) set(portEnvKey(p.container), String(hostPortOf(p)));
  if (params.egress !== undefined) set('BYRE_EGRESS', params.egress);
  if ((params.edgeKeys ?? []).length > 0)
    set(EDGE_SENTINELS_ENV, (params.edgeKeys ?? []).join(','));
  if (params.skipEdgeGate === true) set(EDGE_GATE_FILE_ENV, '/dev/null');
  if (params.bindProof !== undefined) set(BIND_PROOF_ENV, params.bindProof);
  return [...env.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function runLabels(params: RunParams): [string, string][] {
  const labels: [string, string][] = [
    [LABEL.project, params.projectId],
    [LABEL.workdir, params.worktreeId],
    ...(params.labels.client === undefined
      ? []
      : [[LABEL.client, String(params.labels.client)] as [string, string]]),
    [LABEL.uid, String(params.uid)],
    [LABEL.gid, String(params.gid)],
  ];
  if (params.labels.run !== undefined) labels.push([LABEL.run, params.labels.run]);
  if (params.labels.launch !== undefined) labels.push([LABEL.launch, params.labels.launch]);
  if (params.labels.store !== undefined) labels.push([LABEL.store, params.labels.store]);
  return labels;
}

/** Bounds the session tmpfs; the credential plaintext caps keep real use far below it. */
const CREDENTIAL_TMPFS_SIZE = '4m';

/**
 * `--tmpfs` for the session tmpfs credentials land on (adr/0012), owned by the
 * in-box dev user and closed to everyone else. Docker takes the owner as
 * uid=/gid=; Podman refuses those and chowns to the box's user with `U`
 * instead (the image's USER dev).
 */
function credentialTmpfsFlag(engine: EngineName, uid: number, gid: number): string[] {
  const common = `rw,nosuid,nodev,noexec,size=${CREDENTIAL_TMPFS_SIZE},mode=0700`;
  const owner = engine === 'docker' ? `uid=${uid},gid=${gid}` : 'U';
  return ['--tmpfs', `${CREDENTIAL_DIR}:${common},${owner}`];
}

function bindMount(source: string, target: string, readonly: boolean): string {
  return `type=bind,source=${checkMountField(source)},target=${checkMountField(target)}${readonly ? ',readonly' : ''}`;
}

/**
 * `--mount` is comma-separated key=value; docker and podman disagree on
 * quoting, so a path that would need it is refused rather than mis-split.
 */
function checkMountField(value: string): string {
  if (value === '' || /[,"\n\r\0]/.test(value)) {
    throw new ByreError(
      `mount path ${JSON.stringify(value)} cannot be passed to the engine (empty, or contains a comma, quote or newline)`,
      {
        rule: 'mount.unsafe-path',
        remedy: 'rename the directory or choose another mount path',
      },
    );
  }
  return value;
}

/** `~` / `~/…` against home, then cleaned; anything else must already be absolute. */
export function expandHost(host: string, home: string): string {
  const expanded = expandHostPath(host, home);
  if (expanded === null) {
    throw new ByreError(`mount source "${host}" must be absolute or start with ~/`, {
      rule: 'mount.relative-host',
    });
  }
  return expanded;
}

function hostPortOf(p: PortSpec): number {
  return p.host === 0 ? p.container : p.host;
}

function portFlag(p: PortSpec): string {
  for (const n of [p.container, p.host]) {
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new RangeError(`port out of range: ${n}`);
  }
  if (p.container === 0) throw new RangeError('container port must not be 0');
  const host = hostPortOf(p);
  const iface =
    p.interface.includes(':') && !p.interface.startsWith('[') ? `[${p.interface}]` : p.interface;
  return `${iface}:${host}:${p.container}`;
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** Numeric gids numerically, names after them lexically; duplicates dropped. */
function sortGroups(groups: readonly (string | number)[]): string[] {
  const all = unique(groups.map(String));
  const num = all.filter((g) => /^\d+$/.test(g)).sort((a, b) => Number(a) - Number(b));
  const named = all.filter((g) => !/^\d+$/.test(g)).sort();
  return [...num, ...named];
}
