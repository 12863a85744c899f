// copyPathsToClipboard: the best-effort clipboard leg after a delivery. Never
// throws and never touches stdout; every degraded step comes back as a note
// for stderr.

import {
  clipboardTextForPaths,
  COPY_GAVE_UP_NOTE,
  copyFailedNote,
  OSC52_NOTE,
  osc52Sequence,
  planClipboardCopy,
  type ToolLookup,
} from './plan.js';
import { runTool, type RunTool } from './run.js';

export interface CopyOptions {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Resolves a bare tool name (createHostTools(...).resolve, with the declined roots). */
  lookup: ToolLookup;
  /** Where OSC 52 goes when no tool works: byre's stderr, only when it is a terminal. */
  stderr: { isTTY: boolean; write(s: string): unknown };
  run?: RunTool;
  timeoutMs?: number;
}

export interface CopyResult {
  copied: 'tool' | 'osc52' | 'none';
  tool?: string;
  notes: string[];
}

export async function copyPathsToClipboard(
  paths: readonly string[],
  opts: CopyOptions,
): Promise<CopyResult> {
  if (paths.length === 0) return { copied: 'none', notes: [] };
  const run = opts.run ?? runTool;
  const plan = planClipboardCopy({
    platform: opts.platform,
    env: opts.env,
    lookup: opts.lookup,
    stderrIsTTY: opts.stderr.isTTY,
  });
  const notes = [...plan.notes];
  const text = clipboardTextForPaths(paths);
  for (const step of plan.steps) {
    const r = await run(step.path, step.args, {
      input: text,
      timeoutMs: opts.timeoutMs ?? 5_000,
      capture: false,
    });
    if (r.code === 0) return { copied: 'tool', tool: step.tool, notes };
    notes.push(copyFailedNote(step, r.timedOut ? 'timed out' : `exit ${r.code ?? 'signal'}`));
  }
  if (plan.osc52) {
    opts.stderr.write(osc52Sequence(text, { tmux: (opts.env['TMUX'] ?? '') !== '' }));
    notes.push(OSC52_NOTE);
    return { copied: 'osc52', notes };
  }
  if (plan.steps.length > 0) notes.push(COPY_GAVE_UP_NOTE);
  return { copied: 'none', notes };
}
