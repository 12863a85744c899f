// TUI tier: the first-run picker of `byre develop` (the built binary) in a
// private tmux server. PATH holds no engine (or a stub that only answers
// detection), so develop stops right after onboarding: these tests prove what
// the picker writes, not a box.

import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { projectIdFor } from '../../src/project/identity.js';
import {
  byreBin,
  hasTmux,
  pressSeen,
  q,
  selectedLine,
  startPane,
  tmuxGate,
  tuiTempDir,
  waitFor,
  waitForScreen,
  type Pane,
} from './tmux.js';

tmuxGate();

function develop(
  extra = '',
  size = { width: 100, height: 30 },
  before: (string[] | { args: string[]; input: string; fd3: string })[] = [],
  tools: Record<string, string> = {},
): { pane: Pane; config: string; home: string } {
  const base = tuiTempDir();
  const dir = path.join(base, 'app');
  const home = path.join(base, 'store');
  const bin = path.join(base, 'tools');
  for (const d of [dir, home, bin]) mkdirSync(d, { recursive: true });
  for (const [name, script] of Object.entries(tools)) {
    writeFileSync(path.join(bin, name), script, { mode: 0o755 });
  }
  // Verbs run first, as a user would before the first develop (adr/0055).
  for (const step of before) {
    const { args, input, fd3 } = Array.isArray(step) ? { args: step, input: '', fd3: '' } : step;
    const file = path.join(base, 'fd3');
    writeFileSync(file, fd3);
    const fd = openSync(file, 'r');
    try {
      execFileSync(byreBin, args, {
        cwd: dir,
        env: { ...process.env, BYRE_HOME: home, BYRE_ALLOW_ROOT: '1' },
        input,
        stdio: ['pipe', 'pipe', 'pipe', fd],
      });
    } finally {
      closeSync(fd);
    }
  }
  const env = `env -u CI -u NO_COLOR BYRE_HOME=${q(home)} BYRE_ALLOW_ROOT=1 TERM=xterm-256color PATH=${q(bin)} ${extra}`;
  const pane = startPane(`${env} ${q(byreBin)} develop`, { ...size, cwd: dir });
  return { pane, home, config: path.join(home, 'projects', projectIdFor(dir), 'byre.config') };
}

/** Moves the `›` to the option starting with `label` (down, then up), one seen step at a time, and picks it. */
async function choose(pane: Pane, label: string): Promise<void> {
  for (const key of ['Down', 'Up']) {
    for (let i = 0; i < 12; i++) {
      if (selectedLine(pane).startsWith(`› ${label}`)) {
        pane.keys('Enter');
        return;
      }
      if (!(await pressSeen(pane, key))) break;
    }
  }
  throw new Error(`no option ${label}\n${pane.screen()}`);
}

/** Picks the template and the agent, then writes the config. */
async function answerAndWrite(pane: Pane, template: string, agent: string): Promise<void> {
  await waitForScreen(pane, 'Which template');
  await choose(pane, template);
  await waitForScreen(pane, 'Which agent');
  await choose(pane, agent);
  await waitForScreen(pane, 'This writes');
  pane.keys('Enter');
}

describe.runIf(hasTmux)('the first-run picker in tmux', { timeout: 60_000 }, () => {
  it('writes the chosen template and agent, then says where the config lives', async () => {
    const { pane, config } = develop();
    await answerAndWrite(pane, 'byre/python', 'byre/gemini');
    await waitForScreen(pane, '`byre config` edits it');
    expect(await pane.exit()).toBe('1'); // no engine on this PATH: develop stops after onboarding
    expect(readFileSync(config, 'utf8')).toMatch(
      /\ntemplate = "byre\/python"\nagent = "byre\/gemini"\n$/,
    );
  });

  it('a shared-auth yes adds the companion to this project’s skills only', async () => {
    const { pane, config, home } = develop();
    await waitForScreen(pane, 'Which template');
    await choose(pane, 'none');
    await waitForScreen(pane, 'Which agent');
    await choose(pane, 'byre/claude');
    await waitForScreen(pane, 'Share one claude login');
    expect(pane.screen()).toContain('yes: adds byre/claude-shared-auth to this project’s skills');
    await choose(pane, 'yes');
    await waitForScreen(pane, 'skills += byre/claude-shared-auth');
    pane.keys('Enter');
    expect(await pane.exit()).toBe('1');
    expect(readFileSync(config, 'utf8')).toMatch(
      /\ntemplate = "none"\nagent = "byre\/claude"\nskills = \["byre\/claude-shared-auth"\]\n$/,
    );
    expect(existsSync(path.join(home, 'default.config'))).toBe(false);
  });

  it('still asks after a verb wrote the config first, and keeps what the verb wrote', async () => {
    const { pane, config } = develop('', undefined, [
      ['mcp', 'add', 'docs', 'https://docs.example.com/mcp'],
    ]);
    await answerAndWrite(pane, 'none', 'none');
    await waitForScreen(pane, '`byre config` edits it');
    expect(await pane.exit()).toBe('1');
    const text = readFileSync(config, 'utf8');
    expect(text).toContain('template = "none"\nagent = "none"\n');
    expect(text).toContain('name = "docs"');
  });

  it('a credential added before the first develop: its passphrase prompt, after the picker, waits for the answer', async () => {
    // A docker that answers detection and nothing else: develop gets past it to the prompt.
    const docker = '#!/bin/sh\nexit 0\n';
    const { pane } = develop(
      '',
      undefined,
      [
        {
          args: ['credential', 'add', 'DEMO_TOKEN', '--passphrase-fd', '3'],
          input: 'tok',
          fd3: 'right words\n',
        },
      ],
      { docker },
    );
    await answerAndWrite(pane, 'none', 'none');
    await waitForScreen(pane, 'byre: passphrase for the credentials in');
    // Before the fix the prompt was all that kept the process, and ink had
    // let go of stdin: develop exited 0 here without reading a key.
    pane.type('wrong words');
    pane.keys('Enter');
    await waitForScreen(pane, 'type the passphrase again');
    expect(await pane.exit()).toBe('1');
  });

  it('at 48 columns every line fits, and NO_COLOR drops the colour, not the words', async () => {
    const screens: string[] = [];
    for (const extra of ['', 'NO_COLOR=1']) {
      const { pane } = develop(extra, { width: 48, height: 16 });
      const screen = await waitForScreen(pane, 'Which template');
      screens.push(screen.replace(/byre-tui-\w+/g, 'byre-tui-X'));
      expect(
        pane
          .screen()
          .split('\n')
          .every((l) => [...l].length <= 48),
      ).toBe(true);
      expect(/\u001b\[(?!0?m)[0-9;]*m/.test(pane.styled()), extra).toBe(extra === '');
      pane.keys('C-c');
      expect(await pane.exit()).not.toBe('0');
    }
    expect(screens[1]).toBe(screens[0]);
  });

  it('takes Home and End', async () => {
    const { pane } = develop();
    await waitForScreen(pane, 'Which template');
    pane.keys('End');
    await waitFor('the last option', () =>
      selectedLine(pane).startsWith('› none') ? true : undefined,
    );
    pane.keys('Home');
    await waitFor('the first option', () =>
      selectedLine(pane).startsWith('› byre/go') ? true : undefined,
    );
    pane.keys('C-c');
    expect(await pane.exit()).toBe('1');
  });

  it('Ctrl-C at the picker writes nothing: the store is left as it was found', async () => {
    const { pane, home } = develop('', { width: 200, height: 30 });
    await waitForScreen(pane, 'Which template');
    pane.keys('C-c');
    await waitForScreen(pane, 'the first-run questions were cancelled; nothing was written');
    expect(await pane.exit()).toBe('1');
    expect(readdirSync(home)).toEqual([]);
  });
});
