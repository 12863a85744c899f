// readClipboard: what the pasteboard holds right now, every flavour the paste
// beat classifies against (file references, a PNG image, text). Bounded as a
// whole at two minutes; a flavour that cannot be read is absent, with a note.

import {
  CLIPBOARD_READ_BUDGET_MS,
  flavoursFromTypes,
  parseJxaPaths,
  parseUriList,
  planClipboardRead,
  type ClipboardSnapshot,
  type Flavour,
  type ReadCommand,
  type ToolLookup,
} from './plan.js';
import { runTool, type RunTool } from './run.js';

export type { ClipboardSnapshot } from './plan.js';

export interface ReadOptions {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  lookup: ToolLookup;
  run?: RunTool;
  budgetMs?: number;
  /** Cap on an image read. */
  maxImageBytes?: number;
}

export async function readClipboard(
  opts: ReadOptions,
): Promise<{ snapshot: ClipboardSnapshot; notes: string[] }> {
  const run = opts.run ?? runTool;
  const plan = planClipboardRead(opts);
  const notes = [...plan.notes];
  const deadline = Date.now() + (opts.budgetMs ?? CLIPBOARD_READ_BUDGET_MS);
  let expired = false;

  const read = async (cmd: ReadCommand | null, maxBytes: number): Promise<Buffer | null> => {
    if (cmd === null || expired) return null;
    const left = deadline - Date.now();
    if (left <= 0) {
      expired = true;
      return null;
    }
    const r = await run(cmd.path, cmd.args, { timeoutMs: left, capture: true, maxBytes });
    if (r.timedOut) expired = true;
    return r.code === 0 ? r.stdout : null;
  };

  let offered: Set<Flavour> | null = null;
  if (plan.types !== null) {
    const listing = await read(plan.types, 1 << 20);
    offered = listing === null ? new Set() : flavoursFromTypes(listing.toString('utf8'));
  }
  const has = (f: Flavour): boolean => offered === null || offered.has(f);

  const snapshot: ClipboardSnapshot = { files: [], image: null, text: null };
  if (has('files')) {
    const out = await read(plan.files, 1 << 20);
    if (out !== null) {
      const body = out.toString('utf8');
      snapshot.files = plan.types === null ? parseJxaPaths(body) : parseUriList(body);
    }
  }
  if (snapshot.files.length === 0 && has('image')) {
    const png = await read(plan.image, opts.maxImageBytes ?? 256 << 20);
    if (png !== null && png.length > 0) snapshot.image = new Uint8Array(png);
  }
  if (has('text')) {
    const out = await read(plan.text, 64 << 20);
    if (out !== null) snapshot.text = out.toString('utf8');
  }
  if (expired) notes.push('clipboard: the read took over 2 minutes and was abandoned');
  return { snapshot, notes };
}
