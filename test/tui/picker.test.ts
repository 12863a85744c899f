// TUI tier: the box picker in a private tmux server, driven by real keys.
// BYRE_TUI_TESTS=1 makes tmux mandatory (the tier fails without it); otherwise
// the tier runs when tmux is present and skips when it is not.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { hasTmux, q, root, startPane, tmuxGate, tuiTempDir, waitFor, type Pane } from './tmux.js';

const bun = path.join(root, 'node_modules/.bin/bun');
const harness = path.join(root, 'test/tui/picker-harness.ts');

tmuxGate();

interface Session extends Pane {
  dir: string;
}

function startPicker(mode: 'stdin' | '/dev/tty'): Session {
  const dir = tuiTempDir();
  writeFileSync(path.join(dir, 'payload'), 'piped payload');
  const redirect = mode === '/dev/tty' ? ` < ${q(path.join(dir, 'payload'))}` : '';
  const cmd = `env -u CI ${q(bun)} ${q(harness)} ${q(mode)} ${q(path.join(dir, 'result.json'))}${redirect}`;
  return { dir, ...startPane(cmd, { width: 120, height: 20, cwd: root }) };
}

async function outcome(s: Session): Promise<{ chosen: string | null; payload: string | null }> {
  const exit = await s.exit();
  expect(exit, s.screen()).toBe('0');
  return JSON.parse(readFileSync(path.join(s.dir, 'result.json'), 'utf8')) as {
    chosen: string | null;
    payload: string | null;
  };
}

async function shown(s: Session): Promise<string> {
  return waitFor('the picker', () => {
    const screen = s.screen();
    return screen.includes('pick one') ? screen : undefined;
  });
}

describe.runIf(hasTmux)('box picker in tmux', { timeout: 60_000 }, () => {
  it('moves down and chooses the second box', async () => {
    const s = startPicker('stdin');
    const screen = await shown(s);
    expect(screen).toContain('3 boxes are running');
    expect(screen).toContain('evil\\x1b[2Jlabel');
    s.keys('Down');
    await waitFor('cursor on row 2', () => (/^>\s+cccc3333dddd/m.test(s.screen()) ? 1 : undefined));
    s.keys('Enter');
    expect((await outcome(s)).chosen).toBe('cccc3333dddd4444');
  });

  it('wraps upward from the first row to the last', async () => {
    const s = startPicker('stdin');
    await shown(s);
    s.keys('Up');
    await waitFor('cursor on row 3', () => (/^>\s+eeee5555ffff/m.test(s.screen()) ? 1 : undefined));
    s.keys('Enter');
    expect((await outcome(s)).chosen).toBe('eeee5555ffff6666');
  });

  it('takes End and Home', async () => {
    const s = startPicker('stdin');
    await shown(s);
    s.keys('End');
    await waitFor('cursor on row 3', () => (/^>\s+eeee5555ffff/m.test(s.screen()) ? 1 : undefined));
    s.keys('Home');
    await waitFor('cursor on row 1', () => (/^>\s+aaaa1111bbbb/m.test(s.screen()) ? 1 : undefined));
    s.keys('Enter');
    expect((await outcome(s)).chosen).toBe('aaaa1111bbbb2222');
  });

  it('renders on /dev/tty and leaves the piped payload on stdin', async () => {
    const s = startPicker('/dev/tty');
    await shown(s);
    s.keys('Down');
    await waitFor('cursor on row 2', () => (/^>\s+cccc3333dddd/m.test(s.screen()) ? 1 : undefined));
    s.keys('Enter');
    expect(await outcome(s)).toEqual({ chosen: 'cccc3333dddd4444', payload: 'piped payload' });
  });

  for (const [name, key] of [
    ['Escape', 'Escape'],
    ['q', 'q'],
    ['Ctrl-C', 'C-c'],
  ] as const) {
    it(`cancels on ${name}`, async () => {
      const s = startPicker('/dev/tty');
      await shown(s);
      s.keys(key);
      expect(await outcome(s)).toEqual({ chosen: null, payload: 'piped payload' });
    });
  }
});
