// The paste beat's judgement, pure: given what the terminal delivered (a paste
// or a bare Ctrl-V) and what the pasteboard holds, decide what to deliver. A
// drag onto the window also arrives as pasted text; it is never delivered
// without a confirmation, because the paths were never on the clipboard.

import { fileUriToPath, type ClipboardSnapshot } from '../clipboard/plan.js';

/** What the terminal gave the paste beat. */
export type PasteCapture =
  | { kind: 'key' } // a Ctrl-V keystroke with no pasted text: read the pasteboard
  | { kind: 'paste'; text: string }; // bracketed-paste (or typed burst) text, markers removed

export interface PasteInput {
  capture: PasteCapture;
  clipboard: ClipboardSnapshot;
  now: Date;
  /** Whether an absolute host path exists (stat, following links). */
  exists: (absolutePath: string) => boolean;
}

export type PasteDecision =
  | { kind: 'files'; rule: 'paste.pasteboard-files'; paths: string[] }
  | { kind: 'image'; rule: 'paste.pasteboard-image'; name: string; png: Uint8Array }
  | {
      kind: 'text';
      rule: 'paste.pasteboard-text' | 'paste.literal-text';
      name: string;
      text: string;
    }
  | { kind: 'confirm-drag'; rule: 'paste.possible-drag'; paths: string[] }
  | { kind: 'nothing'; rule: 'paste.empty' };

export function classifyPaste(input: PasteInput): PasteDecision {
  const { capture, clipboard, now } = input;
  const pasted = capture.kind === 'paste' ? capture.text : '';
  if (pasted.trim() === '' || mirrorsPasteboard(pasted, clipboard)) {
    return fromPasteboard(clipboard, now);
  }
  const dragged = draggedPaths(pasted, input.exists);
  if (dragged !== null)
    return { kind: 'confirm-drag', rule: 'paste.possible-drag', paths: dragged };
  return {
    kind: 'text',
    rule: 'paste.literal-text',
    name: clipboardName(now, 'txt'),
    text: pasted,
  };
}

/** Pasteboard priority: file references, then image, then text. */
function fromPasteboard(clipboard: ClipboardSnapshot, now: Date): PasteDecision {
  if (clipboard.files.length > 0) {
    return { kind: 'files', rule: 'paste.pasteboard-files', paths: [...clipboard.files] };
  }
  if (clipboard.image !== null && clipboard.image.length > 0) {
    return {
      kind: 'image',
      rule: 'paste.pasteboard-image',
      name: clipboardName(now, 'png'),
      png: clipboard.image,
    };
  }
  if (clipboard.text !== null && clipboard.text !== '') {
    return {
      kind: 'text',
      rule: 'paste.pasteboard-text',
      name: clipboardName(now, 'txt'),
      text: clipboard.text,
    };
  }
  return { kind: 'nothing', rule: 'paste.empty' };
}

/**
 * The pasted text came from the pasteboard: it equals the pasteboard's text
 * (modulo line endings and trailing whitespace), or it names exactly the
 * pasteboard's file references (as paths or, like Terminal.app, basenames).
 */
function mirrorsPasteboard(pasted: string, clipboard: ClipboardSnapshot): boolean {
  const p = normalise(pasted);
  if (clipboard.text !== null && p === normalise(clipboard.text)) return true;
  if (clipboard.files.length === 0) return false;
  const words = splitWords(p);
  if (words === null || words.length !== clipboard.files.length) return false;
  const known = new Set(clipboard.files.flatMap((f) => [f, basename(f)]));
  return words.every((w) => known.has(w) || known.has(fileUriToPath(w) ?? ''));
}

/**
 * Every word is an existing absolute host path (terminals insert dragged
 * files shell-escaped or as file:// URIs); otherwise null.
 */
function draggedPaths(pasted: string, exists: (p: string) => boolean): string[] | null {
  const words = splitWords(pasted.trim());
  if (words === null || words.length === 0) return null;
  const paths = words.map((w) => fileUriToPath(w) ?? w);
  if (!paths.every((p) => p.startsWith('/') && !p.includes('\0') && exists(p))) return null;
  return paths;
}

/**
 * Splits the way a shell would for the quoting terminals use on drops:
 * whitespace separates, backslash escapes, single and double quotes group.
 * Unbalanced quotes return null (not a drop).
 */
export function splitWords(text: string): string[] | null {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (quote === "'") {
      if (ch === "'") quote = null;
      else cur += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1] ?? ''))
        cur += text[++i];
      else cur += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '\\' && i + 1 < text.length) cur += text[++i];
    else cur += ch;
  }
  if (quote !== null) return null;
  if (inWord) words.push(cur);
  return words;
}

/** `clipboard-YYYYMMDD-HHMMSS.<ext>` in local time. */
export function clipboardName(now: Date, ext: string): string {
  return `${timestampedStem('clipboard', now)}.${ext}`;
}

/** `<prefix>-YYYYMMDD-HHMMSS` in local time (also the stdin spool name). */
export function timestampedStem(prefix: string, now: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}`;
  const time = `${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${prefix}-${date}-${time}`;
}

function normalise(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}

function basename(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
