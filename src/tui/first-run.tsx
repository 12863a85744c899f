// askFirstRun: the first-run picker on the terminal develop runs in (keys on
// stdin, the screen on stderr; stdout stays the box's). Resolves to the
// answers, or null when the user cancels. Imported dynamically by develop so
// ink loads only for a project's first run.

import type { OnboardAnswers } from '../config/onboarding.js';
import { FirstRunPicker } from './FirstRunPicker.js';
import { colorWanted } from './model/terminal.js';
import { showScreen } from './screen.js';
import type { FirstRunSetup, FirstRunState } from './model/first-run.js';

export async function askFirstRun(
  setup: FirstRunSetup,
): Promise<{ answers: OnboardAnswers; saveDefaults: boolean; inject: boolean | null } | null> {
  let settled: FirstRunState | null = null;
  try {
    await showScreen(
      <FirstRunPicker
        setup={setup}
        color={colorWanted(process.env)}
        onSettled={(s) => {
          settled = s;
        }}
      />,
      process.stdin,
      process.stderr,
    );
  } finally {
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
  }
  const final = settled as FirstRunState | null;
  if (final === null || final.outcome !== 'done') return null;
  return { answers: final.answers, saveDefaults: final.saveDefaults, inject: final.inject };
}
