// Discovery plus the target cascade, wired to the real world: ancestor ids of
// cwd, the picker on a terminal (stdin's, or /dev/tty when stdin carries the
// payload), and discovery notes on stderr. Shared by deliver and grab.

import path from 'node:path';

import type { Io } from '../io.js';
import type { EnginePool } from '../engine/pool.js';
import { ByreError } from '../errors.js';
import { canonicalPathSync } from '../host/canonical.js';
import { ttyAvailable } from '../host/tty.js';
import { say, sayAll } from '../output/notes.js';
import { projectIdFor } from '../project/identity.js';
import { projectIdCollision, readProjectPath } from '../project/store.js';
import { byreHome } from '../project/store-layout.js';
import {
  discoverBoxes,
  findBoxById,
  type BoxSummary,
  type Discovery,
  hiddenNote,
  type FoundBox,
  type PodmanShortcut,
} from './discover.js';
import { chooseTarget, hiddenChangeDecision, type TransferVerb } from './target.js';
import { FULL_CONTAINER_ID } from '../engine/types.js';

/** `cwd` and every ancestor (canonical) with its worktree id, nearest first. */
function ancestors(cwd: string): { dir: string; id: string }[] {
  let dir: string;
  try {
    dir = canonicalPathSync(cwd);
  } catch {
    dir = path.resolve(cwd);
  }
  const out: { dir: string; id: string }[] = [];
  for (;;) {
    if (dir !== path.parse(dir).root) out.push({ dir, id: projectIdFor(dir) });
    const up = path.dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

/** Worktree ids of `cwd` and every ancestor, nearest first. */
function ancestorIds(cwd: string): string[] {
  return ancestors(cwd).map((a) => a.id);
}

/**
 * The ancestor ids a running box answers to that this store records for
 * another directory (a hash collision, or a path reused): refusals, as
 * `byre shell` gives for the same id. Only ids a box carries are read.
 */
async function foreignIds(io: Io, boxes: readonly BoxSummary[]): Promise<Map<string, ByreError>> {
  const carried = new Set(boxes.map((b) => b.workdirId));
  const home = byreHome(io.env);
  const out = new Map<string, ByreError>();
  for (const { dir, id } of ancestors(io.cwd)) {
    if (!carried.has(id)) continue;
    const recorded = await readProjectPath(home, id);
    if (recorded !== null && recorded !== dir) out.set(id, projectIdCollision(id, recorded, dir));
  }
  return out;
}

/** Which terminal a picker may use, or null when none can ask. */
function pickerTerminal(io: Io, stdinBusy: boolean): 'stdin' | '/dev/tty' | null {
  if (io.stdinIsTty && !stdinBusy) return 'stdin';
  if (io.stderrIsTty === true && ttyAvailable()) return '/dev/tty';
  return null;
}

type PickFn = <T extends BoxSummary>(
  candidates: readonly T[],
  opts: { tty: 'stdin' | '/dev/tty' },
) => Promise<T | null>;

/** The ink picker (src/tui/picker.tsx), loaded only when a picker shows, so ink costs nothing otherwise. */
async function loadPicker(): Promise<PickFn> {
  const mod = await import('../tui/picker.js');
  return mod.pickBox as PickFn;
}

interface PickOptions {
  /** Boxes of another uid discovery left out: named only where they would change the choice. */
  hidden?: readonly BoxSummary[];
  /** Which verb asks: remedies name it. Defaults to deliver. */
  verb?: TransferVerb;
  box?: string;
  stdinBusy: boolean;
  interactive: boolean;
  /** Ancestor ids owned by another directory (see foreignIds); local boxes only. */
  foreignIds?: ReadonlyMap<string, ByreError>;
}

/**
 * The cascade over any discovery (a local one, or a remote byre's box list):
 * --box, cwd ancestors, the sole box, the picker on a terminal, else an error.
 */
export async function pickTarget<T extends BoxSummary>(
  io: Io,
  discovery: { boxes: T[]; partial: boolean },
  options: PickOptions,
): Promise<T> {
  const terminal = options.interactive ? pickerTerminal(io, options.stdinBusy) : null;
  const query = {
    ...(options.verb === undefined ? {} : { verb: options.verb }),
    boxes: discovery.boxes,
    partial: discovery.partial,
    ...(options.box === undefined ? {} : { boxFlag: options.box }),
    ancestorIds: ancestorIds(io.cwd),
    ...(options.foreignIds === undefined ? {} : { foreignIds: options.foreignIds }),
    canPick: terminal !== null,
  };
  const hidden = options.hidden ?? [];
  if (hiddenChangeDecision<BoxSummary>(query, hidden)) say(io.stderr, hiddenNote(hidden.length));
  const decision = chooseTarget(query);
  if (decision.kind === 'error') throw decision.error;
  if (decision.kind === 'box') return decision.box;
  if (terminal === null) throw new Error('picker decision without a terminal');
  const pickBox = await loadPicker();
  const chosen = await pickBox(decision.candidates, { tty: terminal });
  if (chosen === null) {
    const nothing = options.verb === 'grab' ? 'nothing was copied' : 'nothing was sent';
    throw new ByreError(`no box picked; ${nothing}`, { rule: 'transfer.pick-cancelled' });
  }
  return chosen;
}

export async function selectBox(
  io: Io,
  pool: EnginePool,
  options: PickOptions & { skipUidCheck: boolean; podman?: PodmanShortcut | null },
): Promise<{ box: FoundBox; discovery: Discovery }> {
  const who = { callerUid: io.uid, skipUidCheck: options.skipUidCheck };
  if (options.box !== undefined && FULL_CONTAINER_ID.test(options.box)) {
    const box = await findBoxById(pool, options.box, who);
    if (box !== null)
      return { box, discovery: { boxes: [box], hidden: [], partial: false, notes: [] } };
  }
  const discovery = await discoverBoxes(pool, { ...who, podman: options.podman ?? null });
  sayAll(io.stderr, discovery.notes);
  const foreign =
    options.box === undefined
      ? await foreignIds(io, [...discovery.boxes, ...discovery.hidden])
      : undefined;
  const picked = await pickTarget(io, discovery, {
    ...options,
    hidden: discovery.hidden,
    ...(foreign === undefined ? {} : { foreignIds: foreign }),
  });
  return { box: picked, discovery };
}
