// showScreen: one ink screen on a terminal, from first frame to its exit.
// The screen is cleared and unmounted whatever ends it; the caller owns the
// streams (raw mode, pausing stdin) and reads the outcome its component
// reported through its own callback.

import { render } from 'ink';
import type { ReactElement } from 'react';

export async function showScreen(
  screen: ReactElement,
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
): Promise<void> {
  const app = render(screen, {
    stdin: input,
    stdout: output,
    stderr: output,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  try {
    await app.waitUntilExit();
  } finally {
    app.clear();
    app.unmount();
  }
}
