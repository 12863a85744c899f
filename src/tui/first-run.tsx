// askFirstRun: the first-run picker on the terminal develop runs in (keys on
// stdin, the screen on stderr; stdout stays the box's). Resolves to the
// answers, or null when the user cancels. Imported dynamically by develop so
// ink loads only for a project's first run.

import { render } from 'ink';

import type { OnboardAnswers } from '../config/onboarding.js';
import { FirstRunPicker } from './FirstRunPicker.js';
import type { FirstRunSetup, FirstRunState } from './model/first-run.js';

export async function askFirstRun(
  setup: FirstRunSetup,
): Promise<{ answers: OnboardAnswers; saveDefaults: boolean } | null> {
  let settled: FirstRunState | null = null;
  const env = process.env;
  const color = env['TERM'] !== 'dumb' && (env['NO_COLOR'] ?? '') === '';
  const app = render(
    <FirstRunPicker
      setup={setup}
      color={color}
      onSettled={(s) => {
        settled = s;
      }}
    />,
    {
      stdin: process.stdin,
      stdout: process.stderr,
      stderr: process.stderr,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  try {
    await app.waitUntilExit();
  } finally {
    app.clear();
    app.unmount();
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
  }
  const final = settled as FirstRunState | null;
  if (final === null || final.outcome !== 'done') return null;
  return { answers: final.answers, saveDefaults: final.saveDefaults };
}
