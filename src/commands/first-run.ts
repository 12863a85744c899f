// develop's first-run step: onboarding on a project's first develop, before
// anything is recorded (a cancel or a refusal leaves the store as it found
// it), and the lines that say where the config lives and what edits it.

import type { Io } from '../io.js';
import {
  onboard,
  onboardedLine,
  type AskFirstRun,
  type OnboardCatalog,
  type OnboardFlags,
} from './onboard.js';
import { answersText } from '../config/onboarding.js';
import { escapeTerminal } from '../output/escape.js';
import type { ProjectContext } from '../project/context.js';
import { bundledTemplate, packageChoices } from './load.js';
import { credentialInjectAddCommand } from './credential-inject.js';
import { recipeCommand, recipeText, type InjectRecipe } from '../credentials/recipes.js';
import { say } from '../output/notes.js';

/**
 * Onboarding on a project's first develop: the first-run picker on a
 * terminal (stdin and stderr), stored answers under defaults.skip_questions,
 * flags alone otherwise; then where the config lives and what edits it.
 */
export async function firstRun(io: Io, ctx: ProjectContext, flags: OnboardFlags): Promise<void> {
  const catalogs = (): OnboardCatalog => {
    const choices = packageChoices(ctx.store.home);
    return { ...choices, bundledTemplate, catalog: choices.skills, canon: choices.canon.skill };
  };
  const ask: AskFirstRun | null =
    io.stdinIsTty && io.stderrIsTty === true
      ? async (setup) => (await import('../tui/first-run.js')).askFirstRun(setup)
      : null;
  const result = await onboard(ctx, flags, catalogs, ask, io.env);
  if (result.wrote) sayOnboarded(io, ctx, result);
  if (result.inject !== undefined && result.inject !== null) await sealOffered(io, result.inject);
}

/**
 * The injection offer taken on the picker: this host's value of the agent's
 * key sealed into the project's config for injection at the edge, as
 * `byre credential add KEY --inject HOST …` does (the passphrase asked on
 * the terminal the picker ran on).
 */
async function sealOffered(io: Io, recipe: InjectRecipe): Promise<void> {
  say(
    io.stderr,
    `sealing this host's ${recipe.key} for injection at the edge (${recipeText(recipe)}), as \`${recipeCommand(recipe)}\` does`,
  );
  await credentialInjectAddCommand(io, recipe.key, {
    inject: recipe.host,
    ...(recipe.header === undefined ? { bearer: true } : { header: recipe.header }),
    value: new TextEncoder().encode(io.env[recipe.key] ?? ''),
  });
}

/** Where the config lives and what edits it, after onboarding wrote it. */
function sayOnboarded(
  io: Io,
  ctx: ProjectContext,
  result: Extract<Awaited<ReturnType<typeof onboard>>, { wrote: true }>,
): void {
  const lines: string[] = [];
  if (result.how === 'stored') {
    lines.push(
      `byre: configured from your stored answers (defaults.skip_questions in default.config): ${answersText(result.answers, result.companion)}; byre config --global changes them`,
    );
  }
  if (result.savedDefaults) {
    lines.push(
      'byre: saved these answers as your defaults in default.config; they pre-select the next new project’s answers',
    );
  }
  lines.push(onboardedLine(ctx.project.config));
  for (const line of lines.flatMap((l) => l.split('\n'))) {
    io.stderr.write(`${escapeTerminal(line)}\n`);
  }
}
