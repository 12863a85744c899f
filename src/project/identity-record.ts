// What byre remembers about the directories it launched boxes in, so that a
// directory's identity never changes behind its back (adr/0047): a project's
// own root by its path record (`projects/<id>/path`), a linked worktree by
// `worktrees/<worktree id>`, which names the worktree's directory and its
// project. Both are keyed by the id the directory's own path hashes to, so
// finding what a directory was is a read or two, never a scan.

import path from 'node:path';

import { writeFileAtomic } from '../host/atomic-write.js';
import { isValidProjectId, projectIdFor } from './identity.js';
import { readRegularFile } from '../host/read-regular.js';
import { entryNames } from '../host/path-view.js';
import { removeEntrySync } from '../host/remove.js';
import { projectPathOf, recordProjectPath } from './store.js';
import { projectStorePaths, storePaths, worktreeRecordPath } from './store-layout.js';

/** A record's cap: a path and an id. */
const RECORD_MAX_BYTES = 8192;

/** What the store says a directory was when byre last launched in it. */
export interface RecordedIdentity {
  /** null: the record exists but cannot be read, so byre does not know (and never guesses). */
  projectId: string | null;
  /** `project`: the directory is the project's own root; `worktree`: a linked worktree of it. */
  as: 'project' | 'worktree';
  /** The record that says so. */
  file: string;
}

interface WorktreeRecord {
  dir: string;
  projectId: string;
}

/** `<dir>\n<project id>\n`. Pure. */
function formatWorktreeRecord(record: WorktreeRecord): string {
  return `${record.dir}\n${record.projectId}\n`;
}

/** A worktree record's text, or null when it is not one. Pure. */
function parseWorktreeRecord(text: string): WorktreeRecord | null {
  const lines = text.split('\n');
  const [dir, projectId, rest] = [lines[0] ?? '', lines[1] ?? '', lines.slice(2).join('')];
  if (!path.isAbsolute(dir) || !isValidProjectId(projectId) || rest !== '') return null;
  return { dir, projectId };
}

const UNREADABLE = Symbol('unreadable');

function readWorktreeRecord(file: string): WorktreeRecord | typeof UNREADABLE | null {
  const read = readRegularFile(file, RECORD_MAX_BYTES);
  if (read.kind === 'missing') return null;
  if (read.kind !== 'ok') return UNREADABLE;
  return parseWorktreeRecord(read.bytes.toString('utf8')) ?? UNREADABLE;
}

/**
 * What the store records `dir` (canonical) as: its own project when the
 * path record of the id its path hashes to names it, a linked worktree of the
 * project its worktree record names. A worktree record that cannot be read is
 * reported with a null id, which matches nothing (fail closed).
 */
export function recordedIdentities(home: string, dir: string): RecordedIdentity[] {
  const id = projectIdFor(dir);
  const out: RecordedIdentity[] = [];
  if (projectPathOf(home, id) === dir) {
    out.push({ projectId: id, as: 'project', file: projectStorePaths(home, id).path });
  }
  const file = worktreeRecordPath(home, id);
  const record = readWorktreeRecord(file);
  if (record === UNREADABLE) out.push({ projectId: null, as: 'worktree', file });
  else if (record !== null && record.dir === dir) {
    out.push({ projectId: record.projectId, as: 'worktree', file });
  }
  return out;
}

/** A directory byre launched a box in (so a box could write all of it). */
export function isLaunchedDir(home: string, dir: string): boolean {
  return recordedIdentities(home, dir).length > 0;
}

interface IdentityToRecord {
  projectId: string;
  projectRoot: string;
  worktreeDir: string;
  worktreeId: string;
  isLinkedWorktree: boolean;
}

/**
 * Records what this directory resolved to: the project's path record (first
 * writer wins, adr/0023's collision refusal), and for a linked worktree its
 * worktree record, rewritten only when it says something else.
 */
export async function recordIdentity(home: string, ctx: IdentityToRecord): Promise<void> {
  await recordProjectPath(home, ctx.projectId, ctx.projectRoot);
  if (!ctx.isLinkedWorktree) return;
  const file = worktreeRecordPath(home, ctx.worktreeId);
  const wanted = { dir: ctx.worktreeDir, projectId: ctx.projectId };
  const current = readWorktreeRecord(file);
  if (current !== UNREADABLE && current !== null && current.dir === wanted.dir) {
    if (current.projectId === wanted.projectId) return;
  }
  await writeFileAtomic(file, formatWorktreeRecord(wanted));
}

/** Drops a linked worktree's record (its directory left the project, or was removed). */
export function removeWorktreeRecord(home: string, worktreeId: string): void {
  removeEntrySync(worktreeRecordPath(home, worktreeId));
}

/** Every readable worktree record, with its worktree id. Reads the whole directory: for rare verbs. */
export function worktreeRecords(home: string): (WorktreeRecord & { worktreeId: string })[] {
  const names = entryNames(storePaths(home).worktrees);
  return names.filter(isValidProjectId).flatMap((worktreeId) => {
    const record = readWorktreeRecord(worktreeRecordPath(home, worktreeId));
    return record === null || record === UNREADABLE ? [] : [{ worktreeId, ...record }];
  });
}

/** Points the worktree records of `from` at `to` (a rehomed project); `to` null drops them (forget). */
export async function retargetWorktreeRecords(
  home: string,
  from: string,
  to: string | null,
): Promise<void> {
  for (const r of worktreeRecords(home)) {
    if (r.projectId !== from) continue;
    if (to === null) removeWorktreeRecord(home, r.worktreeId);
    else {
      await writeFileAtomic(
        worktreeRecordPath(home, r.worktreeId),
        formatWorktreeRecord({ dir: r.dir, projectId: to }),
      );
    }
  }
}
