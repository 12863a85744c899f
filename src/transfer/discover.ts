// Machine-scoped discovery for deliver and grab: every running byre box on
// every installed engine, with the ids to exec as. An unreachable engine
// counts as zero (with a note); any other failure marks the pool partial, so
// nothing downstream may claim "exactly one". Reads engines; decides nothing.

import { askPool, type EnginePool } from '../engine/pool.js';
import { uidCheckApplies } from '../gen/shell-exec.js';
import { LABEL } from '../gen/names.js';
import type { ExecRunner } from '../engine/engine.js';
import type { EngineName, LabelledContainer } from '../engine/types.js';

/** What the cascade and the --boxes grammar need to know about one box. */
export interface BoxSummary {
  id: string;
  engine: EngineName;
  projectId: string;
  workdirId: string;
  /** Runs as another uid than the caller (shown only with --skip-uid-check). */
  foreign: boolean;
}

export interface FoundBox extends BoxSummary {
  uid: number;
  gid: number;
  handle: ExecRunner;
}

export interface Discovery {
  /** Usable boxes, sorted by engine, project, id. */
  boxes: FoundBox[];
  /**
   * Boxes of another uid left out without --skip-uid-check: the cascade
   * mentions them only where they would have changed its choice.
   */
  hidden: FoundBox[];
  /** Some engine failed in a way that is not "not running": no auto-pick. */
  partial: boolean;
  /** Things worth a line on stderr (unreachable engines, hidden boxes). */
  notes: string[];
}

/** An in-box id label or env value (`byre.uid`, `BYRE_GID` …) as a number; null when absent or not one. */
export function idFrom(record: Readonly<Record<string, string>>, key: string): number | null {
  const raw = record[key];
  return raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

/**
 * Pure: one box's labels and env → a usable box, or why not. The in-box ids
 * come from the byre.uid/byre.gid labels (asserted after run_args, so they
 * are what byre baked), else from BYRE_UID/BYRE_GID in the env (boxes
 * launched before the labels existed).
 */
function assessBox(input: {
  id: string;
  engine: EngineName;
  labels: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string>>;
  callerUid: number;
}): { kind: 'ok'; box: Omit<FoundBox, 'handle'> } | { kind: 'unusable'; reason: string } {
  const uid = idFrom(input.labels, LABEL.uid) ?? idFrom(input.env, 'BYRE_UID');
  const gid = idFrom(input.labels, LABEL.gid) ?? idFrom(input.env, 'BYRE_GID');
  if (uid === null || gid === null) {
    return { kind: 'unusable', reason: 'it carries no valid BYRE_UID/BYRE_GID' };
  }
  const projectId = input.labels[LABEL.project] ?? '';
  const workdirId = input.labels[LABEL.workdir] ?? projectId;
  const foreign = uidCheckApplies(input.engine, input.callerUid) && uid !== input.callerUid;
  return {
    kind: 'ok',
    box: { id: input.id, engine: input.engine, projectId, workdirId, foreign, uid, gid },
  };
}

function sortBoxes<T extends BoxSummary>(boxes: readonly T[]): T[] {
  const key = (b: BoxSummary): string[] => [b.engine, b.projectId, b.id];
  return [...boxes].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      const x = ka[i] ?? '';
      const y = kb[i] ?? '';
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}

/** The labels discovery reads from `ps`. */
const BOX_LABELS = [LABEL.project, LABEL.workdir, LABEL.uid, LABEL.gid];

/**
 * Podman's answer without its `ps`, when the containers its live monitors
 * watch are all remembered boxes (adr/0044); `remember` keeps what a real
 * answer listed. Built by src/transfer/podman-memo.ts.
 */
export interface PodmanShortcut {
  /** The remembered answer, or null when podman must be asked. */
  known(): LabelledContainer[] | null;
  remember(rows: readonly LabelledContainer[]): void;
}

export async function discoverBoxes(
  pool: EnginePool,
  options: { callerUid: number; skipUidCheck: boolean; podman?: PodmanShortcut | null },
): Promise<Discovery> {
  const notes: string[] = [];
  let partial = false;
  // One call per engine (a second only for boxes without the id labels), engines in parallel.
  const answers = await askPool(pool, async (engine) => {
    const shortcut = engine.facts.name === 'podman' ? (options.podman ?? null) : null;
    const known = shortcut?.known() ?? null;
    if (known !== null) return known.map((r) => ({ ...r, env: {} }));
    const rows = await engine.psLabels(
      { labels: {}, hasLabels: [LABEL.project], all: false },
      BOX_LABELS,
    );
    const labelled = rows.filter((r) => r.labels[LABEL.uid] !== undefined);
    shortcut?.remember(labelled);
    const older = rows.filter((r) => r.labels[LABEL.uid] === undefined).map((r) => r.id);
    const inspected = older.length === 0 ? [] : await engine.inspectContainers(older);
    return [...labelled.map((r) => ({ ...r, env: {} })), ...inspected.filter((f) => f.running)];
  });
  const boxes: FoundBox[] = [];
  const hidden: FoundBox[] = [];
  for (const a of answers) {
    if (a.state === 'unreachable' || a.state === 'denied') {
      notes.push(
        a.state === 'denied'
          ? `${a.name} refuses this user; counting it as no boxes`
          : `${a.name} is not answering; counting it as no boxes`,
      );
      continue;
    }
    if (a.state !== 'ok') {
      partial = true;
      notes.push(`could not ask ${a.name}: ${a.message}`);
      continue;
    }
    for (const hit of a.value) {
      const r = assessBox({ ...hit, engine: a.name, callerUid: options.callerUid });
      if (r.kind === 'unusable') {
        notes.push(`skipping ${a.name} box ${hit.id.slice(0, 12)}: ${r.reason}`);
        continue;
      }
      const found = { ...r.box, handle: a.engine };
      if (r.box.foreign && !options.skipUidCheck) hidden.push(found);
      else boxes.push(found);
    }
  }
  return { boxes: sortBoxes(boxes), hidden: sortBoxes(hidden), partial, notes };
}

/** The line for boxes of another uid left out (said only where they change the outcome). */
export function hiddenNote(hidden: number): string {
  return `${hidden} box${hidden === 1 ? '' : 'es'} of another uid hidden (--skip-uid-check shows them)`;
}

/**
 * `--box <full id>` without a full discovery: every engine is asked about
 * that one container at once, and the first to show a usable byre box
 * answers (the others' queries are cancelled). An exact id always wins the
 * cascade's --box rule, so no other engine's boxes could change the choice.
 * Null when no engine has it; the caller then runs the full cascade, whose
 * error lists what is running.
 */
export async function findBoxById(
  pool: EnginePool,
  id: string,
  options: { callerUid: number; skipUidCheck: boolean },
): Promise<FoundBox | null> {
  const engines = pool.members.flatMap((m) =>
    m.state === 'ok' ? [{ name: m.name, engine: m.engine }] : [],
  );
  const cancel = new AbortController();
  const asks = engines.map(async ({ name, engine }) => {
    const facts = await engine.inspectContainers([id], { signal: cancel.signal });
    const hit = facts.find(
      (f) => f.id === id && f.running && f.labels[LABEL.project] !== undefined,
    );
    if (hit === undefined) throw new Error('not here');
    const r = assessBox({ ...hit, engine: name, callerUid: options.callerUid });
    if (r.kind !== 'ok' || (r.box.foreign && !options.skipUidCheck)) throw new Error('not usable');
    return { ...r.box, handle: engine };
  });
  try {
    return await Promise.any(asks);
  } catch {
    return null;
  } finally {
    // Not awaited: the process outlives the killed queries by a few ms anyway.
    cancel.abort();
  }
}
