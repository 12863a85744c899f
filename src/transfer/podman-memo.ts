// The engine pool deliver and grab discover over, and podman's remembered
// answer (adr/0044): the live monitors' container ids (src/engine/idle-probe.ts)
// against the boxes podman listed before (box-memo.ts). IO at this edge; the
// decision is boxesFromMemo's.

import path from 'node:path';

import type { Io } from '../io.js';
import { transferPool } from '../engine/idle-probe.js';
import { enginePool, type EnginePool } from '../engine/pool.js';
import { storeWritableTrees, treeRoots } from '../containment/writable-trees.js';
import { LABEL } from '../gen/names.js';
import type { LabelledContainer } from '../engine/types.js';
import { isAncestorOrSelf } from '../project/containment.js';
import { privateRuntimeDir } from '../host/runtime-dir.js';
import { byreHome } from '../project/store-layout.js';
import { boxesFromMemo, nextMemo, readMemo, writeMemo, type MemoBox } from './box-memo.js';
import { idFrom, type PodmanShortcut } from './discover.js';

function rowOf(b: MemoBox): LabelledContainer {
  return {
    id: b.id,
    labels: {
      [LABEL.project]: b.projectId,
      [LABEL.workdir]: b.workdirId,
      [LABEL.uid]: String(b.uid),
      [LABEL.gid]: String(b.gid),
    },
  };
}

/** A listed row as an entry; null when a label is missing or not a plain value. */
function entryOf(r: LabelledContainer): MemoBox | null {
  const uid = idFrom(r.labels, LABEL.uid);
  const gid = idFrom(r.labels, LABEL.gid);
  const projectId = r.labels[LABEL.project] ?? '';
  if (uid === null || gid === null || projectId === '') return null;
  return { id: r.id, projectId, workdirId: r.labels[LABEL.workdir] ?? projectId, uid, gid };
}

/** Podman's shortcut for one discovery with its memo in `dir`, or null when the monitors cannot vouch. */
export function podmanShortcut(
  monitored: readonly string[] | null,
  dir: string | null,
): PodmanShortcut | null {
  if (monitored === null || dir === null) return null;
  const memo = readMemo(dir);
  return {
    known: () => boxesFromMemo(monitored, memo)?.map(rowOf) ?? null,
    remember: (rows) => {
      const listed = rows.flatMap((r) => entryOf(r) ?? []);
      writeMemo(dir, nextMemo(memo, monitored, listed));
    },
  };
}

/**
 * What deliver and grab discover over on this machine: every installed
 * engine less the provably idle (adr/0039), and podman's shortcut. An
 * injected pool (tests) is asked as given, with no shortcut.
 */
export function localTransferEngines(
  io: Io,
  injected: EnginePool | undefined,
): { pool: EnginePool; podman: PodmanShortcut | null } {
  if (injected !== undefined) return { pool: injected, podman: null };
  const declined = treeRoots(storeWritableTrees(byreHome(io.env)));
  const { pool, monitored } = transferPool(enginePool(declined, io.env, null), io.env, io.uid);
  // The directory is made only when the monitors can vouch for an answer.
  return { pool, podman: monitored === null ? null : podmanShortcut(monitored, memoHome(io)) };
}

/**
 * The runtime directory, unless it overlaps the store: a `--self-edit` box
 * has its project's store mounted, and containment does not count that
 * mount, so a memo there could be within its reach.
 */
function memoHome(io: Io): string | null {
  const dir = privateRuntimeDir(io.env, io.uid);
  if (dir === null) return null;
  const store = path.resolve(byreHome(io.env));
  return isAncestorOrSelf(store, dir) || isAncestorOrSelf(dir, store) ? null : dir;
}
