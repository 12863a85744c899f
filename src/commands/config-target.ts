// Which config file a write verb edits (the project's byre.config, or
// default.config with --global, or a named layer with --layer), the lock the
// write takes, and the cascade as this directory sees it, split at that file:
// what the layers below it still declare decides a closure-smart remove.

import { pathExists } from '../host/path-view.js';

import { mergeLayers } from '../config/merge.js';
import { loadCascade } from '../config/read.js';
import type { CheckedLayer } from '../config/check-effective.js';
import type { EffectiveConfig, LayerKind } from '../config/types.js';
import {
  defaultConfigFile,
  layerConfigFile,
  projectConfigFile,
  type ConfigFile,
} from '../config/write.js';
import { ByreError, ConfigError, UsageError } from '../errors.js';
import { terminalQuestion, type Io } from '../io.js';
import { printNotes } from '../output/notes.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';
import { recordProjectPath } from '../project/store.js';
import type { ProjectStorePaths } from '../project/store-layout.js';
import { loadCatalog } from '../skills/catalog.js';
import { resolveEnabledSkills } from '../skills/resolve.js';
import type { ResolvedSkill } from '../skills/types.js';
import { onboardingText } from '../config/onboarding.js';
import { guardFreshConfig } from './fresh-config.js';
import { packageCanon, templateLookup, userHome } from './load.js';

export interface TargetFlags {
  global?: boolean;
  layer?: string;
}

export interface ConfigTarget {
  file: ConfigFile;
  /** The project lock the write holds; for --global/--layer, this directory's (when it has a store). */
  lock: ProjectStorePaths | undefined;
  ctx: ProjectContext;
  /** How the file is named in messages: `this project's config`, `default.config`, `layer work`. */
  label: string;
  /** What a file that does not exist yet starts as: a comment saying what it is. */
  seed: string;
  /**
   * Makes what the first write needs (the store, the project's directory and
   * its path record), called just before it: a verb that refuses or is
   * cancelled earlier leaves the store as it found it.
   */
  prepare: () => Promise<void>;
}

const DEFAULT_SEED = [
  '# byre default.config: your baseline for every box on this machine. Every',
  '# project builds on it; docs/CONFIG.md lists the keys.',
  '',
].join('\n');

/** Where a write verb writes. A --layer must exist (`byre layer new` makes one). */
export async function resolveTarget(io: Io, flags: TargetFlags): Promise<ConfigTarget> {
  if (flags.global === true && flags.layer !== undefined) {
    throw new UsageError('--global and --layer name two different files', {
      rule: 'config.target-ambiguous',
      remedy: 'pick one: --global (default.config) or --layer <name>',
    });
  }
  const ctx = await resolveProjectContext(io.cwd, io.env);
  const home = ctx.store.home;
  const storeLock = pathExists(ctx.project.dir) ? ctx.project : undefined;
  if (flags.global === true) {
    return {
      file: defaultConfigFile(home),
      lock: storeLock,
      ctx,
      label: 'default.config',
      seed: DEFAULT_SEED,
      prepare: () => ensurePrivateDir(home),
    };
  }
  if (flags.layer !== undefined) {
    const file = layerConfigFile(home, flags.layer);
    if (!pathExists(file.path)) {
      throw new ByreError(`layer ${flags.layer} does not exist (${file.path})`, {
        rule: 'layer.missing',
        remedy: `create it with byre layer new ${flags.layer}`,
      });
    }
    return {
      file,
      lock: storeLock,
      ctx,
      label: `layer ${flags.layer}`,
      seed: '',
      prepare: async () => undefined,
    };
  }
  await checkProjectPath(ctx);
  await guardFreshConfig(ctx, userHome(io), terminalQuestion(io));
  return {
    file: projectConfigFile(ctx.project),
    lock: ctx.project,
    ctx,
    label: "this project's config",
    seed: onboardingText(ctx.projectRoot, []),
    prepare: async () => {
      await recordProjectPath(home, ctx.projectId, ctx.projectRoot);
      await ensurePrivateDir(ctx.project.dir);
    },
  };
}

interface SplitCascade {
  /** The whole cascade of this directory. */
  config: EffectiveConfig;
  /** The merge of the layers below the target file only. */
  below: EffectiveConfig;
  /** The layers above the target that still name a thing, for notes. */
  above: CheckedLayer[];
  skills: ResolvedSkill[];
}

const RANK: Readonly<Record<LayerKind, number>> = {
  core: 0,
  default: 1,
  template: 2,
  layer: 3,
  project: 4,
};

/**
 * This directory's cascade, split at `file`. A cascade that does not load
 * (or skills that do not resolve) is noted and read as empty: the verb then
 * decides from the target file alone.
 */
export function splitCascade(io: Io, ctx: ProjectContext, file: ConfigFile): SplitCascade {
  const home = ctx.store.home;
  const catalog = loadCatalog({ home, kind: 'skill' });
  let layers: CheckedLayer[] = [];
  let config: EffectiveConfig = mergeLayers([]);
  try {
    const loaded = loadCascade({
      home,
      projectId: ctx.projectId,
      bundledTemplate: templateLookup(home),
      canon: packageCanon(home, catalog),
    });
    layers = loaded.layers;
    config = loaded.config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printNotes(io.stderr, [
      {
        rule: error.rule,
        message: `this directory's config does not load (${error.message}); deciding from ${file.path} alone`,
      },
    ]);
  }
  let skills: ResolvedSkill[] = [];
  try {
    skills = resolveEnabledSkills(config, catalog.asSkillCatalog());
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    printNotes(io.stderr, [
      { rule: error.rule, message: `skills do not resolve (${error.message}); ignoring them` },
    ]);
  }
  const at = layers.findIndex((l) => l.ref.path === file.path);
  const cut = at >= 0 ? at : layers.filter((l) => RANK[l.ref.kind] < RANK[file.kind]).length;
  return {
    config,
    below: mergeLayers(layers.slice(0, cut)),
    above: at >= 0 ? layers.slice(at + 1) : [],
    skills,
  };
}
