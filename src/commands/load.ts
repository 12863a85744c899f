// The read path every box command shares: where we stand, the merged config
// cascade, the enabled skills, and the trees a box can write (adr/0046),
// with the refusal of a granted path through a link planted in one. Reads
// only; never enrols or writes.

import { homedir } from 'node:os';
import { loadCascade } from '../config/read.js';
import { ByreError, type ConfigIssue } from '../errors.js';
import { volumeEngineName } from '../gen/names.js';
import type { EffectiveConfig } from '../config/types.js';
import { embeddedText } from '../embedded.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import type { PackageCanon } from '../config/canonical.js';
import type { ValueLocation } from '../config/check-effective.js';
import { loadCatalog, type PackageCatalog } from '../skills/catalog.js';
import { resolveEnabledSkills, type SkillCatalog } from '../skills/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { CatalogChoice } from '../tui/model/config-editor/types.js';
import type { Io } from '../io.js';
import { createHostTools } from '../engine/host-tools.js';
import { resolveHostEnv, type HostEnvEntry, type HostReaders } from '../hostenv/resolve.js';
import { hostReaders } from '../hostenv/readers.js';
import {
  boxWritableTrees,
  grantsOf,
  treeRoots,
  type TreeGrants,
} from '../containment/writable-trees.js';
import {
  LINK_RULE,
  grantedHostPaths,
  linkFindingMessage,
  linkFindingRemedy,
  linkRefusal,
  plantedLinkFindings,
  type LinkFinding,
} from '../containment/granted-paths.js';
import type { BoxTree } from '../project/box-trees.js';
import { walkHostPath } from '../project/host-path-view.js';
import { planBuild, type BuildPlan } from '../gen/plan.js';
import { checkProjectFiles, readContextFiles } from '../session/stage.js';
import { readConfigClaudeSkills } from '../skills/claude-skill-read.js';

export interface LoadedBox {
  ctx: ProjectContext;
  config: EffectiveConfig;
  skills: ResolvedSkill[];
  warnings: ConfigIssue[];
  /** The box-writable trees (adr/0046) of this box. */
  trees: BoxTree[];
}

/** A bundled template by bare name, from the binary's embedded files. */
export function bundledTemplate(name: string): { id: string; text: string } | null {
  const bare = name.startsWith('byre/') ? name.slice('byre/'.length) : name;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(bare)) return null;
  const text = embeddedText(`templates/${bare}/template.config`);
  return text === null ? null : { id: `byre/${bare}`, text };
}

/**
 * The template lookup the cascade uses after the local directory: bundled by
 * bare name first, then an installed (hash-verified) template by id.
 */
export function templateLookup(
  home: string,
): (name: string) => { id: string; text: string } | null {
  return (name) => {
    const bundled = bundledTemplate(name);
    if (bundled !== null) return bundled;
    const catalog = loadCatalog({ home, kind: 'template' });
    const entry = catalog.entries.find((e) => e.provenance === 'installed' && e.id === name);
    if (entry === undefined) return null;
    return catalog.template(entry.id);
  };
}

/**
 * References as the catalogs know them (`claude` -> `byre/claude`). The
 * template catalog is read only when a layer names a template.
 */
export function packageCanon(home: string, skills: PackageCatalog): PackageCanon {
  let templates: PackageCatalog | null = null;
  return {
    skill: (reference) => skills.find(reference)?.id ?? reference,
    template: (reference) => {
      templates ??= loadCatalog({ home, kind: 'template' });
      return templates.find(reference)?.id ?? reference;
    },
  };
}

/** The packages a picker offers: templates, agents, every skill, and who vouches for each agent's shared-auth offer. */
interface PackageChoices {
  skills: SkillCatalog;
  canon: PackageCanon;
  templates: CatalogChoice[];
  agents: CatalogChoice[];
  skillChoices: CatalogChoice[];
  /** agent id -> the companion that declares shared_auth_for it (catalog ids). */
  companions: Record<string, string>;
}

export function packageChoices(home: string): PackageChoices {
  const skills = loadCatalog({ home, kind: 'skill' });
  const canon = packageCanon(home, skills);
  const ok = skills.entries.filter((e) => e.status === 'ok' && e.skill !== null);
  const choice = (e: { id: string; description: string }): CatalogChoice => ({
    id: e.id,
    description: e.description,
  });
  const companions: Record<string, string> = {};
  for (const e of ok) {
    const agent = e.skill?.meta?.sharedAuthFor;
    if (agent != null) companions[canon.skill(agent)] = e.id;
  }
  return {
    skills: skills.asSkillCatalog(),
    canon,
    templates: loadCatalog({ home, kind: 'template' })
      .entries.filter((e) => e.status === 'ok')
      .map(choice),
    agents: ok.filter((e) => e.skill?.agent != null).map(choice),
    skillChoices: ok.map(choice),
    companions,
  };
}

export interface BoxConfig {
  config: EffectiveConfig;
  warnings: ConfigIssue[];
  catalog: SkillCatalog;
  locate: ValueLocation;
}

/**
 * The merged config for this project, its package references canonical and
 * every enabled mount's host checked to exist (`home` is the user's, for
 * `~`). Skills are not resolved yet: status shows a missing package where
 * the other commands refuse.
 */
export function readBoxConfig(ctx: ProjectContext, home: string): BoxConfig {
  return readCascade(ctx, home);
}

/** readBoxConfig; `home` undefined skips the mount-host existence check. */
function readCascade(ctx: ProjectContext, home: string | undefined): BoxConfig {
  const catalog = loadCatalog({ home: ctx.store.home, kind: 'skill' });
  const { config, issues, locate } = loadCascade({
    home: ctx.store.home,
    projectId: ctx.projectId,
    bundledTemplate: templateLookup(ctx.store.home),
    canon: packageCanon(ctx.store.home, catalog),
    ...(home === undefined ? {} : { userHome: home }),
  });
  return { config, warnings: issues, catalog: catalog.asSkillCatalog(), locate };
}

/** A box's config as loaded for a project already resolved, and where its values sit. */
export type LoadedConfig = Omit<LoadedBox, 'ctx'> & { locate: ValueLocation };

/** Resolve config and skills for the current directory. */
export async function loadBoxConfig(ctx: ProjectContext, home: string): Promise<LoadedConfig> {
  const { config, warnings, catalog, locate } = readBoxConfig(ctx, home);
  const skills = resolveEnabledSkills(config, catalog, locate);
  const trees = checkedTrees(ctx, config, skills, home, locate);
  return { config, skills, warnings, trees, locate };
}

/**
 * The box-writable trees of a box of `config` and `skills` here, after
 * refusing (exit 3, located) any granted host path resolved through a link
 * that lives in one of them (adr/0046). Every verb that loads a box's config
 * comes through here, status included.
 */
function checkedTrees(
  ctx: ProjectContext,
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  home: string,
  locate: ValueLocation,
): BoxTree[] {
  const { trees, findings } = boxTrees(ctx, config, skills, home, locate);
  if (findings.length > 0) throw linkRefusal(findings);
  return trees;
}

/** The trees, and each granted path through a link planted in one, unrefused (status shows them). */
export function boxTrees(
  ctx: ProjectContext,
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  home: string,
  locate: ValueLocation,
  /** Trees already gathered for this very config and skills (the status scan's). */
  known?: BoxTree[],
): { trees: BoxTree[]; findings: LinkFinding[] } {
  const trees = known ?? boxWritableTrees(ctx, grantsOf(config, skills), home);
  const granted = grantedHostPaths(config, skills, home, locate);
  return { trees, findings: plantedLinkFindings(granted, walkHostPath, trees) };
}

/** checkedTrees's findings as located issues, for the config editor (it shows them, it does not throw). */
export function plantedLinkIssues(
  ctx: ProjectContext,
  home: string,
): (
  config: EffectiveConfig,
  skills: readonly ResolvedSkill[],
  locate: ValueLocation,
) => ConfigIssue[] {
  return (config, skills, locate) =>
    boxTrees(ctx, config, skills, home, locate).findings.map((f) => ({
      rule: LINK_RULE,
      message: linkFindingMessage(f),
      location: f.granted.location,
      fix: linkFindingRemedy(f),
    }));
}

export async function loadBox(io: Io): Promise<LoadedBox> {
  const ctx = await resolveProjectContext(io.cwd, io.env);
  await checkProjectPath(ctx);
  return { ctx, ...(await loadBoxConfig(ctx, userHome(io))) };
}

/** The user's home directory, for `~` in host paths. */
export function userHome(io: Io): string {
  return io.env['HOME'] ?? homedir();
}

/** env_from_host for this box, read through a pinned host git (a declined git reads nothing). */
export function boxHostEnv(
  io: Io,
  trees: readonly BoxTree[],
  config: EffectiveConfig,
): HostEnvEntry[] {
  return resolveHostEnv(
    config.envFromHost,
    new Set(Object.keys(config.env)),
    hostEnvReaders(io, treeRoots(trees)),
  );
}

/** Host env readers whose git is not one the box could have planted (under `declinedRoots`). */
export function hostEnvReaders(io: Io, declinedRoots: readonly string[]): HostReaders {
  const git = createHostTools({ declinedRoots, env: io.env }).resolve('git');
  return hostReaders(io.env, git.kind === 'found' ? git.path : null);
}

/**
 * The trees for a command that does not otherwise read the config (shell,
 * reset, the status scan …): the config is read for its grants only, without
 * the checks a launch needs; skills that do not resolve grant nothing. A
 * config that does not read at all leaves only the trees that need no config
 * (adr/0046 says why that is the bound).
 */
export function projectTrees(io: Io, ctx: ProjectContext): TreesRead {
  const home = userHome(io);
  let read: BoxConfig | null = null;
  let grants: TreeGrants | null = null;
  try {
    let box: BoxConfig;
    try {
      box = read = readBoxConfig(ctx, home);
    } catch (error) {
      // The full read's own refusal is the caller's to meet (status reads again).
      if (!(error instanceof ByreError)) throw error;
      box = readCascade(ctx, undefined);
    }
    let skills: ResolvedSkill[] = [];
    try {
      skills = resolveEnabledSkills(box.config, box.catalog, box.locate);
    } catch (error) {
      if (!(error instanceof ByreError)) throw error;
    }
    grants = grantsOf(box.config, skills);
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
  }
  return { trees: boxWritableTrees(ctx, grants, home), read };
}

interface TreesRead {
  trees: BoxTree[];
  /** readBoxConfig's answer when it read cleanly, so a caller need not read again. */
  read: BoxConfig | null;
}

/** projectTrees as plain paths, for host tool pinning. */
export function projectDeclinedRoots(io: Io, ctx: ProjectContext): string[] {
  return treeRoots(projectTrees(io, ctx).trees);
}

/**
 * The build plan for this box, with everything it copies from the host read
 * and checked (`[[context]]` files, Claude Skills, `files` sources): develop, rebuild and
 * `byre dockerfile` refuse the same declarations, named, before any build.
 */
export async function planBox(io: Io, loaded: LoadedBox, edgeCa?: string): Promise<BuildPlan> {
  const { ctx, config, skills } = loaded;
  const home = userHome(io);
  const contextFiles = await readContextFiles(config, home, treeRoots(loaded.trees));
  const claudeSkillFiles = readConfigClaudeSkills(config.claudeSkills, home);
  // `files` come from the main worktree: the image is the project's, shared by
  // every worktree, and a linked one is empty until its box checks it out.
  const plan = planBuild(config, skills, ctx.projectRoot, {
    contextFiles,
    claudeSkillFiles,
    ...(edgeCa === undefined ? {} : { edgeCa }),
  });
  await checkProjectFiles(plan, ctx.projectRoot);
  return plan;
}

/**
 * The role the current config gives each of this project's volumes, by
 * engine name (what reset and forget warn by); null when the config or its
 * skills do not load, so a broken config never blocks a teardown.
 */
export async function declaredVolumeRoles(
  io: Io,
  ctx: ProjectContext,
): Promise<Map<string, 'state' | 'cache'> | null> {
  try {
    const { config, skills } = await loadBoxConfig(ctx, userHome(io));
    const roles = new Map<string, 'state' | 'cache'>();
    for (const v of [...config.volumes.map((s) => s.value), ...skills.flatMap((s) => s.volumes)]) {
      if (v.scope === 'project') roles.set(volumeEngineName(ctx.projectId, io.uid, v), v.role);
    }
    return roles;
  } catch (error) {
    if (error instanceof ByreError) return null;
    throw error;
  }
}
