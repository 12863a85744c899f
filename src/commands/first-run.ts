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
  const result = await onboard(ctx, flags, catalogs, ask);
  if (!result.wrote) return;
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
