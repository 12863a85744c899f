import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ByreError } from '../errors.js';
import { testTempDir } from '../../test/support/temp.js';
import { editorCommand, editText } from './editor.js';

describe('the $EDITOR handoff', () => {
  it.each([
    [{ VISUAL: 'code -w', EDITOR: 'nano' }, 'code -w'],
    [{ EDITOR: 'nano' }, 'nano'],
    [{ VISUAL: ' ', EDITOR: '' }, 'vi'],
    [{}, 'vi'],
  ])('%j runs %s', (env, command) => {
    expect(editorCommand(env)).toBe(command);
  });

  function script(body: string): string {
    const file = path.join(testTempDir('editor'), 'ed.sh');
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  const base = {
    declinedRoots: [],
    name: 'byre-context-x.md',
    help: ['Lines starting with # are dropped.'],
    maxBytes: 1024,
  };
  const before = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith('byre-edit-'));

  /** What editText returns when the editor leaves `left` in the file. */
  function stripComments(left: string): string {
    const source = path.join(testTempDir('editor-left'), 'left');
    writeFileSync(source, left);
    const ed = script(`cp '${source}' "$1"`);
    return editText({ ...base, env: { ...process.env, EDITOR: ed }, initial: '' });
  }

  it('drops # lines and trailing blank space, keeps the rest', () => {
    expect(stripComments('a\n# b\n  # kept\n\nc\n\n# help\n')).toBe('a\n  # kept\n\nc');
    expect(stripComments('# only\n\n')).toBe('');
  });

  it('shows the initial text and help, and returns what the editor left', () => {
    const seen = path.join(testTempDir('editor-seen'), 'seen');
    const ed = script(`cp "$1" ${seen}; printf 'new text\\n# gone\\n' > "$1"`);
    const left = before();
    const text = editText({ ...base, env: { ...process.env, EDITOR: ed }, initial: 'old' });
    expect(text).toBe('new text');
    expect(readFileSync(seen, 'utf8')).toBe('old\n\n# Lines starting with # are dropped.\n');
    expect(before()).toEqual(left);
  });

  it('an editor that fails writes nothing and cleans up', () => {
    const ed = script('exit 3');
    const left = before();
    expect(() => editText({ ...base, env: { ...process.env, EDITOR: ed }, initial: '' })).toThrow(
      ByreError,
    );
    expect(before()).toEqual(left);
  });

  it('refuses text over the cap', () => {
    const ed = script(`head -c 4096 /dev/zero | tr '\\0' a > "$1"`);
    expect(() => editText({ ...base, env: { ...process.env, EDITOR: ed }, initial: '' })).toThrow(
      /over 1024 bytes/,
    );
  });
});
