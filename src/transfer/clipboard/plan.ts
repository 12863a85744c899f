// Clipboard planning, pure: which host tool copies or reads, in which order,
// and what note each degraded nicety leaves on stderr. Tool lookups are
// injected (src/engine/host-tools.ts in production); nothing here spawns.

import type { ToolResolution } from '../../engine/host-tools.js';
import { escapeTerminal } from '../../output/escape.js';
import { shellQuote } from '../../output/shell-quote.js';

export type ToolLookup = (tool: string) => ToolResolution;

interface ClipboardHost {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  lookup: ToolLookup;
}

/** One way to put text on the clipboard: run `path args`, text on stdin. */
interface CopyStep {
  tool: string;
  path: string;
  args: string[];
}

interface CopyPlan {
  /** Tried in order; the first that exits 0 wins. */
  steps: CopyStep[];
  /** Fall back to OSC 52 on stderr when every step fails (or there are none). */
  osc52: boolean;
  notes: string[];
}

const COPY_TOOLS: readonly {
  tool: string;
  args: string[];
  usable: (h: ClipboardHost) => boolean;
}[] = [
  { tool: 'pbcopy', args: [], usable: (h) => h.platform === 'darwin' },
  { tool: 'wl-copy', args: [], usable: (h) => nonEmpty(h.env['WAYLAND_DISPLAY']) },
  {
    tool: 'xclip',
    args: ['-selection', 'clipboard', '-in'],
    usable: (h) => nonEmpty(h.env['DISPLAY']),
  },
];

/** pbcopy, then wl-copy, then xclip (each only where its display exists), else OSC 52 on a terminal. */
export function planClipboardCopy(host: ClipboardHost & { stderrIsTTY: boolean }): CopyPlan {
  const steps: CopyStep[] = [];
  const notes: string[] = [];
  for (const t of COPY_TOOLS) {
    if (!t.usable(host)) continue;
    const found = usableTool(host.lookup, t.tool, notes);
    if (found !== null) steps.push({ tool: t.tool, path: found, args: [...t.args] });
  }
  if (steps.length === 0 && !host.stderrIsTTY) {
    notes.push(
      'clipboard: paths not copied — no usable pbcopy, wl-copy or xclip, and stderr is not a terminal for OSC 52',
    );
  }
  return { steps, osc52: host.stderrIsTTY, notes };
}

/** The note when a copy had to fall back to OSC 52. */
export const OSC52_NOTE =
  'clipboard: copied with an OSC 52 escape (no usable pbcopy, wl-copy or xclip) — works only if your terminal allows it';

/** The note when a copy tool ran and failed. */
export function copyFailedNote(step: CopyStep, detail: string): string {
  return `clipboard: ${step.tool} failed (${detail})`;
}

/** The note when every tool failed and OSC 52 was not possible. */
export const COPY_GAVE_UP_NOTE =
  'clipboard: paths not copied — every clipboard tool failed and stderr is not a terminal for OSC 52';

/**
 * The clipboard text for landed paths: space-separated, each shell-quoted only
 * when it needs it, so a paste into a prompt or a shell reads back the same paths.
 */
export function clipboardTextForPaths(paths: readonly string[]): string {
  return shellQuote(paths);
}

/** OSC 52 "set clipboard", wrapped in tmux's DCS passthrough when inside tmux. */
export function osc52Sequence(text: string, opts: { tmux: boolean }): string {
  const seq = `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
  if (!opts.tmux) return seq;
  return `\u001bPtmux;${seq.replace(/\u001b/g, '\u001b\u001b')}\u001b\\`;
}

// ---- reading ---------------------------------------------------------------

/** The pasteboard as the paste classifier sees it. */
export interface ClipboardSnapshot {
  /** Absolute host paths of file references (Finder copy, file-manager copy). */
  files: string[];
  /** PNG bytes when the pasteboard holds an image (not read when files won). */
  image: Uint8Array | null;
  text: string | null;
}

export type Flavour = 'files' | 'image' | 'text';

export interface ReadCommand {
  tool: string;
  path: string;
  args: string[];
}

/** How this host reads its clipboard, per flavour; a missing flavour cannot be read here. */
interface ReadPlan {
  /** Lists the clipboard's types (Linux); null where flavours are probed directly (macOS). */
  types: ReadCommand | null;
  files: ReadCommand | null;
  image: ReadCommand | null;
  text: ReadCommand | null;
  notes: string[];
}

/** The 2-minute bound on a whole clipboard read. */
export const CLIPBOARD_READ_BUDGET_MS = 120_000;

/**
 * Prints the pasteboard's file URLs as a JSON array of POSIX paths. JXA rather
 * than AppleScript: it reads NSURL objects straight off NSPasteboard.
 */
const JXA_FILE_URLS = [
  "ObjC.import('AppKit');",
  'var pb = $.NSPasteboard.generalPasteboard;',
  'var opts = $.NSDictionary.dictionaryWithObjectForKey(true, $.NSPasteboardURLReadingFileURLsOnlyKey);',
  'var urls = pb.readObjectsForClassesOptions($.NSArray.arrayWithObject($.NSURL), opts);',
  'var out = [];',
  'if (urls) { for (var i = 0; i < urls.count; i++) out.push(urls.objectAtIndex(i).path.js); }',
  'JSON.stringify(out);',
].join('\n');

export function planClipboardRead(host: ClipboardHost): ReadPlan {
  const notes: string[] = [];
  const cmd = (tool: string, args: string[]): ReadCommand | null => {
    const p = usableTool(host.lookup, tool, notes);
    return p === null ? null : { tool, path: p, args };
  };
  if (host.platform === 'darwin') {
    const files = cmd('osascript', ['-l', 'JavaScript', '-e', JXA_FILE_URLS]);
    const image = cmd('pngpaste', ['-']);
    if (image === null) notes.push('clipboard: install pngpaste to deliver clipboard images');
    return { types: null, files, image, text: cmd('pbpaste', ['-Prefer', 'txt']), notes };
  }
  if (nonEmpty(host.env['WAYLAND_DISPLAY'])) {
    const wl = usableTool(host.lookup, 'wl-paste', notes);
    if (wl !== null) {
      const c = (args: string[]): ReadCommand => ({ tool: 'wl-paste', path: wl, args });
      return {
        types: c(['--list-types']),
        files: c(['--no-newline', '--type', 'text/uri-list']),
        image: c(['--no-newline', '--type', 'image/png']),
        text: c(['--no-newline', '--type', 'text/plain']),
        notes,
      };
    }
  }
  if (nonEmpty(host.env['DISPLAY'])) {
    const xc = usableTool(host.lookup, 'xclip', notes);
    if (xc !== null) {
      const c = (target: string): ReadCommand => ({
        tool: 'xclip',
        path: xc,
        args: ['-selection', 'clipboard', '-out', '-target', target],
      });
      return {
        types: c('TARGETS'),
        files: c('text/uri-list'),
        image: c('image/png'),
        text: c('UTF8_STRING'),
        notes,
      };
    }
  }
  notes.push('clipboard: cannot read it here — no pbpaste, wl-paste (Wayland) or xclip (X11)');
  return { types: null, files: null, image: null, text: null, notes };
}

/** Which flavours a type listing (wl-paste --list-types, xclip TARGETS) offers. */
export function flavoursFromTypes(listing: string): Set<Flavour> {
  const types = new Set(listing.split(/\r?\n/).map((t) => t.trim().toLowerCase()));
  const out = new Set<Flavour>();
  if (types.has('text/uri-list') || types.has('x-special/gnome-copied-files')) out.add('files');
  if (types.has('image/png')) out.add('image');
  for (const t of ['text/plain', 'text/plain;charset=utf-8', 'utf8_string', 'string', 'text']) {
    if (types.has(t)) out.add('text');
  }
  return out;
}

/** Local paths from a text/uri-list body; non-file URIs and comments are dropped. */
export function parseUriList(body: string): string[] {
  const out: string[] = [];
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const p = fileUriToPath(line);
    if (p !== null) out.push(p);
  }
  return out;
}

/** file:///a%20b or file://localhost/a -> /a b; anything else -> null. */
export function fileUriToPath(uri: string): string | null {
  const m = /^file:\/\/(localhost)?(\/[^?#]*)$/i.exec(uri);
  if (m === null || m[2] === undefined) return null;
  try {
    return decodeURIComponent(m[2]);
  } catch {
    return null;
  }
}

/** The JXA_FILE_URLS output: a JSON array of strings, else no files. */
export function parseJxaPaths(stdout: string): string[] {
  try {
    const v: unknown = JSON.parse(stdout.trim());
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  } catch {
    return [];
  }
}

function usableTool(lookup: ToolLookup, tool: string, notes: string[]): string | null {
  const r = lookup(tool);
  switch (r.kind) {
    case 'found':
      return r.path;
    case 'declined':
      notes.push(
        `clipboard: not using ${tool} — PATH resolves it through ${escapeTerminal(r.path)}, inside ${escapeTerminal(r.root)}, which the box can write`,
      );
      return null;
    case 'absent':
      return null;
  }
}

function nonEmpty(v: string | undefined): boolean {
  return v !== undefined && v !== '';
}
