// First-run onboarding: the project's byre.config (in the store, never the
// project tree) is written on its first develop, through the config writer
// like every config write. On a terminal the first-run picker asks what the
// flags did not answer (template, agent, the shared-auth offer, and the offer
// to inject the agent's API key at the edge when this host holds it; taken,
// first-run.ts seals it after the config is written), pre-selected
// from what the project's config already says (verbs may write it before
// the first develop, adr/0055), then default.config's favourites;
// `defaults.skip_questions` takes the stored answers unasked; off a terminal
// nothing is asked. The onboarded marker, not the config, says it is done.

import { readLayerFile } from '../config/read.js';
import {
  favouriteEdits,
  offeredCompanion,
  onboardingText,
  projectEdits,
  readFavourites,
  storedSharedAuth,
  type Favourites,
  type OnboardAnswers,
} from '../config/onboarding.js';
import { defaultConfigFile, projectConfigFile, writeConfig } from '../config/write.js';
import { ByreError, ConfigError, UsageError } from '../errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../host/atomic-write.js';
import { pathExists } from '../host/path-view.js';
import type { TomlEdit } from '../tomldoc/index.js';
import type { ProjectContext } from '../project/context.js';
import { defaultConfigPath, templateConfigPath } from '../project/store-layout.js';
import type { SkillCatalog } from '../skills/resolve.js';
import type { FirstRunSetup } from '../tui/model/first-run.js';
import type { CatalogChoice } from '../tui/model/config-editor/types.js';
import { anyEngineRecord } from '../session/engine-record.js';
import { injectRecipeFor, recipeText, type InjectRecipe } from '../credentials/recipes.js';

export interface OnboardFlags {
  template?: string;
  agent?: string;
  /** `--shared-auth[=false]`: the answer to the shared-auth offer, up front. */
  sharedAuth?: boolean;
}

/** What the first-run picker needs from the catalogs. */
export interface OnboardCatalog {
  bundledTemplate: (name: string) => unknown;
  catalog: SkillCatalog;
  templates: readonly CatalogChoice[];
  agents: readonly CatalogChoice[];
  /** agent id -> the companion that declares shared_auth_for it (catalog ids). */
  companions: Readonly<Record<string, string>>;
  /** A reference as the catalog knows it (`claude` -> `byre/claude`). */
  canon: (reference: string) => string;
}

/** Asks on the terminal: the answers and save-as-default, or null when cancelled. */
export type AskFirstRun = (
  setup: FirstRunSetup,
) => Promise<{ answers: OnboardAnswers; saveDefaults: boolean; inject?: boolean | null } | null>;

type OnboardResult =
  | { wrote: false; inject?: InjectRecipe | null }
  | {
      wrote: true;
      /** The agent's recipe when the injection offer was taken (first-run.ts seals it). */
      inject: InjectRecipe | null;
      /** `asked` on the picker, `stored` by defaults.skip_questions, `flags` otherwise. */
      how: 'asked' | 'stored' | 'flags';
      answers: OnboardAnswers;
      companion: string | null;
      savedDefaults: boolean;
    };

/** What develop says after onboarding wrote the project's config. */
export function onboardedLine(configPath: string): string {
  return [
    `byre: wrote this project's config: ${configPath}`,
    '      `byre config` edits it (on screen, every grant with the layer it comes from);',
    '      `byre status` names every file of the cascade, and docs/CONFIG.md lists every key',
  ].join('\n');
}

async function checkTemplate(
  ctx: ProjectContext,
  name: string,
  bundled: (n: string) => unknown,
): Promise<void> {
  if (name === 'none' || bundled(name) !== null) return;
  if (!name.startsWith('byre/') && pathExists(templateConfigPath(ctx.store.home, name))) return;
  throw new ByreError(`template "${name}" not found`, {
    rule: 'onboard.template-missing',
    remedy: 'choose one of the bundled templates (go, node, python), a local one, or "none"',
  });
}

function checkAgent(name: string, catalog: SkillCatalog): void {
  if (name === 'none') return;
  const skill = catalog.lookup(name);
  if (skill?.agent) return;
  const agents = catalog.ids().filter((id) => catalog.lookup(id)?.agent);
  throw new ByreError(`agent "${name}" is not an available agent skill`, {
    rule: 'onboard.agent-missing',
    remedy:
      agents.length > 0 ? `choose one of: ${agents.join(', ')}, or "none"` : 'use --agent none',
  });
}

function readDefaults(home: string): Favourites {
  const file = readLayerFile(defaultConfigPath(home), 'default', 'default');
  if (file !== null && file.issues.length > 0) throw new ConfigError(file.issues);
  return readFavourites(file?.value ?? null);
}

/** What a config written before the first develop (by a verb) already answers. */
interface Existing {
  template: string | null;
  agent: string | null;
  skills: readonly string[];
}

function readExisting(ctx: ProjectContext): Existing | null {
  const file = readLayerFile(ctx.project.config, 'project', 'project');
  if (file === null) return null;
  if (file.issues.length > 0) throw new ConfigError(file.issues);
  return {
    template: file.value?.template ?? null,
    agent: file.value?.agent ?? null,
    skills: file.value?.skills ?? [],
  };
}

const ONBOARDED_TEXT = 'byre develop onboarded this project\n';

/**
 * Whether this project's first develop has run (adr/0055): the marker it
 * writes, or, from a byre before the marker, a launch's engine record.
 */
function onboardedAlready(ctx: ProjectContext): boolean {
  return pathExists(ctx.project.onboarded) || anyEngineRecord(ctx.project.dir);
}

async function markOnboarded(ctx: ProjectContext): Promise<void> {
  await ensurePrivateDir(ctx.project.dir);
  await writeFileAtomic(ctx.project.onboarded, ONBOARDED_TEXT);
}

function firstRunFlagsUsed(flags: OnboardFlags): boolean {
  return (
    flags.template !== undefined || flags.agent !== undefined || flags.sharedAuth !== undefined
  );
}

interface Decided {
  how: 'asked' | 'stored' | 'flags';
  answers: OnboardAnswers;
  saveDefaults: boolean;
  /** The picker's injection offer taken; never without the picker. */
  inject?: boolean | null;
}

async function decide(
  setup: FirstRunSetup,
  flags: OnboardFlags,
  favourites: Favourites,
  ask: AskFirstRun | null,
  companionFor: (agent: string | null) => string | null,
): Promise<Decided> {
  if (favourites.skipQuestions) {
    const agent = flags.agent ?? favourites.agent;
    const offered = companionFor(agent) !== null;
    return {
      how: 'stored',
      saveDefaults: false,
      answers: {
        template: flags.template ?? favourites.template,
        agent,
        sharedAuth: offered
          ? (flags.sharedAuth ?? storedSharedAuth(agent, favourites) ?? false)
          : null,
      },
    };
  }
  const { needsPicker } = await import('../tui/model/first-run.js');
  if (ask !== null && needsPicker(setup)) {
    const asked = await ask(setup);
    if (asked === null) {
      throw new ByreError('the first-run questions were cancelled; nothing was written', {
        rule: 'onboard.cancelled',
        remedy: 'run byre develop again, or answer up front: --template, --agent, --shared-auth',
      });
    }
    return { how: 'asked', ...asked };
  }
  return {
    how: 'flags',
    saveDefaults: false,
    answers: {
      template: flags.template ?? null,
      agent: flags.agent ?? null,
      sharedAuth: companionFor(flags.agent ?? null) === null ? null : (flags.sharedAuth ?? null),
    },
  };
}

/**
 * An onboarded project: first-run flags are a usage error (the store config
 * is the user's), and the marker a crash left out is made.
 */
async function alreadyOnboarded(ctx: ProjectContext, flags: OnboardFlags): Promise<OnboardResult> {
  if (firstRunFlagsUsed(flags)) {
    throw new UsageError(
      '--template, --agent and --shared-auth apply only to a project’s first develop',
      {
        remedy: `this project is configured already; edit it with byre config (${ctx.project.config})`,
      },
    );
  }
  if (!pathExists(ctx.project.onboarded)) await markOnboarded(ctx);
  return { wrote: false };
}

/**
 * The answers' edits into the project's config: a new file when it had
 * none, else the edits (none: nothing written). False when another byre
 * created the file meanwhile: its config stands.
 */
async function writeAnswers(
  ctx: ProjectContext,
  existing: Existing | null,
  edits: readonly TomlEdit[],
): Promise<boolean> {
  if (existing !== null) {
    if (edits.length > 0) {
      await writeConfig(projectConfigFile(ctx.project), edits, { lock: ctx.project });
    }
    return true;
  }
  try {
    await writeConfig(
      projectConfigFile(ctx.project),
      () => onboardingText(ctx.projectRoot, edits),
      { createOnly: true, lock: ctx.project },
    );
    return true;
  } catch (error) {
    if (error instanceof ByreError && error.rule === 'config.write-exists') return false;
    throw error;
  }
}

/**
 * Writes the project's first-run answers into its byre.config on its first
 * develop, asking on the terminal (`ask`, null off a terminal) what the
 * flags did not answer, then marks the project onboarded. A config a verb
 * wrote before (mcp add, credential add, byre config …) is kept and
 * pre-fills the questions. `catalogs` is read only on a first develop.
 * First-run flags on an onboarded project are a usage error: the store
 * config is the user's, and develop never edits it after its first run.
 */
export async function onboard(
  ctx: ProjectContext,
  flags: OnboardFlags,
  catalogs: () => OnboardCatalog,
  ask: AskFirstRun | null = null,
  hostEnv: Readonly<Record<string, string | undefined>> = {},
): Promise<OnboardResult> {
  if (onboardedAlready(ctx)) return alreadyOnboarded(ctx, flags);
  const existing = readExisting(ctx);
  const lookups = catalogs();
  if (flags.template !== undefined)
    await checkTemplate(ctx, flags.template, lookups.bundledTemplate);
  if (flags.agent !== undefined) checkAgent(flags.agent, lookups.catalog);
  const known = readDefaults(ctx.store.home);
  // What the project's config already says comes first: the picker shows it, skip_questions keeps it.
  const favourites: Favourites = {
    ...known,
    template: existing?.template ?? known.template,
    agent: existing?.agent ?? known.agent,
  };
  const companionFor = (agent: string | null): string | null =>
    offeredCompanion(agent, lookups.companions, favourites, lookups.canon);
  const hasCompanion = (agent: string | null): boolean => {
    const companion = companionFor(agent);
    return (
      companion !== null && (existing?.skills ?? []).some((s) => lookups.canon(s) === companion)
    );
  };
  const setup: FirstRunSetup = {
    projectRoot: ctx.projectRoot,
    configPath: ctx.project.config,
    templates: lookups.templates,
    agents: lookups.agents,
    fixed: {
      ...(flags.template === undefined ? {} : { template: flags.template }),
      ...(flags.agent === undefined ? {} : { agent: flags.agent }),
      ...(flags.sharedAuth === undefined ? {} : { sharedAuth: flags.sharedAuth }),
    },
    preselect: { template: favourites.template, agent: favourites.agent },
    companionFor,
    storedSharedAuth: (agent) => (hasCompanion(agent) ? true : storedSharedAuth(agent, favourites)),
    injectOffer: (agent) => {
      const recipe = injectRecipeFor(agent === null ? null : lookups.canon(agent));
      if (recipe === null || (hostEnv[recipe.key] ?? '') === '') return null;
      return { key: recipe.key, text: recipeText(recipe) };
    },
  };
  const decided = await decide(setup, flags, favourites, ask, companionFor);
  const companion = companionFor(decided.answers.agent);
  const inject =
    decided.inject === true
      ? injectRecipeFor(
          decided.answers.agent === null ? null : lookups.canon(decided.answers.agent),
        )
      : null;
  if (flags.sharedAuth === true && companion === null) {
    throw new UsageError(
      `--shared-auth: agent ${decided.answers.agent ?? '(none)'} has no shared-auth offer here`,
      {
        remedy:
          'drop --shared-auth; only an agent with a shared-auth companion (claude, codex, opencode) has one, and none is offered when default.config already enables the companion',
      },
    );
  }
  await ensurePrivateDir(ctx.project.dir);
  const edits = projectEdits(decided.answers, companion);
  // A shared-auth no takes back a companion a verb put there before.
  if (
    decided.answers.sharedAuth === false &&
    companion !== null &&
    hasCompanion(decided.answers.agent)
  ) {
    for (const s of existing?.skills ?? []) {
      if (lookups.canon(s) === companion)
        edits.push({ op: 'array-remove', path: ['skills'], value: s });
    }
  }
  if (!(await writeAnswers(ctx, existing, edits))) {
    return { wrote: false, ...(inject === null ? {} : { inject }) };
  }
  await markOnboarded(ctx);
  if (existing !== null && edits.length === 0)
    return { wrote: false, ...(inject === null ? {} : { inject }) };
  if (decided.saveDefaults) {
    await ensurePrivateDir(ctx.store.home);
    await writeConfig(
      defaultConfigFile(ctx.store.home),
      favouriteEdits(decided.answers, companion, favourites),
      { lock: ctx.project },
    );
  }
  return {
    wrote: true,
    how: decided.how,
    answers: decided.answers,
    companion,
    savedDefaults: decided.saveDefaults,
    inject,
  };
}
