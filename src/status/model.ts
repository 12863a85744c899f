// The status model: one pure function from what byre knows (resolved config,
// skills, engine facts, container state, the verified launch record) to every
// fact `byre status` shows, with attribution. Text rows, --data and develop's
// banner all read this; it never reads files, asks an engine or prints.
// Over 500 lines: one pure model for text, --data and the banner; one function per fact group.

import type { CascadeFile } from '../config/cascade-files.js';
import { layerLabel, type EffectiveConfig, type MountSpec } from '../config/types.js';
import { volumeEngineName, type EngineName } from '../gen/names.js';
import {
  BYRE_ETC,
  CREDENTIAL_DIR,
  LAUNCHER_PATH,
  SELF_EDIT_DIR,
  reservedClaims,
} from '../gen/box-layout.js';
import { scanRunArgs } from '../gen/run-args-scan.js';
import { credentialRows } from '../config/credential-rows.js';
import { formatInjectHost } from '../config/inject.js';
import {
  edgeRefusedSummary,
  edgeStateText,
  injectionDetailText,
  injectionRowText,
  type EdgeEvents,
  type EdgeState,
} from './injection.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import { launchChanges } from '../gen/launch-diff.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import type { LaunchRecordState } from '../launch/verify.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { LaunchDataState, StatusData } from './data-schema.js';
import { STATUS_DATA_VERSION } from './data-version.js';
import { mcpFacts } from './mcp.js';
import { withWall, type WallInput } from './denials.js';
import { networkFacts, RECORD_SOURCE } from './network.js';
import { declaredMcp, skillSource, wiringFacts } from './wiring.js';
import { statusRows, type ModelRow } from './rows.js';

interface StatusProject {
  projectId: string;
  worktreeId: string;
  projectRoot: string;
  worktreeDir: string;
  isLinkedWorktree: boolean;
  commonGitDir: string | null;
  gitPaths: { commonGitDir: string; worktreeDir: string } | null;
  /** The project's store paths: `config` is the project layer's file. */
  project: { config: string };
}

export type StatusEngine =
  | { kind: 'ok'; name: EngineName; rootless: boolean; keepId: boolean }
  | { kind: 'error'; message: string };

export type StatusContainer =
  | { state: 'not_running' }
  /**
   * `clientPid` null: the box carries no byre.client pid, so byre did not
   * start it (the command `byre dockerrun` prints, run by hand).
   * `clientAlive` false: the byre process that started the box is gone (orphaned).
   * `clientLabelUnreadable`: it carries a byre.client label that is not a pid,
   * so byre can say neither who started it nor whether that byre still runs.
   */
  | {
      state: 'running';
      id: string;
      engine: EngineName;
      clientPid: number | null;
      clientAlive: boolean | null;
      clientLabelUnreadable?: boolean;
    }
  | { state: 'unknown'; error: string };

/**
 * The byre.client label as status reads it: a pid (develop writes its own),
 * none (started outside byre), or something else, which says nothing.
 */
export function readClientLabel(raw: string | undefined): {
  clientPid: number | null;
  clientLabelUnreadable: boolean;
} {
  if (raw === undefined) return { clientPid: null, clientLabelUnreadable: false };
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    return { clientPid: null, clientLabelUnreadable: true };
  }
  return { clientPid: Number(raw), clientLabelUnreadable: false };
}

export interface StatusSibling {
  worktreeId: string;
  id: string;
  engine: EngineName;
  /** The worktree's directory and branch, from git's files; null when not found there. */
  path?: string | null;
  branch?: string | null;
}

export interface StatusInput {
  project: StatusProject;
  config: EffectiveConfig;
  skills: readonly ResolvedSkill[];
  /** Why skills could not be resolved; the posture is then unknown. */
  skillError: string | null;
  engine: StatusEngine;
  /** The wall's events: the running walled box's, or the last walled session's; null: neither. */
  wall?: WallInput | null;
  /** The running box's edge (adr/0070), when the config injects; absent: no Edge row. */
  edge?: { state: EdgeState; events: EdgeEvents | null } | null;
  hostEnv: readonly HostEnvEntry[];
  hostUid: number;
  /** For `~` in mount sources when matching recorded binds to config. */
  home: string;
  container: StatusContainer;
  /** The running box's record state; null when no box runs here. */
  launch: LaunchRecordState | null;
  siblings: readonly StatusSibling[];
  siblingsError: string | null;
  /** What the current config would record at the next launch (diffed against a verified record). */
  nextLaunch: LaunchRecord | null;
  /**
   * Keys develop's delivery receipt names for the running box's launch
   * record; null when there is none (nothing was delivered, or no record).
   */
  credentialsDelivered?: readonly string[] | null;
  presetNote?: string | null;
  /** The cascade's files, lowest first (config/cascade-files.ts). */
  configFiles?: readonly CascadeFile[];
  /** Config-declared Claude Skills develop would refuse to bake, each with its first problem. */
  claudeSkillProblems?: readonly string[];
  /** Why byre refuses to launch this box (it would reach byre's own files); empty when it would launch. */
  refusals?: readonly { rule: string; message: string }[];
  /** The ports the next launch would publish, when they are not simply the configured ones. */
  sessionPorts?: SessionPorts;
  /** `status --self-edit`: show the store bind `develop --self-edit` adds. */
  selfEdit?: boolean;
  /** This project's store directory (the self-edit bind's source). */
  storeDir?: string;
}

export interface StatusModel {
  data: StatusData;
  /** Every row of the page, in its fixed order, tier-tagged. */
  rows: ModelRow[];
}

// ---------------------------------------------------------------------------
// Attribution

function reservedEntry(skill: string, key: string): StatusData['reserved_env'][number] {
  const { known, claims } = reservedClaims(key);
  const note = known
    ? `${skill} sets ${key}: the ${claims.join(', ')} claim${claims.length === 1 ? ' is' : 's are'} not guaranteed`
    : `${skill} sets ${key}, a BYRE_ key this byre does not know: the network and launch claims are not guaranteed`;
  return { skill, key, known, claims: [...claims], note };
}

// ---------------------------------------------------------------------------
// Managed-path shadows

/** Does a mount at `target` cover `managed` (the path itself or an ancestor of it)? */
function covers(target: string, managed: string): boolean {
  const t = target.replace(/\/+$/, '') || '/';
  return t === managed || t === '/' || managed.startsWith(`${t}/`);
}

function shadowedPath(target: string, netnsHooks: readonly string[]): string | null {
  if (covers(target, LAUNCHER_PATH)) return LAUNCHER_PATH;
  for (const hook of netnsHooks) if (covers(target, hook)) return hook;
  if (covers(target, BYRE_ETC) || target.startsWith(`${BYRE_ETC}/`)) return BYRE_ETC;
  return null;
}

function netnsHooks(skills: readonly ResolvedSkill[]): string[] {
  return skills.flatMap((s) => (s.runtime.netnsInit === null ? [] : [s.runtime.netnsInit]));
}

/** Mounts and volumes over the launcher, a netns hook, or /etc/byre. */
function managedShadows(
  binds: StatusData['binds'],
  volumes: StatusData['volumes'],
  hooks: readonly string[],
): StatusData['managed_path_shadows'] {
  const shadows: StatusData['managed_path_shadows'] = [];
  for (const b of binds) {
    if (b.disabled) continue;
    const shadowed = shadowedPath(b.target, hooks);
    if (shadowed !== null)
      shadows.push({ target: b.target, kind: 'mount', shadows: shadowed, source: b.source });
  }
  for (const v of volumes) {
    const shadowed = shadowedPath(v.target, hooks);
    if (shadowed !== null)
      shadows.push({ target: v.target, kind: 'volume', shadows: shadowed, source: v.source });
  }
  return shadows;
}

// ---------------------------------------------------------------------------
// The grant facts: what this box (or the next one) is exposed to

/** The exposure facts develop's banner and status share; computed from the current config. */
export type GrantFacts = Pick<
  StatusData,
  | 'binds'
  | 'ports'
  | 'volumes'
  | 'network'
  | 'privileges'
  | 'reserved_env'
  | 'containments'
  | 'managed_path_shadows'
  | 'host_env'
  | 'credentials'
  | 'run_args'
  | 'raw_run_args'
  | 'build_raw'
  | 'skill_grants'
>;

interface GrantInput {
  config: EffectiveConfig;
  skills: readonly ResolvedSkill[];
  skillError: string | null;
  hostEnv: readonly HostEnvEntry[];
  projectId: string;
  hostUid: number;
  /** Worktree binds (common git dir, worktree dir); empty for a plain project. */
  extraBinds?: readonly MountSpec[];
  /** The host ports this session publishes, when a linked worktree's block moved them (adr/0034). */
  sessionPorts?: SessionPorts;
  /** `--self-edit`'s store bind, when the launch would carry it. */
  selfEditBind?: MountSpec;
}

/** The ports a session would publish, as develop chooses them. */
export interface SessionPorts {
  /** A linked worktree's block; null: the configured ports. */
  block: number | null;
  ports: readonly { interface: string; host: number; container: number }[];
}

function mountRow(m: MountSpec, source: string): StatusData['binds'][number] {
  return { host: m.host, target: m.target, mode: m.mode, disabled: m.disabled, source };
}

/**
 * The MCP servers the next launch would get, each env name judged as status
 * judges it (provided by what, or why not): `byre mcp list` shows the same
 * answer as `byre status`'s MCP rows for the next launch.
 */
export function nextLaunchMcp(input: GrantInput): StatusData['mcp_servers'] {
  const grants = grantFacts(input);
  return mcpFacts(declaredMcp(input.config, input.skills), grants.network, {
    hostEnv: grants.host_env,
    credentials: grants.credentials,
    configEnv: new Set(Object.keys(input.config.env)),
    skills: input.skills,
    boxEnvKeys: null,
  });
}

/** Raw run_args as the engine gets them (skills' in enable order, then the config's), each with who set it. */
export function rawRunArgTokens(
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
): { value: string; source: string }[] {
  return [
    ...skills.flatMap((s) =>
      s.runtime.runArgs.map((value) => ({ value, source: skillSource(s.id) })),
    ),
    ...config.runArgs.map((a) => ({ value: a.value, source: layerLabel(a.from) })),
  ];
}

/** Each raw entry, scanned as one argv (a flag and its value may be two entries), attributed by its first token. */
function rawRunArgFacts(
  tokens: readonly { value: string; source: string }[],
): StatusData['raw_run_args'] {
  return scanRunArgs(tokens.map((t) => t.value)).map((a) => ({
    argv: a.argv,
    source: tokens[a.start]?.source ?? RECORD_SOURCE,
    effect: a.effect,
    what: a.what,
    mount: a.mount,
    port: a.port,
  }));
}

export function grantFacts(input: GrantInput): GrantFacts {
  const { config, skills } = input;
  const binds = [
    ...config.mounts.map((m) => mountRow(m.value, layerLabel(m.from))),
    ...skills.flatMap((s) => s.runtime.mounts.map((m) => mountRow(m, skillSource(s.id)))),
    ...(input.extraBinds ?? []).map((m) => mountRow(m, 'worktree')),
    ...(input.selfEditBind === undefined ? [] : [mountRow(input.selfEditBind, 'self-edit')]),
  ];
  const session = input.sessionPorts;
  const ports = config.ports.map((p) => {
    const moved = session?.ports.find((s) => s.container === p.value.container);
    const block = session?.block ?? null;
    return {
      interface: moved?.interface ?? p.value.interface,
      host: moved?.host ?? (p.value.host === 0 ? p.value.container : p.value.host),
      container: p.value.container,
      source:
        block === null || moved === undefined
          ? layerLabel(p.from)
          : `${layerLabel(p.from)}; worktree port block ${block}`,
    };
  });
  const volumes = [
    ...config.volumes.map((v) => ({ spec: v.value, source: layerLabel(v.from) })),
    ...skills.flatMap((s) => s.volumes.map((spec) => ({ spec, source: skillSource(s.id) }))),
  ].map(({ spec, source }) => ({
    name: spec.name,
    engine_name: volumeEngineName(input.projectId, input.hostUid, spec),
    target: spec.target,
    role: spec.role,
    scope: spec.scope,
    sharing: spec.sharing,
    source,
  }));

  const reserved = skills.flatMap((s) =>
    Object.keys(s.runtime.env)
      .filter((k) => k.startsWith('BYRE_'))
      .sort()
      .map((key) => reservedEntry(s.id, key)),
  );
  const posture = skills.find((s) => s.runtime.networkPosture !== null);
  const network = networkFacts({
    config,
    skills,
    skillError: input.skillError,
    posture: posture?.runtime.networkPosture ?? 'open',
    postureSkill: posture?.id ?? null,
    recorded: null,
    projectRunArgs: config.runArgs.length > 0,
    rawBuild: config.dockerfilePre.length + config.dockerfilePost.length > 0,
    reserved,
    label: layerLabel,
  });

  const shadows = managedShadows(binds, volumes, netnsHooks(skills));

  return {
    binds,
    ports,
    volumes,
    network,
    privileges: privilegeFacts(skills, input.skillError, config.runArgs.length > 0),
    reserved_env: reserved,
    containments: skills.flatMap((s) =>
      s.runtime.containment === null ? [] : [{ skill: s.id, text: s.runtime.containment }],
    ),
    managed_path_shadows: shadows,
    // A disabled entry ("" in env_from_host) passes nothing: not a grant, not listed.
    host_env: input.hostEnv.flatMap((e) =>
      e.state === 'disabled'
        ? []
        : [{ key: e.key, source: e.source, state: e.state, layer: layerLabel(e.from) }],
    ),
    credentials: credentialRows(config).map((r) => ({
      key: r.key,
      kind: r.kind,
      layer: layerLabel(r.from),
      state: r.overridden ? ('overridden' as const) : ('sealed' as const),
    })),
    run_args: config.runArgs.map((a) => a.value),
    raw_run_args: rawRunArgFacts(rawRunArgTokens(config, skills)),
    build_raw: [...config.dockerfilePre, ...config.dockerfilePost].map((l) => l.value),
    skill_grants: skills.flatMap((s) => [
      ...s.runtime.mounts.map((m) => ({
        skill: s.id,
        kind: 'mount' as const,
        value: `${m.host} -> ${m.target}  (${m.mode}${m.disabled ? ', disabled' : ''})`,
      })),
      ...s.runtime.caps.map((c) => ({ skill: s.id, kind: 'cap' as const, value: `+${c}` })),
      ...s.runtime.runArgs.map((a) => ({ skill: s.id, kind: 'run_arg' as const, value: a })),
      ...(s.runtime.netnsInit === null
        ? []
        : [{ skill: s.id, kind: 'netns_init' as const, value: s.runtime.netnsInit }]),
      ...s.runtime.sockGroups.map((g) => ({ skill: s.id, kind: 'sock_group' as const, value: g })),
    ]),
  };
}

/**
 * What the box may hold and gain: every capability dropped but a skill's
 * `caps`, no new privileges through exec (adr/0050). Raw run_args can undo
 * both (`--privileged`, `--cap-add`, `--security-opt`), as they can the
 * network; unresolved skills leave the capabilities unknown.
 */
function privilegeFacts(
  skills: readonly ResolvedSkill[],
  skillError: string | null,
  projectRunArgs: boolean,
): StatusData['privileges'] {
  const capabilities: { name: string; skill: string }[] = [];
  for (const s of skills) {
    for (const name of s.runtime.caps) {
      if (!capabilities.some((c) => c.name === name)) capabilities.push({ name, skill: s.id });
    }
  }
  return {
    no_new_privileges: true,
    capabilities: skillError === null ? capabilities : null,
    degraded_by: projectRunArgs ? ['raw run_args'] : [],
  };
}

// ---------------------------------------------------------------------------
// The verified record as the page's subject

function recordedBinds(
  record: LaunchRecord,
  current: StatusData['binds'],
  home: string,
): StatusData['binds'] {
  const expand = (h: string): string =>
    h === '~' ? home : h.startsWith('~/') ? `${home}/${h.slice(2)}` : h;
  const out = record.binds.slice(1).map((b) => {
    const match = current.find(
      (c) => !c.disabled && c.target === b.target && expand(c.host) === b.host,
    );
    return {
      host: b.host,
      target: b.target,
      mode: b.mode,
      disabled: false,
      source: match?.source ?? RECORD_SOURCE,
    };
  });
  return [...out, ...current.filter((c) => c.disabled)];
}

/** The running box's raw run_args, attributed as the config attributes them while they match it. */
function recordedRawRunArgs(record: LaunchRecord, input: StatusInput): StatusData['raw_run_args'] {
  const current = rawRunArgTokens(input.config, input.skills);
  const same =
    current.length === record.runArgs.length &&
    current.every((t, i) => t.value === record.runArgs[i]);
  return rawRunArgFacts(
    same ? current : record.runArgs.map((value) => ({ value, source: RECORD_SOURCE })),
  );
}

function subjectFacts(
  grants: GrantFacts,
  record: LaunchRecord,
  input: StatusInput,
): Partial<GrantFacts> {
  const sourceOf = <T>(list: readonly (T & { source: string })[], same: (c: T) => boolean) =>
    list.find(same)?.source ?? RECORD_SOURCE;
  const reserved = record.network.reservedEnv.map((r) => reservedEntry(r.skill, r.key));
  return {
    binds: recordedBinds(record, grants.binds, input.home),
    ports: record.ports.map((p) => ({
      ...p,
      source: sourceOf(
        grants.ports,
        (c) => c.container === p.container && c.host === p.host && c.interface === p.interface,
      ),
    })),
    volumes: record.volumes.map((v) => ({
      name: v.decl,
      engine_name: v.name,
      target: v.target,
      role: v.role,
      scope: v.scope,
      sharing: v.sharing,
      source: sourceOf(grants.volumes, (c) => c.engine_name === v.name && c.target === v.target),
    })),
    reserved_env: reserved,
    raw_run_args: recordedRawRunArgs(record, input),
    credentials: (record.credentialKeys ?? []).map((key) => {
      const known = grants.credentials.find((c) => c.key === key && c.state !== 'overridden');
      const delivered = input.credentialsDelivered?.includes(key) === true;
      return {
        key,
        kind: known?.kind ?? null,
        layer: known?.layer ?? RECORD_SOURCE,
        state: delivered ? ('delivered' as const) : ('not_delivered' as const),
      };
    }),
    privileges: privilegeFacts(input.skills, null, record.network.projectRunArgs),
    network: networkFacts({
      config: input.config,
      skills: input.skills,
      skillError: null,
      posture: record.network.posture,
      postureSkill: record.network.postureSkill === '' ? null : record.network.postureSkill,
      recorded: record.network.egress,
      projectRunArgs: record.network.projectRunArgs,
      rawBuild: record.network.rawBuild,
      reserved,
      label: layerLabel,
    }),
  };
}

// ---------------------------------------------------------------------------
/** One sentence on how the credential rows reach the box, or null when there are none. */
function credentialDelivery(
  credentials: StatusData['credentials'],
  runningBox: boolean,
): string | null {
  if (credentials.length === 0) return null;
  if (!runningBox) {
    return credentials.some((c) => c.state === 'sealed')
      ? `delivered by byre develop (it asks the passphrase) over the credential channel onto the session tmpfs ${CREDENTIAL_DIR}; never -e, never baked, never in the launch record`
      : null;
  }
  const missing = credentials.filter((c) => c.state === 'not_delivered').map((c) => c.key);
  return missing.length === 0
    ? `delivered to this box over the credential channel (tmpfs ${CREDENTIAL_DIR})`
    : `NOT delivered to this box: ${missing.join(', ')} (no delivery receipt; the box stays at its credential gate and fails closed)`;
}

// ---------------------------------------------------------------------------
// Container and launch record

const LAUNCH_NOTES: Record<Exclude<LaunchDataState, 'verified' | 'none'>, string> = {
  outside_byre:
    'the box was started outside byre (no byre.client pid: e.g. by hand from the command byre dockerrun prints), so it carries no launch record',
  pre_record: 'the box carries no launch record (started by a byre before records)',
  missing: 'the box’s launch record file is missing',
  unreadable: 'the box’s launch record cannot be read',
  tampered: 'the box’s launch record was edited since launch (its bytes no longer match its hash)',
  newer_schema: 'the box’s launch record was written by a newer byre; liveness only',
};

/** The record's state for the page; a box byre did not start has none to carry. */
/** Who started the running box, as far as its byre.client label says. */
type Starter = 'byre' | 'outside_byre' | 'unknown';

function starterOf(c: StatusContainer): Starter {
  if (c.state !== 'running' || c.clientPid !== null) return 'byre';
  return c.clientLabelUnreadable === true ? 'unknown' : 'outside_byre';
}

function launchData(state: LaunchRecordState | null, starter: Starter): StatusData['launch'] {
  const empty: StatusData['launch'] = {
    state: 'none',
    note: null,
    record: null,
    schema: null,
    byre: null,
    created: null,
    engine: null,
    image: null,
    box_env_keys: null,
  };
  if (state === null) return empty;
  if (state.kind === 'pre_record' && starter === 'outside_byre') {
    return { ...empty, state: 'outside_byre', note: LAUNCH_NOTES.outside_byre };
  }
  if (state.kind === 'pre_record' && starter === 'unknown') {
    // Who started it is unknown, so why it has no record is too.
    return { ...empty, state: 'pre_record', note: 'the box carries no launch record' };
  }
  switch (state.kind) {
    case 'verified': {
      const r = state.record;
      return {
        ...empty,
        state: 'verified',
        record: state.hash,
        schema: r.record,
        byre: r.byre,
        created: r.created,
        engine: r.engine,
        image: {
          tag: r.image.tag,
          digest: r.image.digest,
          digest_error: r.image.digestError ?? null,
          base: r.image.base,
          wiring: r.image.wiring ?? null,
        },
        box_env_keys: [...r.envKeys],
      };
    }
    case 'pre_record':
      return { ...empty, state: 'pre_record', note: LAUNCH_NOTES.pre_record };
    case 'unreadable':
      return {
        ...empty,
        state: 'unreadable',
        note: `${LAUNCH_NOTES.unreadable}: ${state.message}`,
        record: state.label,
      };
    case 'missing':
      return { ...empty, state: 'missing', note: LAUNCH_NOTES.missing, record: state.hash };
    case 'tampered':
      return { ...empty, state: 'tampered', note: LAUNCH_NOTES.tampered, record: state.hash };
    case 'newer_schema':
      return {
        ...empty,
        state: 'newer_schema',
        note: `${LAUNCH_NOTES.newer_schema} (record = ${state.version})`,
        record: state.hash,
        schema: state.version,
      };
  }
}

function containerData(input: StatusInput): StatusData['container'] {
  const c = input.container;
  const siblings = input.siblings.map((s) => ({
    worktree: s.worktreeId,
    id: s.id,
    engine: s.engine,
    path: s.path ?? null,
    branch: s.branch ?? null,
  }));
  const base = { siblings, siblings_error: input.siblingsError };
  switch (c.state) {
    case 'not_running':
      return {
        state: 'not_running',
        id: null,
        engine: null,
        orphaned: false,
        outside_byre: false,
        client_label_unreadable: false,
        client_pid: null,
        error: null,
        ...base,
      };
    case 'running':
      return {
        state: 'running',
        id: c.id,
        engine: c.engine,
        orphaned: c.clientPid !== null && c.clientAlive === false,
        outside_byre: c.clientPid === null && c.clientLabelUnreadable !== true,
        client_label_unreadable: c.clientLabelUnreadable === true,
        client_pid: c.clientPid,
        error: null,
        ...base,
      };
    case 'unknown':
      return {
        state: 'unknown',
        id: null,
        engine: null,
        orphaned: false,
        outside_byre: false,
        client_label_unreadable: false,
        client_pid: null,
        error: c.error,
        ...base,
      };
  }
}

// ---------------------------------------------------------------------------

/** The grants the current config gives, with the repository's git dir and the self-edit bind when asked for. */
function configuredGrants(input: StatusInput): GrantFacts {
  const { config, skills, project } = input;
  const extraBinds: MountSpec[] =
    project.gitPaths === null
      ? []
      : [
          {
            host: project.gitPaths.commonGitDir,
            target: project.gitPaths.commonGitDir,
            mode: 'rw',
            disabled: false,
          },
        ];
  return grantFacts({
    config,
    skills,
    skillError: input.skillError,
    hostEnv: input.hostEnv,
    projectId: project.projectId,
    hostUid: input.hostUid,
    extraBinds,
    ...(input.sessionPorts === undefined ? {} : { sessionPorts: input.sessionPorts }),
    ...(input.selfEdit === true && input.storeDir !== undefined
      ? {
          selfEditBind: {
            host: input.storeDir,
            target: SELF_EDIT_DIR,
            mode: 'rw' as const,
            disabled: false,
          },
        }
      : {}),
  });
}

/**
 * The grant facts the page shows: the running box's own when its launch
 * record is verified, else the config's; shadows follow the binds shown.
 */
function shownFacts(
  grants: GrantFacts,
  verified: Extract<LaunchRecordState, { kind: 'verified' }> | null,
  input: StatusInput,
): GrantFacts {
  const subject = verified === null ? {} : subjectFacts(grants, verified.record, input);
  const merged: GrantFacts = { ...grants, ...subject };
  return {
    ...merged,
    managed_path_shadows: managedShadows(merged.binds, merged.volumes, netnsHooks(input.skills)),
  };
}

/** The template the config builds on, and whether it is byre's bundled one. */
function templateData(config: EffectiveConfig): StatusData['template'] {
  return config.template === null
    ? null
    : {
        id: config.template.value,
        source: layerLabel(config.template.from),
        bundled: config.layers.some((l) => l.kind === 'template' && l.path === null),
      };
}

/** The engine the page names, with the choice it came from, or why none answered. */
function engineData(input: StatusInput): StatusData['engine'] {
  const { config } = input;
  return input.engine.kind === 'ok'
    ? {
        choice: config.engine.value,
        name: input.engine.name,
        error: null,
        rootless: input.engine.rootless,
        keep_id: input.engine.keepId,
      }
    : {
        choice: config.engine.value,
        name: null,
        error: input.engine.message,
        rootless: null,
        keep_id: null,
      };
}

/** The Edge row's data: whether the running box's edge is up, and what it refused; null without injections. */
function edgeData(edge: StatusInput['edge'], config: EffectiveConfig): StatusData['edge'] {
  if (edge === null || edge === undefined || config.injections.length === 0) return null;
  return {
    state: edge.state,
    text: edgeStateText(edge.state, config.injections) ?? '',
    refused: edge.events === null ? null : edgeRefusedSummary(edge.events),
  };
}

/** The skills row: the running box's recorded skills when there is a record, else the config's. */
function skillsData(
  skills: readonly ResolvedSkill[],
  recordSkills: LaunchRecord['skills'] | null,
): StatusData['skills'] {
  return recordSkills === null
    ? skills.map((s) => ({ id: s.id, provenance: s.provenance, version: s.version }))
    : recordSkills.map((r) => ({
        id: r.name,
        provenance: r.provenance,
        version: skills.find((s) => s.id === r.name)?.version ?? null,
      }));
}

export function statusModel(input: StatusInput): StatusModel {
  const { config, skills, project } = input;
  const grants = configuredGrants(input);
  // A box only counts as running while its engine still answers for it; the
  // record describes it only when verified.
  const running = input.container.state === 'running' ? input.launch : null;
  const verified = running?.kind === 'verified' ? running : null;
  const facts = shownFacts(grants, verified, input);
  const wiring = wiringFacts(config, skills, input.claudeSkillProblems ?? []);
  const mcpServers = mcpFacts(declaredMcp(config, skills), facts.network, {
    hostEnv: facts.host_env,
    credentials: facts.credentials,
    configEnv: new Set(Object.keys(config.env)),
    skills,
    boxEnvKeys: verified === null ? null : new Set(verified.record.envKeys),
  });

  const data: StatusData = {
    version: STATUS_DATA_VERSION,
    subject: verified === null ? 'next_launch' : 'running_box',
    project_id: project.projectId,
    workdir: verified?.record.binds[0]?.host ?? project.worktreeDir,
    project_config: project.project.config,
    refused: (input.refusals ?? []).map((r) => ({ rule: r.rule, message: r.message })),
    worktree_of: project.isLinkedWorktree ? project.projectRoot : null,
    agent:
      config.agent === null
        ? null
        : { id: config.agent.value, source: layerLabel(config.agent.from) },
    template: templateData(config),
    extends: [...config.extendsChain],
    config_files: (input.configFiles ?? []).map((f) => ({ ...f })),
    preset_note: input.presetNote ?? null,
    self_edit:
      verified === null
        ? input.selfEdit === true
        : verified.record.binds.some((b) => b.target === SELF_EDIT_DIR),
    worktree_base:
      config.worktreeBase === null || config.worktreeBase.value === ''
        ? null
        : { value: config.worktreeBase.value, source: layerLabel(config.worktreeBase.from) },
    port_block: input.sessionPorts?.block ?? null,
    engine: engineData(input),
    network: withWall(facts.network, input.wall ?? null),
    privileges: facts.privileges,
    ports: facts.ports,
    binds: facts.binds,
    volumes: facts.volumes,
    skills: skillsData(skills, verified?.record.skills ?? null),
    skill_error: input.skillError,
    skill_grants: facts.skill_grants,
    reserved_env: facts.reserved_env,
    ...wiring,
    mcp_servers: mcpServers,
    host_env: facts.host_env,
    credentials: facts.credentials,
    credential_delivery: credentialDelivery(facts.credentials, verified !== null),
    injections: config.injections.map((i) => ({
      key: i.key,
      layer: layerLabel(i.from),
      hosts: i.rules.flatMap((r) => r.hosts.map(formatInjectHost)),
      text: injectionRowText(i),
      detail: injectionDetailText(i),
    })),
    edge: edgeData(input.edge ?? null, config),
    env_keys: Object.keys(config.env).sort(),
    run_args: facts.run_args,
    raw_run_args: facts.raw_run_args,
    build_raw: facts.build_raw,
    containments: facts.containments,
    managed_path_shadows: facts.managed_path_shadows,
    container: containerData(input),
    launch: launchData(running, starterOf(input.container)),
    changes_on_next_launch:
      verified !== null && input.nextLaunch !== null
        ? launchChanges(verified.record, input.nextLaunch)
        : [],
  };
  return { data, rows: statusRows(data) };
}
