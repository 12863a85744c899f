// The $EDITOR handoff, as git commit does it: the text goes into a private
// temp file under a `#` comment block, the user's editor runs on it through
// the pinned host shell (`sh -c '$EDITOR "$@"'`), and what comes back,
// comment lines dropped, is the result. An empty result is the user saying
// "abort". The temp directory is always removed.

import path from 'node:path';

import { createHostTools } from '../engine/host-tools.js';
import { ByreError } from '../errors.js';
import { withPrivateTempDirSync, writeNewFileSync } from '../host/private-temp.js';
import { readRegularFile } from '../host/read-regular.js';
import { runInteractiveSync } from '../host/spawn.js';

interface EditTextOptions {
  env: NodeJS.ProcessEnv;
  /** Box-writable roots: an `sh` found under one is declined, never run. */
  declinedRoots: readonly string[];
  /** The file's base name (the editor may show it). */
  name: string;
  initial: string;
  /** Lines shown under the text as `# …` comments. */
  help: readonly string[];
  /**
   * The text is a file in its own right (a whole config file, where `#` is
   * TOML's comment): no help block, nothing stripped, returned as saved.
   */
  verbatim?: boolean;
  /** The most text byre accepts back. */
  maxBytes: number;
}

/** The editor command: $VISUAL, then $EDITOR, then vi (git's order, minus its own config). */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  for (const key of ['VISUAL', 'EDITOR']) {
    const value = env[key]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return 'vi';
}

/** The edited text without `#` comment lines, trailing blank space trimmed (pure). */
function stripComments(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .replace(/\s+$/, '');
}

/** Runs the user's editor on `initial`; resolves to the text it left (comments dropped). */
export function editText(options: EditTextOptions): string {
  const sh = createHostTools({ declinedRoots: options.declinedRoots, env: options.env }).require(
    'sh',
  );
  const editor = editorCommand(options.env);
  return withPrivateTempDirSync('byre-edit-', (dir) => {
    const file = path.join(dir, options.name);
    const help = options.help.map((line) => (line === '' ? '#' : `# ${line}`));
    const text =
      options.verbatim === true ? options.initial : `${options.initial}\n\n${help.join('\n')}\n`;
    writeNewFileSync(file, text, 0o600);
    // From where the user ran byre, as git runs it: the editor's relative paths are theirs.
    const run = runInteractiveSync(sh, ['-c', `${editor} "$@"`, 'byre-editor', file], {
      env: options.env,
      cwd: process.cwd(),
    });
    if (run.error !== null || run.status !== 0) {
      throw new ByreError(
        `the editor (${editor}) ${run.error === null ? `exited ${String(run.status ?? run.signal)}` : `could not run: ${run.error.message}`}; nothing was written`,
        {
          rule: 'editor.failed',
          remedy: 'set $EDITOR (or $VISUAL) to an editor that exits 0 when you save',
        },
      );
    }
    const read = readRegularFile(file, options.maxBytes);
    if (read.kind !== 'ok') {
      throw new ByreError(
        read.kind === 'too-large'
          ? `the edited text is over ${options.maxBytes} bytes; nothing was written`
          : 'the editor left no file to read; nothing was written',
        { rule: 'editor.failed', remedy: 'save the file in place, then quit the editor' },
      );
    }
    const edited = read.bytes.toString('utf8');
    return options.verbatim === true ? edited : stripComments(edited);
  });
}
