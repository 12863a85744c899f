// The cascade merge: validated raw layers in, one EffectiveConfig out, every
// value stamped with the layer that set it. Pure and total over validated
// input; it never reports problems (parse.ts and check-effective.ts do).

import { CORE_REF } from './core-layer.js';
import { closureCovers, egressKey, parseEgressEntry } from './egress-entry.js';
import { normalizeTarget } from './grammar.js';
import { effectiveInjections } from './inject.js';
import { DEFAULT_INTERFACE } from './rules/index.js';
import type {
  RawClaudeSkill,
  RawContext,
  RawLayer,
  RawMcp,
  RawMount,
  RawPort,
  RawSharedAuth,
  RawVolume,
} from './schema.js';
import {
  DEFAULT_BASE,
  type ClaudeSkillSpec,
  type ContextSpec,
  type EffectiveConfig,
  type EgressEntry,
  type EngineChoice,
  type LayerRef,
  type McpSpec,
  type MountSpec,
  type PortSpec,
  type Sourced,
  type VolumeSpec,
} from './types.js';

interface LayerInput {
  ref: LayerRef;
  raw: RawLayer;
}

/** The sentinel that selects no template / no agent while still beating lower layers. */
export const NONE_SENTINEL = 'none';

const sourced = <T>(value: T, from: LayerRef): Sourced<T> => ({ value, from });

/** The config before any layer: core defaults, every list empty. */
function emptyConfig(): EffectiveConfig {
  return {
    layers: [],
    engine: sourced<EngineChoice>('auto', CORE_REF),
    template: null,
    agent: null,
    base: sourced(DEFAULT_BASE, CORE_REF),
    seedPrefs: null,
    worktreeBase: null,
    extendsChain: [],
    sources: {},
    apt: [],
    env: {},
    envFromHost: {},
    credentials: [],
    injections: [],
    files: {},
    skills: [],
    mounts: [],
    ports: [],
    volumes: [],
    egress: [],
    egressClosed: [],
    egressOffered: [],
    mcp: [],
    mcpClosed: [],
    claudeSkills: [],
    claudeSkillsClosed: [],
    context: [],
    dockerfilePre: [],
    dockerfilePost: [],
    runArgs: [],
    defaults: { sharedAuth: {}, skipQuestions: false },
  };
}

/** Merge layers, lowest first: core ⊕ default ⊕ template ⊕ chain(root…parent) ⊕ project. */
export function mergeLayers(layers: readonly LayerInput[]): EffectiveConfig {
  const config = emptyConfig();
  for (const layer of layers) applyLayer(config, layer.raw, layer.ref);
  // The highest layer naming a key decides it; an injected row brings its own file's rules.
  config.injections = effectiveInjections(
    layers.map((l) => ({ ref: l.ref, layer: l.raw })),
    (key) => key in config.env,
  );
  if (config.template?.value === NONE_SENTINEL) config.template = null;
  if (config.agent?.value === NONE_SENTINEL) config.agent = null;
  return config;
}

function applyLayer(config: EffectiveConfig, raw: RawLayer, from: LayerRef): void {
  config.layers.push(from);
  if (from.kind === 'layer') config.extendsChain.push(from.name);
  applyScalars(config, raw, from);
  applyMaps(config, raw, from);
  config.apt = mergeNameList(config.apt, raw.apt, from);
  config.skills = mergeNameList(config.skills, raw.skills, from);
  applyEgress(config, raw.egress ?? [], from);
  config.egressOffered = mergeOffered(config.egressOffered, raw.egress_offered ?? [], from);
  config.mounts = mergeMounts(config.mounts, raw.mounts ?? [], from);
  config.ports = mergePorts(config.ports, raw.ports ?? [], from);
  config.volumes = mergeVolumes(config.volumes, raw.volumes ?? [], from);
  applyMcp(config, raw.mcp ?? [], from);
  applyClaudeSkills(config, raw.claude_skills ?? [], from);
  config.context = mergeContext(config.context, raw.context ?? [], from);
  config.dockerfilePre.push(...(raw.dockerfile_pre ?? []).map((line) => sourced(line, from)));
  config.dockerfilePost.push(...(raw.dockerfile_post ?? []).map((line) => sourced(line, from)));
  config.runArgs.push(...(raw.run_args ?? []).map((arg) => sourced(arg, from)));
  applyDefaults(config, raw, from);
}

// ---------------------------------------------------------------- scalars and maps

/** An empty string is Go's zero value: it inherits rather than overrides. */
function given(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function toEngine(value: string): EngineChoice | null {
  return value === 'auto' || value === 'docker' || value === 'podman' ? value : null;
}

function applyScalars(config: EffectiveConfig, raw: RawLayer, from: LayerRef): void {
  const engine = given(raw.engine) ? toEngine(raw.engine) : null;
  if (engine !== null) config.engine = sourced(engine, from);
  if (given(raw.base)) config.base = sourced(raw.base, from);
  // default.config's template and agent are picker favourites, never part of the box.
  if (from.kind !== 'default') {
    if (given(raw.template)) config.template = sourced(raw.template, from);
    if (given(raw.agent)) config.agent = sourced(raw.agent, from);
  }
  if (raw.seed_prefs !== undefined) config.seedPrefs = sourced(raw.seed_prefs, from);
  if (given(raw.worktree_base)) config.worktreeBase = sourced(raw.worktree_base, from);
}

function mergeMap(
  into: Record<string, Sourced<string>>,
  entries: Record<string, string> | undefined,
  from: LayerRef,
): void {
  for (const [key, value] of Object.entries(entries ?? {})) into[key] = sourced(value, from);
}

function applyMaps(config: EffectiveConfig, raw: RawLayer, from: LayerRef): void {
  mergeMap(config.env, raw.env, from);
  mergeMap(config.envFromHost, raw.env_from_host, from);
  const table = raw.credentials;
  if (table?.recipient !== undefined && table.identity !== undefined) {
    config.credentials.push(
      sourced({ recipient: table.recipient, identity: table.identity }, from),
    );
  }
  mergeMap(config.files, raw.files, from);
  for (const [id, source] of Object.entries(raw.sources ?? {})) {
    const hint =
      source.digest === undefined
        ? { uri: source.uri ?? '' }
        : { uri: source.uri ?? '', digest: source.digest };
    config.sources[id] = sourced(hint, from);
  }
}

/** `["claude"]` is the legacy yes-list: it names the agent's bundled companion. */
function sharedAuthTable(value: RawSharedAuth): Record<string, string> {
  if (!Array.isArray(value)) return { ...value };
  return Object.fromEntries(value.map((agent) => [agent, `${agent}-shared-auth`]));
}

function applyDefaults(config: EffectiveConfig, raw: RawLayer, _from: LayerRef): void {
  const sharedAuth = raw.defaults?.shared_auth ?? raw.shared_auth;
  if (sharedAuth !== undefined) config.defaults.sharedAuth = sharedAuthTable(sharedAuth);
  if (raw.defaults?.skip_questions === true) config.defaults.skipQuestions = true;
}

// ---------------------------------------------------------------- plain lists

/** Union with dedup; `!name` removes, and within one layer a removal beats an add. */
function mergeNameList(
  acc: readonly Sourced<string>[],
  entries: readonly string[] | undefined,
  from: LayerRef,
): Sourced<string>[] {
  const list = entries ?? [];
  const removed = new Set(list.filter((e) => e.startsWith('!')).map((e) => e.slice(1)));
  const out = [...acc];
  for (const entry of list) {
    if (entry.startsWith('!') || removed.has(entry)) continue;
    if (!out.some((existing) => existing.value === entry)) out.push(sourced(entry, from));
  }
  return out.filter((existing) => !removed.has(existing.value));
}

function parsedEgress(entries: readonly string[]): {
  adds: EgressEntry[];
  closures: EgressEntry[];
} {
  const adds: EgressEntry[] = [];
  const closures: EgressEntry[] = [];
  for (const entry of entries) {
    const parsed = parseEgressEntry(entry);
    if (!parsed.ok) continue;
    (parsed.closure ? closures : adds).push(parsed.entry);
  }
  // Within one layer, closures beat adds.
  return { adds: adds.filter((add) => !closures.some((c) => closureCovers(c, add))), closures };
}

function pushUnique(list: Sourced<EgressEntry>[], entry: EgressEntry, from: LayerRef): void {
  if (!list.some((existing) => egressKey(existing.value) === egressKey(entry))) {
    list.push(sourced(entry, from));
  }
}

function applyEgress(config: EffectiveConfig, entries: readonly string[], from: LayerRef): void {
  const { adds, closures } = parsedEgress(entries);
  for (const add of adds) {
    // A later plain entry reopens what an earlier layer closed.
    config.egressClosed = config.egressClosed.filter((c) => !closureCovers(c.value, add));
    pushUnique(config.egress, add, from);
  }
  for (const closure of closures) {
    config.egress = config.egress.filter((e) => !closureCovers(closure, e.value));
    pushUnique(config.egressClosed, closure, from);
  }
}

function mergeOffered(
  acc: readonly Sourced<EgressEntry>[],
  entries: readonly string[],
  from: LayerRef,
): Sourced<EgressEntry>[] {
  const { adds, closures } = parsedEgress(entries);
  const out = [...acc];
  for (const add of adds) pushUnique(out, add, from);
  return out.filter((e) => !closures.some((c) => closureCovers(c, e.value)));
}

// ---------------------------------------------------------------- identity lists

/** Remove-then-append: a replacement takes the later position. */
function replaceByIdentity<T>(
  acc: readonly Sourced<T>[],
  id: string,
  identity: (value: T) => string,
  next: Sourced<T> | null,
): Sourced<T>[] {
  const kept = acc.filter((existing) => identity(existing.value) !== id);
  return next === null ? kept : [...kept, next];
}

export function toMountSpec(mount: RawMount): MountSpec {
  return {
    host: mount.host ?? '',
    target: mount.target ?? '',
    mode: mount.mode === 'rw' ? 'rw' : 'ro',
    disabled: mount.disabled ?? false,
  };
}

function mergeMounts(
  acc: readonly Sourced<MountSpec>[],
  mounts: readonly RawMount[],
  from: LayerRef,
): Sourced<MountSpec>[] {
  const identity = (m: MountSpec): string => normalizeTarget(m.target);
  return mounts.reduce<Sourced<MountSpec>[]>(
    (out, mount) => {
      const target = mount.target ?? '';
      if (target.startsWith('!'))
        return replaceByIdentity(out, normalizeTarget(target.slice(1)), identity, null);
      return replaceByIdentity(
        out,
        normalizeTarget(target),
        identity,
        sourced(toMountSpec(mount), from),
      );
    },
    [...acc],
  );
}

function toPortSpec(port: RawPort): PortSpec {
  return {
    container: port.container ?? 0,
    host: port.host ?? 0,
    interface: port.interface ?? DEFAULT_INTERFACE,
  };
}

/**
 * Ports replace by container port, entry by entry in file order, as every
 * identity list does: within one layer the last binding of a port wins, and
 * `remove = true` drops the port's binding (an add then a remove leaves none).
 */
function mergePorts(
  acc: readonly Sourced<PortSpec>[],
  ports: readonly RawPort[],
  from: LayerRef,
): Sourced<PortSpec>[] {
  const identity = (p: PortSpec): string => String(p.container);
  return ports.reduce<Sourced<PortSpec>[]>(
    (out, port) =>
      replaceByIdentity(
        out,
        String(port.container ?? 0),
        identity,
        port.remove === true ? null : sourced(toPortSpec(port), from),
      ),
    [...acc],
  );
}

export function toVolumeSpec(volume: RawVolume): VolumeSpec {
  const spec: VolumeSpec = {
    name: volume.name ?? '',
    role: volume.role === 'state' ? 'state' : 'cache',
    target: volume.target ?? '',
    scope: volume.scope === 'machine' ? 'machine' : 'project',
    sharing: volume.sharing === 'exclusive' ? 'exclusive' : 'shared',
  };
  const seed = volume.seed;
  if (seed?.host !== undefined) spec.seed = { host: seed.host };
  else if (seed?.literal !== undefined)
    spec.seed = { literal: seed.literal, path: seed.path ?? '' };
  return spec;
}

function mergeVolumes(
  acc: readonly Sourced<VolumeSpec>[],
  volumes: readonly RawVolume[],
  from: LayerRef,
): Sourced<VolumeSpec>[] {
  const identity = (v: VolumeSpec): string => v.name;
  return volumes.reduce<Sourced<VolumeSpec>[]>(
    (out, volume) => {
      const name = volume.name ?? '';
      if (name.startsWith('!')) return replaceByIdentity(out, name.slice(1), identity, null);
      return replaceByIdentity(out, name, identity, sourced(toVolumeSpec(volume), from));
    },
    [...acc],
  );
}

export function toMcpSpec(mcp: RawMcp): McpSpec {
  return {
    name: mcp.name ?? '',
    ...(mcp.command === undefined ? {} : { command: [...mcp.command] }),
    ...(mcp.url === undefined ? {} : { url: mcp.url }),
    env: [...(mcp.env ?? [])],
    egress: [...(mcp.egress ?? [])],
    headers: { ...(mcp.headers ?? {}) },
  };
}

/**
 * Named wiring with surviving closures ([[mcp]], [[claude_skills]]): `!name`
 * drops the entry and records a closure that later reaches skill-declared
 * entries too; a later declaration of the name reopens it.
 */
function mergeClosable<T extends { name: string }>(
  acc: readonly Sourced<T>[],
  closed: readonly Sourced<string>[],
  entries: readonly { name: string; spec: T | null }[],
  from: LayerRef,
): { list: Sourced<T>[]; closed: Sourced<string>[] } {
  let list = [...acc];
  let closures = [...closed];
  const identity = (value: T): string => value.name;
  for (const { name, spec } of entries) {
    list = replaceByIdentity(list, name, identity, spec === null ? null : sourced(spec, from));
    closures = closures.filter((c) => c.value !== name);
    if (spec === null) closures.push(sourced(name, from));
  }
  return { list, closed: closures };
}

function closableEntries<R extends { name?: string | undefined }, T>(
  raws: readonly R[],
  toSpec: (raw: R) => T,
): { name: string; spec: T | null }[] {
  return raws.map((raw) => {
    const name = raw.name ?? '';
    return name.startsWith('!') ? { name: name.slice(1), spec: null } : { name, spec: toSpec(raw) };
  });
}

function applyMcp(config: EffectiveConfig, mcp: readonly RawMcp[], from: LayerRef): void {
  const merged = mergeClosable(config.mcp, config.mcpClosed, closableEntries(mcp, toMcpSpec), from);
  config.mcp = merged.list;
  config.mcpClosed = merged.closed;
}

function toClaudeSkillSpec(skill: RawClaudeSkill): ClaudeSkillSpec {
  return { name: skill.name ?? '', path: skill.path ?? '' };
}

function applyClaudeSkills(
  config: EffectiveConfig,
  skills: readonly RawClaudeSkill[],
  from: LayerRef,
): void {
  const entries = closableEntries(skills, toClaudeSkillSpec);
  const merged = mergeClosable(config.claudeSkills, config.claudeSkillsClosed, entries, from);
  config.claudeSkills = merged.list;
  config.claudeSkillsClosed = merged.closed;
}

function toContextSpec(context: RawContext): ContextSpec {
  const name = context.name ?? '';
  return context.file !== undefined
    ? { name, file: context.file }
    : { name, text: context.text ?? '' };
}

function mergeContext(
  acc: readonly Sourced<ContextSpec>[],
  contexts: readonly RawContext[],
  from: LayerRef,
): Sourced<ContextSpec>[] {
  const identity = (c: ContextSpec): string => c.name;
  return contexts.reduce<Sourced<ContextSpec>[]>(
    (out, context) => {
      const name = context.name ?? '';
      if (name.startsWith('!')) return replaceByIdentity(out, name.slice(1), identity, null);
      return replaceByIdentity(out, name, identity, sourced(toContextSpec(context), from));
    },
    [...acc],
  );
}
