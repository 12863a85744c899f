import { describe, expect, it } from 'vitest';

import type { ClipboardSnapshot } from '../clipboard/plan.js';
import {
  classifyPaste,
  clipboardName,
  splitWords,
  timestampedStem,
  type PasteCapture,
  type PasteDecision,
} from './classify.js';

const now = new Date(2026, 7, 9, 14, 5, 7);
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
const onDisk = new Set(['/Users/me/My File.pdf', '/Users/me/b.txt', '/home/me/dir']);
const exists = (p: string): boolean => onDisk.has(p);

const clip = (c: Partial<ClipboardSnapshot>): ClipboardSnapshot => ({
  files: [],
  image: null,
  text: null,
  ...c,
});
const paste = (text: string): PasteCapture => ({ kind: 'paste', text });
const key: PasteCapture = { kind: 'key' };

type Want =
  | { kind: 'files'; paths: string[] }
  | { kind: 'image' }
  | { kind: 'text'; rule: string; text: string }
  | { kind: 'confirm-drag'; paths: string[] }
  | { kind: 'nothing' };

function summary(d: PasteDecision): Want {
  switch (d.kind) {
    case 'files':
      return { kind: 'files', paths: d.paths };
    case 'image':
      expect(d.name).toBe('clipboard-20260809-140507.png');
      return { kind: 'image' };
    case 'text':
      expect(d.name).toBe('clipboard-20260809-140507.txt');
      return { kind: 'text', rule: d.rule, text: d.text };
    case 'confirm-drag':
      return { kind: 'confirm-drag', paths: d.paths };
    case 'nothing':
      expect(d.rule).toBe('paste.empty');
      return { kind: 'nothing' };
  }
}

const table: [string, PasteCapture, ClipboardSnapshot, Want][] = [
  // Ctrl-V key or an empty paste: the pasteboard decides, files > image > text.
  [
    'key, files+image+text',
    key,
    clip({ files: ['/a/x.pdf'], image: png, text: 'x.pdf' }),
    { kind: 'files', paths: ['/a/x.pdf'] },
  ],
  ['key, image+text', key, clip({ image: png, text: 'caption' }), { kind: 'image' }],
  [
    'key, text only',
    key,
    clip({ text: 'hello' }),
    { kind: 'text', rule: 'paste.pasteboard-text', text: 'hello' },
  ],
  ['key, empty pasteboard', key, clip({}), { kind: 'nothing' }],
  ['key, empty image bytes', key, clip({ image: new Uint8Array() }), { kind: 'nothing' }],
  ['blank paste, image', paste('  \n'), clip({ image: png }), { kind: 'image' }],
  // A paste that mirrors the pasteboard is a real paste.
  [
    'paste equals text',
    paste('hello\r\nworld\n'),
    clip({ text: 'hello\nworld' }),
    { kind: 'text', rule: 'paste.pasteboard-text', text: 'hello\nworld' },
  ],
  [
    'paste of Finder names',
    paste('x.pdf'),
    clip({ files: ['/a/x.pdf'], text: 'x.pdf' }),
    { kind: 'files', paths: ['/a/x.pdf'] },
  ],
  [
    'paste of file paths (no text flavour)',
    paste('/a/x.pdf /b/y z.txt'.replace('y z', 'y\\ z')),
    clip({ files: ['/a/x.pdf', '/b/y z.txt'] }),
    { kind: 'files', paths: ['/a/x.pdf', '/b/y z.txt'] },
  ],
  [
    'paste of file URI',
    paste('file:///a/x%20y.pdf'),
    clip({ files: ['/a/x y.pdf'] }),
    { kind: 'files', paths: ['/a/x y.pdf'] },
  ],
  [
    'pasted path that IS the pasteboard text',
    paste('/Users/me/b.txt'),
    clip({ text: '/Users/me/b.txt' }),
    { kind: 'text', rule: 'paste.pasteboard-text', text: '/Users/me/b.txt' },
  ],
  // Existing absolute paths that are not on the pasteboard: a possible drag.
  [
    'drag, backslash-escaped',
    paste('/Users/me/My\\ File.pdf '),
    clip({ text: 'other' }),
    { kind: 'confirm-drag', paths: ['/Users/me/My File.pdf'] },
  ],
  [
    'drag, single-quoted (GNOME)',
    paste("'/Users/me/My File.pdf' '/home/me/dir' "),
    clip({}),
    { kind: 'confirm-drag', paths: ['/Users/me/My File.pdf', '/home/me/dir'] },
  ],
  [
    'drag, file URIs',
    paste('file:///Users/me/My%20File.pdf\nfile:///Users/me/b.txt'),
    clip({}),
    { kind: 'confirm-drag', paths: ['/Users/me/My File.pdf', '/Users/me/b.txt'] },
  ],
  [
    'drag beats a pasteboard image',
    paste('/Users/me/b.txt'),
    clip({ image: png }),
    { kind: 'confirm-drag', paths: ['/Users/me/b.txt'] },
  ],
  // Anything else is literal text.
  [
    'one path missing',
    paste('/Users/me/b.txt /nope'),
    clip({}),
    { kind: 'text', rule: 'paste.literal-text', text: '/Users/me/b.txt /nope' },
  ],
  [
    'relative path',
    paste('b.txt'),
    clip({}),
    { kind: 'text', rule: 'paste.literal-text', text: 'b.txt' },
  ],
  [
    'unbalanced quote',
    paste("'/Users/me/b.txt"),
    clip({}),
    { kind: 'text', rule: 'paste.literal-text', text: "'/Users/me/b.txt" },
  ],
  [
    'prose differing from pasteboard',
    paste('some words'),
    clip({ text: 'other words' }),
    { kind: 'text', rule: 'paste.literal-text', text: 'some words' },
  ],
  [
    'names that are not the pasteboard files',
    paste('y.pdf'),
    clip({ files: ['/a/x.pdf'] }),
    { kind: 'text', rule: 'paste.literal-text', text: 'y.pdf' },
  ],
  [
    'fewer names than files',
    paste('x.pdf'),
    clip({ files: ['/a/x.pdf', '/a/z.pdf'] }),
    { kind: 'text', rule: 'paste.literal-text', text: 'x.pdf' },
  ],
];

describe('classifyPaste', () => {
  it.each(table)('%s', (_name, capture, clipboard, want) => {
    expect(summary(classifyPaste({ capture, clipboard, now, exists }))).toEqual(want);
  });

  it('never stats a relative word', () => {
    const seen: string[] = [];
    classifyPaste({
      capture: paste('a /b'),
      clipboard: clip({}),
      now,
      exists: (p) => {
        seen.push(p);
        return true;
      },
    });
    expect(seen.every((p) => p.startsWith('/'))).toBe(true);
  });
});

describe('splitWords', () => {
  it.each<[string, string[] | null]>([
    ['', []],
    ['a b\tc\nd', ['a', 'b', 'c', 'd']],
    ['a\\ b', ['a b']],
    ["'a b'c", ['a bc']],
    ['"a \\"b\\" $"', ['a "b" $']],
    ['"a', null],
    ["''", ['']],
  ])('%j', (text, want) => {
    expect(splitWords(text)).toEqual(want);
  });
});

describe('names', () => {
  it('stamps local time', () => {
    expect(clipboardName(new Date(2026, 0, 2, 3, 4, 5), 'png')).toBe(
      'clipboard-20260102-030405.png',
    );
    expect(timestampedStem('stdin', new Date(2026, 11, 31, 23, 59, 58))).toBe(
      'stdin-20261231-235958',
    );
  });
});
