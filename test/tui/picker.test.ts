// TUI tier: the box picker in a private tmux server, driven by real keys.
// BYRE_TUI_TESTS=1 makes tmux mandatory (the tier fails without it); otherwise
// the tier runs when tmux is present and skips when it is not.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const bun = path.join(root, 'node_modules/.bin/bun');
const harness = path.join(root, 'test/tui/picker-harness.ts');
const required = process.env['BYRE_TUI_TESTS'] === '1';

function tmuxPresent(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const hasTmux = tmuxPresent();

describe.runIf(required && !hasTmux)('tui tier gate', () => {
  it('needs tmux when BYRE_TUI_TESTS=1', () => {
    throw new Error('BYRE_TUI_TESTS=1 but tmux is not installed');
  });
});

let serial = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

interface Session {
  keys(...keys: string[]): void;
  screen(): string;
  dir: string;
}

function startPicker(mode: 'stdin' | '/dev/tty'): Session {
  const dir = mkdtempSync(path.join(tmpdir(), 'byre-tui-'));
  const sock = `byre-tui-${process.pid}-${serial++}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', sock, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  cleanups.push(() => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(path.join(dir, 'payload'), 'piped payload');
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const redirect = mode === '/dev/tty' ? ` < ${q(path.join(dir, 'payload'))}` : '';
  const cmd =
    `env -u CI ${q(bun)} ${q(harness)} ${q(mode)} ${q(path.join(dir, 'result.json'))}${redirect}` +
    `; echo $? > ${q(path.join(dir, 'exit'))}; sleep 30`;
  tmux('new-session', '-d', '-x', '120', '-y', '20', '-c', root, cmd);
  return {
    dir,
    keys: (...keys) => void tmux('send-keys', '-t', '0', ...keys),
    screen: () => tmux('capture-pane', '-p', '-t', '0'),
  };
}

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function outcome(s: Session): Promise<{ chosen: string | null; payload: string | null }> {
  const exit = await waitFor('harness exit', () => {
    const f = path.join(s.dir, 'exit');
    const text = existsSync(f) ? readFileSync(f, 'utf8').trim() : '';
    return text === '' ? undefined : text;
  });
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
