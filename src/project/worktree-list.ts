// A repository's worktrees, read from git's own files in the common git dir
// (`HEAD`, `worktrees/<name>/{gitdir,HEAD,locked}`), never by running git:
// the repository's git never runs on the host. Everything here is the box's
// to write, so it is read like a planted file: no links followed, no FIFO
// opened, bounded in size and count.

import path from 'node:path';

import { readRegularFile } from '../host/read-regular.js';
import { listEntries, lstatEntry } from '../host/path-view.js';
import { POINTER_MAX_BYTES } from './worktree.js';

/** At most this many linked worktrees are read; the rest are reported as not listed. */
const WORKTREE_LIST_LIMIT = 100;

/** The marker byre leaves in a new worktree's git dir until the box has checked it out. */
export const NEEDS_CHECKOUT_MARKER = 'byre-needs-checkout';

type WorktreeHead = { branch: string } | { detached: string } | { unknown: string };

export interface WorktreeEntry {
  /** The worktree directory as git recorded it. */
  path: string;
  head: WorktreeHead;
  /** The name of its admin dir under `<common>/worktrees/`; null for the main worktree. */
  admin: string | null;
  /** byre registered it and the box has not checked it out yet. */
  pendingCheckout: boolean;
  locked: boolean;
  /** Its directory is gone (git would call it prunable). */
  missing: boolean;
}

interface WorktreeList {
  entries: WorktreeEntry[];
  /** Linked worktrees beyond WORKTREE_LIST_LIMIT, not read. */
  notListed: number;
}

/** `ref: refs/heads/x` -> branch x; 40/64 hex -> detached. Pure. */
function parseHead(text: string): WorktreeHead {
  const line = (text.split('\n', 1)[0] ?? '').trim();
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(line);
  if (ref?.[1] !== undefined) return { branch: ref[1] };
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(line)) return { detached: line.slice(0, 12) };
  return { unknown: line.slice(0, 80) };
}

/** The branch name, `(detached abc123…)` or `(unknown HEAD)`, for tables. Pure. */
export function headText(head: WorktreeHead): string {
  if ('branch' in head) return head.branch;
  if ('detached' in head) return `(detached ${head.detached})`;
  return '(unreadable HEAD)';
}

function smallFile(file: string): string | null {
  try {
    const read = readRegularFile(file, POINTER_MAX_BYTES);
    return read.kind === 'ok' ? read.bytes.toString('utf8') : null;
  } catch {
    return null;
  }
}

function exists(p: string): boolean {
  try {
    lstatEntry(p);
    return true;
  } catch {
    return false;
  }
}

function isRealDir(p: string): boolean {
  try {
    return lstatEntry(p).isDirectory();
  } catch {
    return false;
  }
}

function headOf(file: string): WorktreeHead {
  const text = smallFile(file);
  return text === null ? { unknown: '' } : parseHead(text);
}

/** The main worktree, then each linked one git records, by admin name. */
export function listWorktrees(commonGitDir: string, mainWorktree: string): WorktreeList {
  const entries: WorktreeEntry[] = [
    {
      path: mainWorktree,
      head: headOf(path.join(commonGitDir, 'HEAD')),
      admin: null,
      pendingCheckout: false,
      locked: false,
      missing: !exists(mainWorktree),
    },
  ];
  const adminRoot = path.join(commonGitDir, 'worktrees');
  let names: string[] = [];
  if (isRealDir(adminRoot)) {
    try {
      names = listEntries(adminRoot).sort();
    } catch {
      names = [];
    }
  }
  const admins = names.filter((n) => isRealDir(path.join(adminRoot, n)));
  for (const name of admins.slice(0, WORKTREE_LIST_LIMIT)) {
    const dir = path.join(adminRoot, name);
    const pointer = smallFile(path.join(dir, 'gitdir'));
    const dotGit = pointer === null ? null : (pointer.split('\n', 1)[0] ?? '').trim();
    if (dotGit === null || dotGit === '') continue;
    const worktree = path.dirname(path.resolve(dir, dotGit));
    entries.push({
      path: worktree,
      head: headOf(path.join(dir, 'HEAD')),
      admin: name,
      pendingCheckout: exists(path.join(dir, NEEDS_CHECKOUT_MARKER)),
      locked: exists(path.join(dir, 'locked')),
      missing: !exists(worktree),
    });
  }
  return { entries, notListed: Math.max(0, admins.length - WORKTREE_LIST_LIMIT) };
}
