import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { buildProgram } from './program.js';
import { COMMANDS_DOC_PATH, exitDocDrift, renderCommandsDoc } from './commands-doc.js';
import { silentIo } from '../io.js';

/** Every command below the root with its path (`skill list`), walked here, not by the renderer. */
function everyCommand(c: Command, prefix = ''): { path: string; command: Command }[] {
  return c.commands.flatMap((sub) => {
    const p = prefix === '' ? sub.name() : `${prefix} ${sub.name()}`;
    return [{ path: p, command: sub }, ...everyCommand(sub, p)];
  });
}

describe(COMMANDS_DOC_PATH, () => {
  const program = buildProgram(silentIo());
  /** The command the page itself says regenerates it. */
  const REGENERATE = /by `([^`]+)`/.exec(renderCommandsDoc(program))?.[1];

  it('says how every verb exits', () => {
    const drift = exitDocDrift(program);
    expect(
      drift.missing,
      `these commands have no entry in COMMAND_EXITS (src/cli/exit-codes.ts): add one (an empty list when only the shared statuses apply), then run \`${REGENERATE}\``,
    ).toEqual([]);
    expect(drift.stale, 'COMMAND_EXITS names commands that no longer exist: remove them').toEqual(
      [],
    );
  });

  it('is the page the command tree renders', () => {
    const page = renderCommandsDoc(program);
    expect(
      readFileSync(COMMANDS_DOC_PATH, 'utf8') === page,
      `${COMMANDS_DOC_PATH} is out of date with the command tree: run \`${REGENERATE}\` and commit the result`,
    ).toBe(true);
  });

  it('names every verb, argument and flag', () => {
    const page = renderCommandsDoc(program);
    for (const { path, command } of everyCommand(program)) {
      expect(page).toContain(`## byre ${path}\n`);
      for (const o of command.options) expect(page).toContain(`\`${o.flags}\``);
      for (const a of command.registeredArguments) expect(page).toContain(`\`${a.name()}\``);
    }
    expect(page).toContain('| 0–127 | the agent’s own exit status');
  });
});
