// Gathers what a box would reach on the host (the workspace, every bind, every
// volume seed) and the paths byre guards, canonical, for the pure rules in
// project/containment.ts. develop, status and dockerrun all ask here.

import { linkedConfigTargets } from '../config/read.js';
import type { EffectiveConfig, VolumeSpec } from '../config/types.js';
import { RefusedError } from '../errors.js';
import { expandHost, type RunParams } from '../gen/run-argv.js';
import { canonicalPathLoose, canonicalPathSync } from '../host/canonical.js';
import {
  containmentRefusals,
  type BoxPath,
  type ContainmentRefusal,
  type GuardedPaths,
} from '../project/containment.js';
import type { ResolvedSkill } from '../skills/types.js';
import { runtimeDirCandidates } from '../host/runtime-dir.js';
import { worktreeBinds, type BoxIdentity } from '../gen/run-params.js';
import type { BindPins } from './bind-pins.js';

interface ContainmentInput {
  params: Pick<RunParams, 'workspaceDir' | 'home' | 'configMounts' | 'skillMounts' | 'extraBinds'>;
  /** Config and skill volume declarations: a host seed is copied into the box. */
  volumes: readonly VolumeSpec[];
  /** BYRE_HOME as byre uses it. */
  store: string;
  /** Where the store's linked config files lead (config/read.ts's linkedConfigTargets). */
  configLinks?: readonly string[];
  /** The running executable (process.execPath). */
  executable: string;
  /** Where deliver and grab may keep their podman memo (host/runtime-dir.ts). */
  runtime: readonly string[];
  /**
   * The sources as byre pinned them (adr/0045): the rules judge each pinned
   * object's real path, so the object proven at start is the one judged.
   * Without pins (status, dockerrun, a remote engine) each path is resolved here.
   */
  pins?: BindPins;
}

function executables(exe: string): string[] {
  let real = exe;
  try {
    real = canonicalPathSync(exe);
  } catch {
    // Not resolvable: the path as given is all there is to guard.
  }
  return [...new Set([exe, real])];
}

/** A host path as the rules compare it: canonical, symlinks resolved (injected by tests). */
type Canonical = (p: string) => string;

function guardedPaths(
  input: ContainmentInput,
  canonical: Canonical = canonicalPathLoose,
): GuardedPaths {
  return {
    home: canonical(input.params.home),
    store: canonical(input.store),
    configLinks: input.configLinks ?? [],
    executables: executables(input.executable),
    // As given and resolved: a mount is compared in its resolved form, and
    // /tmp may itself be a link (macOS).
    runtime: [...new Set([...input.runtime, ...input.runtime.map((r) => canonical(r))])],
  };
}

/** What a box would get from the host, unresolved: each source exactly as the engine is handed it. */
export function boxSources(
  input: ContainmentInput,
): (Omit<BoxPath, 'host'> & { source: string })[] {
  const { params } = input;
  const out: (Omit<BoxPath, 'host'> & { source: string })[] = [
    {
      source: params.workspaceDir,
      mode: 'rw',
      kind: 'workspace',
      label: `the project directory ${params.workspaceDir}`,
    },
  ];
  const declared = new Set([...params.configMounts, ...params.skillMounts]);
  for (const b of [...params.configMounts, ...params.skillMounts, ...params.extraBinds]) {
    if (b.disabled === true) continue;
    const mode = b.mode === 'rw' ? 'rw' : 'ro';
    out.push({
      source: expandHost(b.host, params.home),
      mode,
      kind: 'mount',
      label: `the mount ${b.host} -> ${b.target} (${mode})`,
      ...(declared.has(b) ? { declared: { mount: b.target } } : {}),
    });
  }
  for (const v of input.volumes) {
    if (v.seed === undefined || !('host' in v.seed)) continue;
    out.push({
      source: expandHost(v.seed.host, params.home),
      mode: 'ro',
      kind: 'seed',
      label: `the seed ${v.seed.host} of volume ${v.name}`,
      declared: { volume: v.name },
    });
  }
  return out;
}

function boxPaths(input: ContainmentInput, canonical: Canonical = canonicalPathLoose): BoxPath[] {
  const judged = (source: string): string => {
    const pinned = input.pins?.get(source);
    return pinned?.kind === 'pinned' ? pinned.pin.real : canonical(source);
  };
  return boxSources(input).map(({ source, ...p }) => ({ ...p, host: judged(source) }));
}

/**
 * Every containment refusal for this box (empty when it reaches none of
 * byre's files). Synchronous: the config editor asks on every edit.
 */
export function containmentRefusalsOf(
  input: ContainmentInput,
  canonical: Canonical = canonicalPathLoose,
): ContainmentRefusal[] {
  return containmentRefusals(boxPaths(input, canonical), guardedPaths(input, canonical));
}

/** Every containment refusal for this launch (empty when the box reaches none of byre's files). */
export async function containmentProblems(input: ContainmentInput): Promise<ContainmentRefusal[]> {
  return containmentRefusalsOf(input);
}

/** The exit-3 refusal for a non-empty list: the first is the message, every one a detail with its fix. */
export function containmentError(refusals: readonly ContainmentRefusal[]): RefusedError {
  const [first, ...rest] = refusals;
  if (first === undefined) throw new TypeError('containmentError needs a refusal');
  return new RefusedError(`byre will not start this box: ${first.message}`, {
    rule: first.rule,
    remedy: first.remedy,
    details: rest.flatMap((r) => [`also: ${r.message} [${r.rule}]`, `  fix: ${r.remedy}`]),
  });
}

/** The input for a box of `config` and `skills` in this directory (no engine needed). */
export function containmentInput(
  box: Pick<BoxIdentity, 'worktreeDir' | 'gitPaths'>,
  store: string,
  home: string,
  config: Pick<EffectiveConfig, 'mounts' | 'volumes'> | null,
  skills: readonly ResolvedSkill[] = [],
): ContainmentInput {
  return {
    params: {
      workspaceDir: box.worktreeDir,
      home,
      configMounts: config?.mounts.map((m) => m.value) ?? [],
      skillMounts: skills.flatMap((s) => s.runtime.mounts),
      extraBinds: worktreeBinds(box),
    },
    volumes: [...(config?.volumes.map((v) => v.value) ?? []), ...skills.flatMap((s) => s.volumes)],
    store,
    configLinks: linkedConfigTargets(store),
    executable: process.execPath,
    runtime: runtimeDirCandidates(process.getuid?.() ?? -1),
  };
}

export async function checkContainment(input: ContainmentInput): Promise<void> {
  const refusals = await containmentProblems(input);
  if (refusals.length > 0) throw containmentError(refusals);
}
