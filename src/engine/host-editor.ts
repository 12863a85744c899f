// The user's text editor ($VISUAL, else $EDITOR, else vi) on a temporary
// file: the hand-off for prose and whole config files. The editor binary is
// pinned like every host tool (a copy planted where the box can write is
// declined, never run); its arguments are the rest of the variable split at
// spaces, with no shell in between. The temporary file is private and gone
// afterwards, whatever the editor did.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ByreError } from '../errors.js';
import {
  requireResolved,
  resolveHostTool,
  resolveToolPath,
  type HostToolOptions,
} from './host-tools.js';

/** The editor command as words: $VISUAL, else $EDITOR, else vi. */
export function editorCommand(env: Readonly<Record<string, string | undefined>>): string[] {
  for (const name of ['VISUAL', 'EDITOR']) {
    const words = (env[name] ?? '')
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '');
    if (words.length > 0) return words;
  }
  return ['vi'];
}

/** The pinned absolute path of the editor, and its arguments. */
export function resolveEditor(options: HostToolOptions): { path: string; args: string[] } {
  const [tool = 'vi', ...args] = editorCommand(options.env);
  const resolution = tool.includes('/')
    ? resolveToolPath(tool, options)
    : resolveHostTool(tool, options);
  return { path: requireResolved(tool, resolution), args };
}

/**
 * Opens `text` in the user's editor and returns what was saved, or null when
 * the editor exits non-zero (an abandoned edit, as git treats it). Blocks
 * until the editor exits; the terminal is the editor's meanwhile.
 */
export function editInHostEditor(
  text: string,
  name: string,
  options: HostToolOptions,
): { text: string } | { text: null; reason: string } {
  const editor = resolveEditor(options);
  const dir = mkdtempSync(path.join(tmpdir(), 'byre-edit-'));
  try {
    const file = path.join(dir, name);
    writeFileSync(file, text, { mode: 0o600 });
    const run = spawnSync(editor.path, [...editor.args, file], {
      stdio: 'inherit',
      env: options.env as NodeJS.ProcessEnv,
    });
    if (run.error !== undefined) {
      throw new ByreError(`could not run ${editor.path}: ${run.error.message}`, {
        rule: 'editor.failed',
        remedy: 'set EDITOR (or VISUAL) to an editor that is installed',
        cause: run.error,
      });
    }
    if (run.status !== 0) {
      return {
        text: null,
        reason: `${path.basename(editor.path)} exited with ${String(run.status ?? run.signal)}; nothing was taken`,
      };
    }
    return { text: readFileSync(file, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
