// The TUI tier's terminal: one private tmux server per screen, real keys in,
// the pane's text out. BYRE_TUI_TESTS=1 makes tmux mandatory (the tier fails
// without it); otherwise the tier runs when tmux is present and skips when it
// is not. Every server and directory is removed after each test.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, it } from 'vitest';

export const root = path.resolve(import.meta.dirname, '../..');
export const byreBin = path.join(root, 'dist/byre');
const required = process.env['BYRE_TUI_TESTS'] === '1';

function tmuxPresent(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
export const hasTmux = tmuxPresent();

/** Registers the failing gate test when tmux is required but missing. */
export function tmuxGate(): void {
  describe.runIf(required && !hasTmux)('tui tier gate', () => {
    it('needs tmux when BYRE_TUI_TESTS=1', () => {
      throw new Error('BYRE_TUI_TESTS=1 but tmux is not installed');
    });
  });
}

let serial = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A fresh directory removed after the test. */
export function tuiTempDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'byre-tui-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export interface Pane {
  keys(...keys: string[]): void;
  /** Literal text, typed. */
  type(text: string): void;
  screen(): string;
  /** The pane's text with its colour and attribute escapes (tmux's `capture-pane -e`). */
  styled(): string;
  /** Whether the program switched the pane to the terminal's alternate screen. */
  alternate(): boolean;
  /** The command's exit status, once it has ended. */
  exit(): Promise<string>;
}

/**
 * Runs `command` (a shell line) in a `width`×`height` pane; its exit status
 * lands in a file the pane keeps open afterwards so the screen can be read.
 */
export function startPane(
  command: string,
  opts: { width: number; height: number; cwd: string },
): Pane {
  const dir = tuiTempDir();
  const sock = `byre-tui-${process.pid}-${serial++}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', sock, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  cleanups.unshift(() => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
  });
  const exitFile = path.join(dir, 'exit');
  tmux(
    'new-session',
    '-d',
    '-x',
    String(opts.width),
    '-y',
    String(opts.height),
    '-c',
    opts.cwd,
    `${command}; echo $? > ${q(exitFile)}; sleep 60`,
  );
  return {
    keys: (...keys) => void tmux('send-keys', '-t', '0', ...keys),
    type: (text) => void tmux('send-keys', '-t', '0', '-l', text),
    screen: () => tmux('capture-pane', '-p', '-t', '0'),
    styled: () => tmux('capture-pane', '-p', '-e', '-t', '0'),
    alternate: () => tmux('display-message', '-p', '-t', '0', '#{alternate_on}').trim() === '1',
    exit: () =>
      waitFor('the command to exit', () => {
        const text = existsSync(exitFile) ? readFileSync(exitFile, 'utf8').trim() : '';
        return text === '' ? undefined : text;
      }),
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the pane shows `text` (or matches it); returns the screen. */
export function waitForScreen(pane: Pane, text: string | RegExp, ms?: number): Promise<string> {
  return waitFor(
    `the screen to show ${String(text)}`,
    () => {
      const screen = pane.screen();
      const hit = typeof text === 'string' ? screen.includes(text) : text.test(screen);
      return hit ? screen : undefined;
    },
    ms,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n--- screen ---\n${pane.screen()}`);
  });
}

/** Presses `key` and waits until the screen shows its effect; false when nothing changed. */
export async function pressSeen(pane: Pane, key: string, ms = 2_000): Promise<boolean> {
  const before = pane.screen();
  pane.keys(key);
  return waitFor(
    'the screen to change',
    () => (pane.screen() !== before ? true : undefined),
    ms,
  ).catch(() => false);
}

/** The selected line (the one starting with `› `), or '' when none is. */
export function selectedLine(pane: Pane): string {
  return (
    pane
      .screen()
      .split('\n')
      .find((l) => l.startsWith('› ')) ?? ''
  );
}

/** Presses Down, one row at a time (each move seen on screen), until the selected row matches. */
export async function selectRow(pane: Pane, row: RegExp): Promise<void> {
  for (let i = 0; i < 80; i++) {
    if (row.test(selectedLine(pane))) return;
    if (!(await pressSeen(pane, 'Down'))) break;
  }
  throw new Error(`no row ${String(row)}\n${pane.screen()}`);
}

/**
 * Adds a mount in an open `byre config` screen and saves it: the steps a
 * user takes, each seen on screen before the next key.
 */
export async function addMountAndSave(pane: Pane, host: string, target: string): Promise<void> {
  await waitForScreen(pane, /exposure: .* · 0 host mounts · /);
  await selectRow(pane, /\+ add a mount/);
  pane.keys('Enter');
  await waitForScreen(pane, 'New mount');
  pane.type(host);
  await waitForScreen(pane, `host:       ${host}▏`);
  pane.keys('Down');
  await waitForScreen(pane, /› target: +▏/);
  pane.type(target);
  await waitForScreen(pane, `${target}▏`);
  pane.keys('Enter');
  await waitForScreen(pane, '· unsaved');
  // The header's exposure summary counts the new mount before it is saved.
  await waitForScreen(pane, /exposure: .* · 1 host mount · /);
  pane.keys('C-s');
  await waitForScreen(pane, /saved .*byre\.config/);
}
