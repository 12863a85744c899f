// What podman's `ps` said about each byre box, by container id (adr/0044),
// so deliver and grab need not ask it again while the same containers run. A
// container's id is never reused and its labels never change, so an entry
// stays true for as long as that container exists; the live monitors
// (src/engine/idle-probe.ts) say which containers those are. The file lives in
// the user's runtime directory (src/host/runtime-dir.ts), never in the store.

import path from 'node:path';

import { FULL_CONTAINER_ID } from '../engine/types.js';
import { replaceFileBestEffortSync } from '../host/atomic-write.js';
import { readRegularFile } from '../host/read-regular.js';

/** One box as discovery needs it: what its `ps` row's labels said. */
export interface MemoBox {
  id: string;
  projectId: string;
  workdirId: string;
  uid: number;
  gid: number;
}

const HEADER = 'byre podman boxes 1';
const MAX_ENTRIES = 256;
const MAX_BYTES = 256 * 1024;
/** Label values kept only when they are one plain word (byre's ids are slugs). */
const WORD = /^[A-Za-z0-9._-]{1,200}$/;
const NUMBER = /^\d{1,9}$/;

function entryOk(b: MemoBox): boolean {
  return (
    FULL_CONTAINER_ID.test(b.id) &&
    WORD.test(b.projectId) &&
    WORD.test(b.workdirId) &&
    NUMBER.test(String(b.uid)) &&
    NUMBER.test(String(b.gid))
  );
}

/** The file's text: a header, then one `id project workdir uid gid` line per box. */
function formatMemo(boxes: readonly MemoBox[]): string {
  const lines = boxes
    .filter(entryOk)
    .slice(0, MAX_ENTRIES)
    .map((b) => `${b.id} ${b.projectId} ${b.workdirId} ${b.uid} ${b.gid}`);
  return [HEADER, ...lines, ''].join('\n');
}

/** The entries by id; null for a file that is not exactly this format (it is then ignored). */
function parseMemo(text: string): Map<string, MemoBox> | null {
  const lines = text.split('\n');
  if (lines[0] !== HEADER || lines.at(-1) !== '') return null;
  const out = new Map<string, MemoBox>();
  for (const line of lines.slice(1, -1)) {
    const f = line.split(' ');
    if (f.length !== 5) return null;
    const [id = '', projectId = '', workdirId = '', uid = '', gid = ''] = f;
    if (!NUMBER.test(uid) || !NUMBER.test(gid)) return null;
    const box = { id, projectId, workdirId, uid: Number(uid), gid: Number(gid) };
    if (!entryOk(box)) return null;
    out.set(id, box);
  }
  return out;
}

/**
 * Podman's `ps` answer rebuilt without asking: when every live monitored
 * container is a remembered byre box, those boxes; null when any is not (it
 * may be a box byre has not seen, so podman must be asked). The result is a
 * superset of what `ps` would list: a paused box keeps its monitor.
 */
export function boxesFromMemo(
  live: readonly string[],
  memo: ReadonlyMap<string, MemoBox>,
): MemoBox[] | null {
  const out: MemoBox[] = [];
  for (const id of live) {
    const box = memo.get(id);
    if (box === undefined) return null;
    out.push(box);
  }
  return out;
}

/** What to keep after podman answered: its boxes, and remembered ones whose monitor still lives. */
export function nextMemo(
  memo: ReadonlyMap<string, MemoBox>,
  live: readonly string[],
  listed: readonly MemoBox[],
): MemoBox[] {
  const out = new Map<string, MemoBox>();
  for (const b of listed) if (entryOk(b)) out.set(b.id, b);
  for (const id of live) {
    const kept = memo.get(id);
    if (kept !== undefined && !out.has(id)) out.set(id, kept);
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

const FILE = 'podman-boxes';

/** The remembered boxes in `dir`; empty when there is no file or it is not byre's format. */
export function readMemo(dir: string): Map<string, MemoBox> {
  try {
    const read = readRegularFile(path.join(dir, FILE), MAX_BYTES);
    return read.kind === 'ok' ? (parseMemo(read.bytes.toString('utf8')) ?? new Map()) : new Map();
  } catch {
    return new Map();
  }
}

/** Replaces the file whole (temp + rename, 0600). Best effort: a failed write only costs a `ps`. */
export function writeMemo(dir: string, boxes: readonly MemoBox[]): void {
  replaceFileBestEffortSync(path.join(dir, FILE), formatMemo(boxes), 0o600);
}
