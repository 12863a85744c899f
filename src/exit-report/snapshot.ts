// Reads what the exit report compares (adr/0035), directly from the files:
// git's config files (and the includes among them that stay inside the
// project), the hooks directories, the same two for every submodule's own
// git dir under `.git/modules`, the worktree's `.env*` files and its task
// files (TASK_FILES). The
// box writes all of it, so: no link followed, no FIFO opened, every file and
// every walk bounded, and a time budget; what is cut short is said, never
// guessed. Runs no git.

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';

import { isAncestorOrSelf } from '../project/containment.js';
import { mainWorktreeFor } from '../project/worktree.js';
import { describeNotRegular, readRegularFile } from '../project/read-regular.js';
import { isExecRelevant, parseGitConfig } from './git-config.js';
import type { Category, ConfigState, FileState, TreeSnapshot } from './report.js';

/** Bounds from the reference's exit report: hook entries, worktree configs, `.env*` files. */
export const HOOK_ENTRY_LIMIT = 500;
const WORKTREE_CONFIG_LIMIT = 100;
export const ENV_FILE_LIMIT = 200;
/** Directories the `.env*` walk visits at most. */
const ENV_DIR_LIMIT = 20_000;
/** Submodule git dirs (`<common>/modules/…`) read at most, and how deep their names nest. */
export const SUBMODULE_LIMIT = 100;
const SUBMODULE_DEPTH = 8;
/** Entries the submodule walk looks at most. */
const SUBMODULE_ENTRY_LIMIT = 5_000;
/** The whole snapshot's time budget. */
export const SNAPSHOT_BUDGET_MS = 10_000;
/** Config files and hooks larger than this are compared by size and time, not content. */
const FILE_HASH_CAP = 1024 * 1024;
const INCLUDE_DEPTH = 3;
/** Directories the `.env*` walk never enters. */
const ENV_SKIP_DIRS = new Set(['.git', 'node_modules']);

/**
 * Files at the worktree's root that tools on the host run when the user
 * types their everyday command, or open the folder: make, npm (package.json,
 * by its `scripts` alone, since dependencies change all the time), the
 * editor's tasks, launch configs and settings, pre-commit (run by its git
 * hook), mise and just.
 */
export const TASK_FILES = [
  'GNUmakefile',
  'makefile',
  'Makefile',
  'package.json',
  '.vscode/tasks.json',
  '.vscode/launch.json',
  '.vscode/settings.json',
  '.pre-commit-config.yaml',
  'mise.toml',
  '.mise.toml',
  'justfile',
  'Justfile',
] as const;
/** How package.json's entry reads in the report. */
const PACKAGE_SCRIPTS_LABEL = 'package.json "scripts"';

export interface SnapshotScope {
  /** This session's worktree (its `/workspace`). */
  worktreeDir: string;
  /** The repository's shared git dir; null outside git. */
  commonGitDir: string | null;
  /** Where a followed include or a hooksPath may lie: the box-writable project roots. */
  roots: readonly string[];
  /** For tests; defaults to SNAPSHOT_BUDGET_MS from now. */
  deadline?: number;
  now?: () => number;
}

interface Walk {
  scope: SnapshotScope;
  deadline: number;
  now: () => number;
  unchecked: Set<string>;
  timedOut: boolean;
  /** The submodule git dirs, found once per snapshot; not complete when the walk was cut. */
  submodules?: { dirs: string[]; complete: boolean };
}

function label(walk: Walk, p: string): string {
  const rel = path.relative(walk.scope.worktreeDir, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

function outOfTime(walk: Walk, what: string): boolean {
  if (walk.timedOut) return true;
  if (walk.now() <= walk.deadline) return false;
  walk.timedOut = true;
  walk.unchecked.add(
    `everything after ${what} (the ${SNAPSHOT_BUDGET_MS / 1000} s budget ran out)`,
  );
  return true;
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function listDir(p: string): string[] | null {
  const stat = lstatOrNull(p);
  if (stat === null || !stat.isDirectory()) return null;
  try {
    return readdirSync(p).sort();
  } catch {
    return null;
  }
}

export function fileState(p: string, stat: Stats): FileState {
  if (stat.isSymbolicLink()) {
    try {
      return { kind: 'symlink', target: readlinkSync(p) };
    } catch {
      return { kind: 'symlink', target: '?' };
    }
  }
  if (stat.isDirectory()) return { kind: 'other', what: 'a directory' };
  if (!stat.isFile())
    return { kind: 'other', what: stat.isFIFO() ? 'a FIFO' : 'not a regular file' };
  if (stat.size > FILE_HASH_CAP) return { kind: 'file', digest: `${stat.size}:${stat.mtimeMs}` };
  try {
    const read = readRegularFile(p, FILE_HASH_CAP);
    if (read.kind === 'ok') {
      return { kind: 'file', digest: createHash('sha256').update(read.bytes).digest('hex') };
    }
    if (read.kind === 'not-regular') return { kind: 'other', what: describeNotRegular(read.what) };
    if (read.kind === 'too-large') return { kind: 'file', digest: `${read.size}:${stat.mtimeMs}` };
    return { kind: 'other', what: 'gone while read' };
  } catch (error) {
    return {
      kind: 'other',
      what: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
}

/** The include targets a config names that lie inside the project (others the box cannot write). */
function includeTargets(
  walk: Walk,
  file: string,
  entries: readonly { key: string; value: string | null }[],
): string[] {
  return entries.flatMap((e) => {
    const include =
      e.key === 'include.path' || (e.key.startsWith('includeif.') && e.key.endsWith('.path'));
    if (!include || e.value === null || e.value === '' || e.value.startsWith('~')) return [];
    const target = path.resolve(path.dirname(file), e.value);
    return walk.scope.roots.some((r) => isAncestorOrSelf(r, target)) ? [target] : [];
  });
}

/**
 * The submodules' own git dirs under `<common>/modules`: a directory holding
 * a regular `HEAD` is one (its name may span directories, `lib/x`), and a
 * submodule's own `modules` holds its nested ones. Real directories only,
 * never a link; bounded in count and depth, and the cut is said.
 */
function submoduleGitDirs(walk: Walk, common: string): { dirs: string[]; complete: boolean } {
  walk.submodules ??= findSubmoduleGitDirs(walk, common);
  return walk.submodules;
}

function findSubmoduleGitDirs(walk: Walk, common: string): { dirs: string[]; complete: boolean } {
  const cut = (): { dirs: string[]; complete: boolean } => ({
    dirs: found.sort(),
    complete: false,
  });
  const found: string[] = [];
  const stack = [{ dir: path.join(common, 'modules'), depth: 0 }];
  let visited = 0;
  while (stack.length > 0) {
    const { dir, depth } = stack.pop() as { dir: string; depth: number };
    if (outOfTime(walk, `submodule git dirs in ${label(walk, dir)}`)) return cut();
    for (const name of listDir(dir) ?? []) {
      if (++visited > SUBMODULE_ENTRY_LIMIT) {
        walk.unchecked.add(`submodule git dirs past the first ${SUBMODULE_ENTRY_LIMIT} entries`);
        return cut();
      }
      const p = path.join(dir, name);
      if (!(lstatOrNull(p)?.isDirectory() ?? false)) continue;
      if (lstatOrNull(path.join(p, 'HEAD'))?.isFile() ?? false) {
        if (found.length >= SUBMODULE_LIMIT) {
          walk.unchecked.add(`submodule git dirs beyond the first ${SUBMODULE_LIMIT}`);
          return cut();
        }
        found.push(p);
        stack.push({ dir: path.join(p, 'modules'), depth: depth + 1 });
      } else if (depth < SUBMODULE_DEPTH) {
        stack.push({ dir: p, depth: depth + 1 });
      }
    }
  }
  return { dirs: found.sort(), complete: true };
}

interface QueuedConfig {
  file: string;
  depth: number;
  /**
   * The checkouts a relative core.hooksPath in it resolves against; null for
   * a submodule's config, whose own core.worktree names it.
   */
  bases: string[] | null;
}

/** A linked worktree's gitdir file names as much as this, at most. */
const GITDIR_FILE_CAP = 4096;

/**
 * The checkout of a linked worktree, from its admin dir's `gitdir` file
 * (`<checkout>/.git`, absolute or relative to the admin dir). Null when the
 * file is missing, odd or not one line.
 */
function linkedCheckout(admin: string): string | null {
  let read;
  try {
    read = readRegularFile(path.join(admin, 'gitdir'), GITDIR_FILE_CAP);
  } catch {
    return null;
  }
  if (read.kind !== 'ok') return null;
  const line = read.bytes.toString('utf8').replace(/\r?\n$/, '');
  if (line === '' || line.includes('\n') || line.includes('\0')) return null;
  return path.dirname(path.resolve(admin, line));
}

/**
 * A submodule's checkout: git records it as core.worktree in the
 * submodule's own config, relative to that git dir. Without it git takes the
 * checkout from where it runs, which a git dir alone does not tell; this
 * session's worktree stands in.
 */
function submoduleCheckout(
  file: string,
  entries: readonly { key: string; value: string | null }[],
  fallback: string,
): string {
  const worktree = entries.filter((e) => e.key === 'core.worktree').at(-1)?.value;
  if (worktree === undefined || worktree === null || worktree === '') return fallback;
  return path.resolve(path.dirname(file), worktree);
}

function readConfigs(walk: Walk): Category<ConfigState> {
  const common = walk.scope.commonGitDir;
  const items: Record<string, ConfigState> = {};
  if (common === null) return { items, complete: true };
  const own = walk.scope.worktreeDir;
  const main = mainWorktreeFor(common) ?? own;
  const submodules = submoduleGitDirs(walk, common);
  const admins = listDir(path.join(common, 'worktrees')) ?? [];
  let complete = submodules.complete;
  if (admins.length > WORKTREE_CONFIG_LIMIT) {
    complete = false;
    walk.unchecked.add(
      `the config.worktree of ${admins.length - WORKTREE_CONFIG_LIMIT} worktrees (over ${WORKTREE_CONFIG_LIMIT})`,
    );
  }
  const linked = admins.slice(0, WORKTREE_CONFIG_LIMIT).map((a) => {
    const admin = path.join(common, 'worktrees', a);
    return { admin, checkout: linkedCheckout(admin) ?? own };
  });
  // The shared config applies in every checkout: the main one, each linked
  // one, and this session's (which is one of them, or stands in for them).
  const everywhere = [...new Set([own, main, ...linked.map((l) => l.checkout)])];
  const files: QueuedConfig[] = [
    { file: path.join(common, 'config'), depth: 0, bases: everywhere },
    // The common dir's config.worktree is the main checkout's own.
    { file: path.join(common, 'config.worktree'), depth: 0, bases: [main] },
  ];
  for (const sub of submodules.dirs) {
    files.push({ file: path.join(sub, 'config'), depth: 0, bases: null });
  }
  for (const { admin, checkout } of linked) {
    files.push({ file: path.join(admin, 'config.worktree'), depth: 0, bases: [checkout] });
  }
  const queue = files;
  const seen = new Set<string>();
  while (queue.length > 0) {
    const { file, depth, bases: given } = queue.shift() as QueuedConfig;
    if (seen.has(file)) continue;
    seen.add(file);
    if (outOfTime(walk, `git config ${label(walk, file)}`)) return { items, complete: false };
    let read;
    try {
      read = readRegularFile(file, FILE_HASH_CAP);
    } catch (error) {
      items[label(walk, file)] = {
        kind: 'unreadable',
        why: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      };
      continue;
    }
    if (read.kind === 'missing') continue;
    if (read.kind !== 'ok') {
      items[label(walk, file)] = {
        kind: 'unreadable',
        why:
          read.kind === 'too-large'
            ? `over ${FILE_HASH_CAP} bytes`
            : `it is ${describeNotRegular(read.what)}`,
      };
      continue;
    }
    const parsed = parseGitConfig(read.bytes.toString('utf8'));
    if (!parsed.ok) {
      items[label(walk, file)] = {
        kind: 'unreadable',
        why: `line ${parsed.line}: ${parsed.message}`,
      };
      continue;
    }
    const bases = given ?? [submoduleCheckout(file, parsed.entries, own)];
    items[label(walk, file)] = {
      kind: 'entries',
      entries: parsed.entries
        .filter(isExecRelevant)
        .map((e) => (e.value === null ? e.key : `${e.key}=${e.value}`))
        .sort(),
      hooksBases: bases,
    };
    if (depth < INCLUDE_DEPTH) {
      for (const target of includeTargets(walk, file, parsed.entries)) {
        queue.push({ file: target, depth: depth + 1, bases });
      }
    }
  }
  return { items, complete };
}

/** `<common>/hooks` and every core.hooksPath (before or after) that lies inside the project. */
function hookDirs(walk: Walk, configs: readonly Category<ConfigState>[]): string[] {
  const common = walk.scope.commonGitDir;
  if (common === null) return [];
  const dirs = [path.join(common, 'hooks')];
  for (const sub of submoduleGitDirs(walk, common).dirs) dirs.push(path.join(sub, 'hooks'));
  for (const c of configs) {
    for (const state of Object.values(c.items)) {
      if (state.kind !== 'entries') continue;
      for (const e of state.entries) {
        if (!e.startsWith('core.hookspath=')) continue;
        const value = e.slice('core.hookspath='.length);
        if (value === '' || value.startsWith('~')) continue;
        for (const base of state.hooksBases) {
          const dir = path.resolve(base, value);
          if (walk.scope.roots.some((r) => isAncestorOrSelf(r, dir))) dirs.push(dir);
        }
      }
    }
  }
  return [...new Set(dirs)];
}

function readHooks(walk: Walk, dirs: readonly string[]): Category<FileState> {
  const items: Record<string, FileState> = {};
  let seen = 0;
  for (const dir of dirs) {
    const stat = lstatOrNull(dir);
    if (stat === null) continue;
    if (!stat.isDirectory()) {
      items[label(walk, dir)] = fileState(dir, stat);
      continue;
    }
    for (const name of listDir(dir) ?? []) {
      if (name.endsWith('.sample')) continue;
      if (++seen > HOOK_ENTRY_LIMIT) {
        walk.unchecked.add(`hooks beyond the first ${HOOK_ENTRY_LIMIT}`);
        return { items, complete: false };
      }
      const p = path.join(dir, name);
      if (outOfTime(walk, `hook ${label(walk, p)}`)) return { items, complete: false };
      const s = lstatOrNull(p);
      if (s !== null) items[label(walk, p)] = fileState(p, s);
    }
  }
  return { items, complete: true };
}

function readEnvFiles(walk: Walk): Category<FileState> {
  const items: Record<string, FileState> = {};
  const stack = [walk.scope.worktreeDir];
  let dirs = 0;
  let files = 0;
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    if (++dirs > ENV_DIR_LIMIT) {
      walk.unchecked.add(`.env files below the first ${ENV_DIR_LIMIT} directories`);
      return { items, complete: false };
    }
    if (outOfTime(walk, `.env files in ${label(walk, dir)}`)) return { items, complete: false };
    for (const name of listDir(dir) ?? []) {
      const p = path.join(dir, name);
      const stat = lstatOrNull(p);
      if (stat === null) continue;
      if (stat.isDirectory()) {
        if (!ENV_SKIP_DIRS.has(name)) stack.push(p);
        continue;
      }
      if (!name.startsWith('.env')) continue;
      if (++files > ENV_FILE_LIMIT) {
        walk.unchecked.add(`.env files beyond the first ${ENV_FILE_LIMIT}`);
        return { items, complete: false };
      }
      items[label(walk, p)] = fileState(p, stat);
    }
  }
  return { items, complete: true };
}

/**
 * package.json compared by its `scripts` alone: the digest of their
 * canonical JSON, or of the whole file when it is not a JSON object (then
 * any edit shows).
 */
function packageScriptsState(p: string, stat: Stats): FileState {
  if (!stat.isFile() || stat.size > FILE_HASH_CAP) return fileState(p, stat);
  let read;
  try {
    read = readRegularFile(p, FILE_HASH_CAP);
  } catch {
    return fileState(p, stat);
  }
  if (read.kind !== 'ok') return fileState(p, stat);
  const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return { kind: 'file', digest: sha(read.bytes) };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { kind: 'file', digest: sha(read.bytes) };
  }
  const scripts = (parsed as Record<string, unknown>)['scripts'] ?? null;
  return { kind: 'file', digest: `scripts:${sha(canonicalJson(scripts))}` };
}

/** JSON with object keys sorted, so a reordered but equal value digests the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The task files at the worktree's root. A directory on the way (`.vscode`)
 * is entered only when it is a real directory; a link or anything else there
 * is reported under its own name, since the editor would follow it.
 */
function readTaskFiles(walk: Walk): Category<FileState> {
  const items: Record<string, FileState> = {};
  const root = walk.scope.worktreeDir;
  for (const rel of TASK_FILES) {
    if (outOfTime(walk, `task file ${rel}`)) return { items, complete: false };
    const parts = rel.split('/');
    let dir = root;
    let blocked = false;
    for (const part of parts.slice(0, -1)) {
      const p = path.join(dir, part);
      const stat = lstatOrNull(p);
      if (stat === null) {
        blocked = true;
        break;
      }
      if (!stat.isDirectory()) {
        items[label(walk, p)] = fileState(p, stat);
        blocked = true;
        break;
      }
      dir = p;
    }
    if (blocked) continue;
    const p = path.join(root, rel);
    const stat = lstatOrNull(p);
    if (stat === null) continue;
    if (rel === 'package.json') items[PACKAGE_SCRIPTS_LABEL] = packageScriptsState(p, stat);
    else items[label(walk, p)] = fileState(p, stat);
  }
  return { items, complete: true };
}

/**
 * One snapshot of the tree. `hooksFrom` adds the hooksPath directories the
 * other snapshot's configs named, so a hooksPath set (or unset) during the
 * session is read on both sides.
 */
export function takeSnapshot(
  scope: SnapshotScope,
  hooksFrom: readonly Category<ConfigState>[] = [],
): TreeSnapshot {
  const now = scope.now ?? Date.now;
  const walk: Walk = {
    scope,
    deadline: scope.deadline ?? now() + SNAPSHOT_BUDGET_MS,
    now,
    unchecked: new Set(),
    timedOut: false,
  };
  const configs = readConfigs(walk);
  const read = readHooks(walk, hookDirs(walk, [configs, ...hooksFrom]));
  // A cut submodule walk leaves some submodules' hooks unread: not "deleted".
  const hooks = { ...read, complete: read.complete && (walk.submodules?.complete ?? true) };
  const envFiles = readEnvFiles(walk);
  const taskFiles = readTaskFiles(walk);
  return { configs, hooks, envFiles, taskFiles, unchecked: [...walk.unchecked] };
}
