// The store's record of every host directory a byre box was ever launched
// with write access to (adr/0046): the read-write binds and volume seed
// sources of every launch of every project, kept after the box, the config
// that granted it and the project's store are gone, so each stays a
// box-writable tree for every project and for deliver and grab. It lives at
// the store's root, which no box reaches (adr/0018; `--self-edit` binds only
// `projects/<id>`). develop adds to it, under its own lock, before the box is
// created; every command that gathers the trees reads it.

import path from 'node:path';

import { ByreError, RefusedError } from '../errors.js';
import { parseLaunchRecord } from '../gen/launch-record.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { isValidProjectId } from '../project/identity.js';
import { worktreeRecords } from '../project/identity-record.js';
import { withSetupLock } from '../host/lock.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { listEntries, lstatEntry } from '../host/path-view.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';

/** One directory a box was launched with write access to. */
export interface LaunchedTree {
  /** Absolute: as the engine was told, or what that resolved to at launch. */
  path: string;
  /** The project whose box it was. */
  project: string;
  /** How messages name it, written by byre at launch. */
  what: string;
}

/** The most entries the record holds (a store of 200 projects with a few grants each). */
export const TREES_RECORD_MAX_ENTRIES = 2048;
/** The record's byte cap: byre never writes more, and never reads more. */
const TREES_RECORD_MAX_BYTES = 1024 * 1024;

const FORMAT = 'byre launched trees';
const VERSION = 1;

// ---------------------------------------------------------------------------
// Pure

/** The record's bytes: JSON, one entry a line. */
export function renderTreesRecord(trees: readonly LaunchedTree[]): string {
  const lines = trees.map((t) => JSON.stringify([t.path, t.project, t.what]));
  return `{"format":"${FORMAT}","version":${VERSION},"trees":[\n${lines.join(',\n')}\n]}\n`;
}

function isEntry(e: unknown): e is [string, string, string] {
  return (
    Array.isArray(e) &&
    e.length === 3 &&
    typeof e[0] === 'string' &&
    path.isAbsolute(e[0]) &&
    !e[0].includes('\0') &&
    typeof e[1] === 'string' &&
    isValidProjectId(e[1]) &&
    typeof e[2] === 'string'
  );
}

/** The entries, or null when the text is not a record this build wrote. */
function parseTreesRecord(text: string): LaunchedTree[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const { format, version, trees } = doc as Record<string, unknown>;
  if (format !== FORMAT || version !== VERSION || !Array.isArray(trees)) return null;
  if (trees.length > TREES_RECORD_MAX_ENTRIES || !trees.every(isEntry)) return null;
  return trees.map(([p, project, what]) => ({ path: p, project, what }));
}

/** `existing` with the additions whose path it lacks; null when it has every one. */
function mergeTrees(
  existing: readonly LaunchedTree[],
  additions: readonly LaunchedTree[],
): LaunchedTree[] | null {
  const seen = new Set(existing.map((t) => t.path));
  const added = additions.filter((t) => {
    if (seen.has(t.path)) return false;
    seen.add(t.path);
    return true;
  });
  return added.length === 0 ? null : [...existing, ...added];
}

type Bounded = { kind: 'ok'; trees: LaunchedTree[] } | { kind: 'full'; count: number };

/**
 * The record within its caps. Over them, entries whose directory is gone
 * are dropped (nothing a box left there survives it; `gone` answers), then
 * nothing more: a record still over is full, never trimmed of a live tree.
 */
function boundTrees(trees: readonly LaunchedTree[], gone: (p: string) => boolean): Bounded {
  const fits = (ts: readonly LaunchedTree[]): boolean =>
    ts.length <= TREES_RECORD_MAX_ENTRIES &&
    Buffer.byteLength(renderTreesRecord(ts), 'utf8') <= TREES_RECORD_MAX_BYTES;
  if (fits(trees)) return { kind: 'ok', trees: [...trees] };
  const kept = trees.filter((t) => !gone(t.path));
  return fits(kept) ? { kind: 'ok', trees: kept } : { kind: 'full', count: kept.length };
}

// ---------------------------------------------------------------------------
// IO

/** Where the record lives, and its lock. */
function treesRecordPaths(home: string): { dir: string; file: string; lock: string } {
  const file = storePaths(home).launchedTrees;
  return { dir: home, file, lock: `${file}.lock` };
}

function invalidRecord(file: string, why: string): ByreError {
  return new ByreError(`byre's record of box-writable trees ${file} ${why}`, {
    rule: 'store.trees-record',
    remedy: `byre wrote it and never writes it so; restore it from a backup, or remove it (every directory a box was launched with before is then trusted again: look in them first)`,
  });
}

/** The entries, or null when there is no record yet; a record byre cannot read is an error. */
function readRecord(home: string): LaunchedTree[] | null {
  const { file } = treesRecordPaths(home);
  const read = readRegularFile(file, TREES_RECORD_MAX_BYTES);
  switch (read.kind) {
    case 'missing':
      return null;
    case 'not-regular':
      throw invalidRecord(file, `is ${describeNotRegular(read.what)}`);
    case 'too-large':
      throw invalidRecord(file, `is over ${TREES_RECORD_MAX_BYTES} bytes`);
    case 'ok': {
      const trees = parseTreesRecord(read.bytes.toString('utf8'));
      if (trees === null) throw invalidRecord(file, 'is not a record this byre wrote');
      return trees;
    }
  }
}

/**
 * Every entry the store records; none when there is no record yet. A record
 * byre cannot read is an error (fail closed: it would drop trees unseen).
 */
export function readLaunchedTrees(home: string): LaunchedTree[] {
  return readRecord(home) ?? [];
}

/** The most launch records the first write reads. */
const LEGACY_RECORDS_MAX = 1024;
const LAUNCH_RECORD_MAX_BYTES = 1024 * 1024;

/**
 * What a store from before the record already knows a box wrote, for its
 * first write: every linked worktree byre launched in (`worktrees/`) and the
 * read-write binds of the launch records still on disk. Records that do not
 * read are left out; what they would add is only ever more trees.
 */
function legacyLaunchedTrees(home: string): LaunchedTree[] {
  const out: LaunchedTree[] = worktreeRecords(home).map((r) => ({
    path: r.dir,
    project: r.projectId,
    what: `the linked worktree ${r.dir} (byre launched a box in it)`,
  }));
  let ids: string[] = [];
  try {
    ids = listEntries(storePaths(home).projects).filter(isValidProjectId).sort();
  } catch {
    return out;
  }
  let budget = LEGACY_RECORDS_MAX;
  for (const id of ids) {
    const dir = projectStorePaths(home, id).launches;
    let names: string[] = [];
    try {
      names = listEntries(dir)
        .filter((n) => /^[0-9a-f]{64}\.toml$/.test(n))
        .sort();
    } catch {
      continue;
    }
    for (const name of names.slice(0, Math.max(budget, 0))) {
      budget -= 1;
      const read = readRegularFile(path.join(dir, name), LAUNCH_RECORD_MAX_BYTES);
      if (read.kind !== 'ok') continue;
      const parsed = parseLaunchRecord(read.bytes.toString('utf8'));
      if (parsed.kind !== 'ok') continue;
      for (const b of parsed.record.binds) {
        if (b.mode !== 'rw' || !path.isAbsolute(b.host) || b.host.includes('\0')) continue;
        const what = `the read-write bind ${b.host} -> ${b.target} of a box of project ${id} (its launch record)`;
        out.push({ path: b.host, project: id, what });
      }
    }
  }
  return out;
}

function isGone(p: string): boolean {
  try {
    lstatEntry(p);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Adds `additions` to the store's record, atomically and under its lock; a
 * launch whose trees are all recorded writes nothing. The first write starts
 * from what the store knows already (legacyLaunchedTrees). A full record is
 * a refusal: the box is not created.
 */
export async function recordLaunchedTrees(
  home: string,
  additions: readonly LaunchedTree[],
): Promise<void> {
  const recorded = readRecord(home);
  if (recorded !== null && mergeTrees(recorded, additions) === null) return;
  const paths = treesRecordPaths(home);
  await withSetupLock(paths, async () => {
    const current = readRecord(home);
    // The first write: this launch's own entries first (their descriptions
    // win), then what the store knew; written even when that adds nothing.
    const merged =
      current === null
        ? (mergeTrees([], [...additions, ...legacyLaunchedTrees(home)]) ?? [])
        : mergeTrees(current, additions);
    if (merged === null) return;
    // This launch's own directories stay, present or not (the engine may create one).
    const launching = new Set(additions.map((t) => t.path));
    const bounded = boundTrees(merged, (p) => !launching.has(p) && isGone(p));
    if (bounded.kind === 'full') {
      throw new RefusedError(
        `byre's record of box-writable trees ${paths.file} is full (${bounded.count} directories, at most ${TREES_RECORD_MAX_ENTRIES}); the box was not created`,
        {
          rule: 'store.trees-record-full',
          remedy: `remove from ${paths.file} the entries of directories no box of yours uses any more, after looking in them for links a box left`,
        },
      );
    }
    await writeFileAtomic(paths.file, renderTreesRecord(bounded.trees));
  });
}
