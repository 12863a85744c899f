// Machine-scoped discovery for deliver and grab: every running byre box on
// every installed engine, with the ids to exec as. An unreachable engine
// counts as zero (with a note); any other failure marks the pool partial, so
// nothing downstream may claim "exactly one". Reads engines; decides nothing.

import { askPool, type EnginePool } from '../box/pool.js';
import { uidCheckApplies } from '../box/shell.js';
import { LABEL } from '../engine/names.js';
import type { Engine } from '../engine/runner.js';
import type { EngineName } from '../engine/types.js';

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
  handle: Engine;
}

export interface Discovery {
  /** Usable boxes, sorted by engine, project, id. */
  boxes: FoundBox[];
  /** Some engine failed in a way that is not "not running": no auto-pick. */
  partial: boolean;
  /** Things worth a line on stderr (unreachable engines, hidden boxes). */
  notes: string[];
}

function idFrom(env: Readonly<Record<string, string>>, key: string): number | null {
  const raw = env[key];
  return raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

/** Pure: one box's labels and env → a usable box, or why not. */
export function assessBox(input: {
  id: string;
  engine: EngineName;
  labels: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string>>;
  callerUid: number;
}): { kind: 'ok'; box: Omit<FoundBox, 'handle'> } | { kind: 'unusable'; reason: string } {
  const uid = idFrom(input.env, 'BYRE_UID');
  const gid = idFrom(input.env, 'BYRE_GID');
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

export function sortBoxes<T extends BoxSummary>(boxes: readonly T[]): T[] {
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

export async function discoverBoxes(
  pool: EnginePool,
  options: { callerUid: number; skipUidCheck: boolean },
): Promise<Discovery> {
  const notes: string[] = [];
  let partial = false;
  const answers = await askPool(pool, async (engine) => {
    const ids = await engine.ps({ labels: {}, hasLabels: [LABEL.project], all: false });
    return Promise.all(
      ids.map(async (id) => ({
        id,
        labels: await engine.inspectLabels(id),
        env: await engine.inspectEnv(id),
      })),
    );
  });
  const boxes: FoundBox[] = [];
  let hidden = 0;
  for (const a of answers) {
    if (a.state === 'unreachable') {
      notes.push(`${a.name} is not answering; counting it as no boxes`);
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
      if (r.box.foreign && !options.skipUidCheck) {
        hidden += 1;
        continue;
      }
      boxes.push({ ...r.box, handle: a.engine });
    }
  }
  if (hidden > 0) {
    notes.push(
      `${hidden} box${hidden === 1 ? '' : 'es'} of another uid hidden (--skip-uid-check shows them)`,
    );
  }
  return { boxes: sortBoxes(boxes), partial, notes };
}
