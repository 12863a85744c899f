// The one definition of the box-writable trees (adr/0046): every host
// directory some box byre starts, or ever started, can write, so everything
// under it is hostile input. Host tool pinning declines a tool found in, or through, one
// of them; loading refuses a granted host path resolved through a link that
// lives in one. Every caller asks here; nothing else lists them.

import path from 'node:path';

import type { EffectiveConfig, MountSpec, VolumeSpec } from '../config/types.js';
import { expandHostPath } from '../config/grammar.js';
import { realpathOrSelf } from '../host/canonical.js';
import type { RunParams } from '../gen/run-argv.js';
import { readLaunchedTrees, type LaunchedTree } from '../launch/trees-record.js';
import type { BoxTree } from '../project/box-trees.js';
import type { ProjectContext } from '../project/context.js';
import { recordedProjectPaths } from '../project/store.js';
import { storePaths } from '../project/store-layout.js';
import { listWorktrees } from '../project/worktree-list.js';
import type { ResolvedSkill } from '../skills/types.js';

/** What a project's config grants its box on the host, as the trees need it. */
export interface TreeGrants {
  mounts: readonly MountSpec[];
  volumes: readonly VolumeSpec[];
}

/** The config's and its skills' mounts and volumes. */
export function grantsOf(
  config: Pick<EffectiveConfig, 'mounts' | 'volumes'>,
  skills: readonly ResolvedSkill[],
): TreeGrants {
  return {
    mounts: [...config.mounts.map((m) => m.value), ...skills.flatMap((s) => s.runtime.mounts)],
    volumes: [...config.volumes.map((v) => v.value), ...skills.flatMap((s) => s.volumes)],
  };
}

type TreeContext = Pick<
  ProjectContext,
  'projectId' | 'worktreeDir' | 'projectRoot' | 'commonGitDir' | 'isLinkedWorktree' | 'store'
>;

interface TreeSpec {
  given: string;
  what: string;
}

function resolved(given: string): string {
  return realpathOrSelf(given);
}

/**
 * This project's own trees: the directory the box is bound at, the main
 * checkout, git's common directory and every linked worktree git lists
 * (each has, or had, a box of its own).
 */
function projectSpecs(ctx: TreeContext): TreeSpec[] {
  const specs: TreeSpec[] = [
    {
      given: ctx.worktreeDir,
      what: `${ctx.isLinkedWorktree ? 'this worktree' : 'the project directory'} ${ctx.worktreeDir}`,
    },
    { given: ctx.projectRoot, what: `the main checkout ${ctx.projectRoot}` },
  ];
  if (ctx.commonGitDir !== null) {
    specs.push({ given: ctx.commonGitDir, what: `git's directory ${ctx.commonGitDir}` });
    for (const e of listWorktrees(ctx.commonGitDir, ctx.projectRoot).entries) {
      if (e.admin !== null) specs.push({ given: e.path, what: `the linked worktree ${e.path}` });
    }
  }
  return specs;
}

/**
 * byre's per-project store directories (a `--self-edit` box writes its own),
 * the directory of every project the store records but `except`, and every
 * directory the store records a box was ever launched with write access to
 * (launch/trees-record.ts), whatever the config says now.
 */
function storeSpecs(storeHome: string, except: string | null): TreeSpec[] {
  const projects = storePaths(storeHome).projects;
  return [
    { given: projects, what: `byre's project stores ${projects}` },
    ...[...recordedProjectPaths(storeHome)]
      .filter(([id]) => id !== except)
      .map(([, p]) => ({ given: p, what: `the project directory ${p} (a project of this store)` })),
    ...readLaunchedTrees(storeHome).map((t) => ({ given: t.path, what: t.what })),
  ];
}

/** Enabled read-write mounts and host seed sources. */
function grantSpecs(grants: TreeGrants, home: string): TreeSpec[] {
  const specs: TreeSpec[] = [];
  for (const m of grants.mounts) {
    if (m.disabled || m.mode !== 'rw') continue;
    const host = expandHostPath(m.host, home);
    if (host !== null) {
      specs.push({ given: host, what: `the read-write mount ${m.host} -> ${m.target}` });
    }
  }
  for (const v of grants.volumes) {
    if (v.seed === undefined || !('host' in v.seed)) continue;
    const host = expandHostPath(v.seed.host, home);
    if (host !== null) {
      specs.push({ given: host, what: `the seed ${v.seed.host} of volume ${v.name}` });
    }
  }
  return specs;
}

/**
 * Every host directory a box can write, as far as this project can tell:
 * its own trees, its read-write mounts and seed sources (when `grants` is
 * known), byre's per-project store directories (a `--self-edit` box writes
 * its own) and every other project the store records. `home` expands `~`.
 */
export function boxWritableTrees(
  ctx: TreeContext,
  grants: TreeGrants | null,
  home: string,
): BoxTree[] {
  return resolveTrees([
    ...projectSpecs(ctx),
    ...(grants === null ? [] : grantSpecs(grants, home)),
    ...storeSpecs(ctx.store.home, ctx.projectId),
  ]);
}

/**
 * The trees known without a project (deliver and grab, which run from
 * anywhere): the store's project directories and every project it records.
 */
export function storeWritableTrees(storeHome: string): BoxTree[] {
  return resolveTrees(storeSpecs(storeHome, null));
}

function resolveTrees(specs: readonly TreeSpec[]): BoxTree[] {
  const seen = new Set<string>();
  const trees: BoxTree[] = [];
  for (const spec of specs) {
    const given = path.resolve(spec.given);
    if (seen.has(given)) continue;
    seen.add(given);
    trees.push({ given, path: resolved(given), what: spec.what });
  }
  return trees;
}

/** What a launch writes where (`projectRoot` names the project in messages). */
interface LaunchGrants {
  params: Pick<
    RunParams,
    'projectId' | 'workspaceDir' | 'home' | 'configMounts' | 'skillMounts' | 'extraBinds'
  >;
  volumes: readonly VolumeSpec[];
  projectRoot: string;
}

/**
 * The store record's entries for one launch (launch/trees-record.ts): the
 * directory bound at /workspace, every enabled read-write bind (mounts of the
 * config and its skills, git's common directory and the worktree, the
 * self-edit store) and every volume seed host, each as the engine is told it
 * and as it resolves now (`resolve`), when that differs. Pure but `resolve`.
 */
export function launchedTreesOf(
  launch: LaunchGrants,
  resolve: (p: string) => string = resolved,
): LaunchedTree[] {
  const { params, projectRoot } = launch;
  const of = `of a box of ${projectRoot}`;
  const specs: TreeSpec[] = [
    {
      given: params.workspaceDir,
      what: `the directory ${params.workspaceDir} bound at /workspace ${of}`,
    },
  ];
  const mounts = [...params.configMounts, ...params.skillMounts];
  for (const b of [...mounts, ...params.extraBinds]) {
    if (b.disabled === true || b.mode !== 'rw') continue;
    const host = expandHostPath(b.host, params.home);
    if (host === null) continue;
    const kind = mounts.includes(b) ? 'mount' : 'bind';
    specs.push({ given: host, what: `the read-write ${kind} ${b.host} -> ${b.target} ${of}` });
  }
  for (const v of launch.volumes) {
    if (v.seed === undefined || !('host' in v.seed)) continue;
    const host = expandHostPath(v.seed.host, params.home);
    if (host !== null)
      specs.push({ given: host, what: `the seed ${v.seed.host} of volume ${v.name} ${of}` });
  }
  const out = new Map<string, LaunchedTree>();
  for (const spec of specs) {
    for (const p of [spec.given, resolve(spec.given)]) {
      if (!out.has(p)) out.set(p, { path: p, project: params.projectId, what: spec.what });
    }
  }
  return [...out.values()];
}

/** The trees as plain paths, for host tool pinning. */
export function treeRoots(trees: readonly BoxTree[]): string[] {
  return [...new Set(trees.flatMap((t) => [t.given, t.path]))];
}
