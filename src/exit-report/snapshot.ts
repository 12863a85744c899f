// Reads what the exit report compares (adr/0035), directly from the files:
// git's pointers and, through them, every git dir and common dir the host's
// git would use (git-layout.ts, adr/0048), their config files (and the
// includes among them that stay inside the project), the hooks directories,
// the worktree's `.env*` files and its task files (TASK_FILES). The box
// writes all of it, so: no link followed out of the project's trees, no FIFO
// opened, every file and every walk bounded, and a time budget; what is cut
// short is said, never guessed. Runs no git.

import { createHash } from 'node:crypto';
import { listEntries, lstatEntry, type Stats } from '../host/path-view.js';
import path from 'node:path';

import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { gitLayout, type GitLayout, type GitSite } from './git-layout.js';
import { isExecRelevant, parseGitConfig, type GitConfigEntry } from './git-config.js';
import type { Category, ConfigState, FileState, TreeSnapshot } from './report.js';
import { FILE_HASH_CAP, fileState, WithinRoots } from './within-roots.js';

export { SUBMODULE_LIMIT } from './git-layout.js';

/** Bounds from the reference's exit report: hook entries, worktree configs, `.env*` files. */
export const HOOK_ENTRY_LIMIT = 500;
export const ENV_FILE_LIMIT = 200;
/** Directories the `.env*` walk visits at most. */
const ENV_DIR_LIMIT = 20_000;
/** The whole snapshot's time budget. */
export const SNAPSHOT_BUDGET_MS = 10_000;
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
const TASK_FILES = [
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
  /** The repository's shared git dir as resolved at launch; null outside git. */
  commonGitDir: string | null;
  /**
   * The box-writable project trees (canonical): links are followed only
   * inside them, and git's files are read only there. The worktree is always one.
   */
  roots: readonly string[];
  /** For tests; defaults to SNAPSHOT_BUDGET_MS from now. */
  deadline?: number;
  now?: () => number;
}

interface Walk {
  scope: SnapshotScope;
  reader: WithinRoots;
  deadline: number;
  now: () => number;
  unchecked: Set<string>;
  timedOut: boolean;
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
    return lstatEntry(p);
  } catch {
    return null;
  }
}

function listDir(p: string): string[] | null {
  const stat = lstatOrNull(p);
  if (stat === null || !stat.isDirectory()) return null;
  try {
    return listEntries(p).sort();
  } catch {
    return null;
  }
}

/** The include targets a config names: relative to its own directory; `~` ones lie outside the project. */
function includeTargets(file: string, entries: readonly GitConfigEntry[]): string[] {
  return entries.flatMap((e) => {
    const include =
      e.key === 'include.path' || (e.key.startsWith('includeif.') && e.key.endsWith('.path'));
    if (!include || e.value === null || e.value === '' || e.value.startsWith('~')) return [];
    return [e.value.startsWith('/') ? e.value : `${path.dirname(file)}/${e.value}`];
  });
}

/**
 * A submodule's checkout: git records it as core.worktree in the
 * submodule's config, relative to its git dir. Without it git takes the
 * checkout from where it runs, which a git dir alone does not tell; this
 * session's worktree stands in.
 */
function submoduleCheckout(
  gitDir: string,
  entries: readonly GitConfigEntry[],
  fallback: string,
): string {
  const worktree = entries.filter((e) => e.key === 'core.worktree').at(-1)?.value;
  if (worktree === undefined || worktree === null || worktree === '') return fallback;
  return path.resolve(gitDir, worktree);
}

type ConfigRead =
  | { kind: 'entries'; entries: GitConfigEntry[] }
  | { kind: 'unreadable'; why: string }
  | { kind: 'missing' };

/** A config file read as git opens it: through links that stay inside the project's trees. */
function readConfigFile(walk: Walk, file: string): ConfigRead {
  const found = walk.reader.resolve(file);
  if (found.kind === 'outside') {
    return { kind: 'unreadable', why: `it leads outside the project, to ${found.path}` };
  }
  if (found.kind === 'broken') {
    // A path that names nothing there is absent, as git takes it; a link loop is not.
    return walk.reader.lstat(file) === null
      ? { kind: 'missing' }
      : { kind: 'unreadable', why: found.why };
  }
  const read = walk.reader.read(found.path, FILE_HASH_CAP);
  if (read === null) return { kind: 'unreadable', why: 'it cannot be read' };
  if (read.kind === 'missing') return { kind: 'missing' };
  if (read.kind !== 'ok') {
    return {
      kind: 'unreadable',
      why:
        read.kind === 'too-large'
          ? `over ${FILE_HASH_CAP} bytes`
          : `it is ${describeNotRegular(read.what)}`,
    };
  }
  const parsed = parseGitConfig(read.bytes.toString('utf8'));
  if (!parsed.ok) return { kind: 'unreadable', why: `line ${parsed.line}: ${parsed.message}` };
  return { kind: 'entries', entries: parsed.entries };
}

/** The config files git reads for one git dir: the common dir's `config` and its own `config.worktree`. */
function siteConfigs(site: GitSite): string[] {
  if (site.commonDir === null) return [];
  return [path.join(site.commonDir, 'config'), path.join(site.gitDir, 'config.worktree')];
}

/**
 * Every config file git reads through the layout's git dirs, with its
 * includes, each with the checkouts a relative core.hooksPath in it
 * resolves against (every checkout that uses that git dir).
 */
function readConfigs(walk: Walk, layout: GitLayout): Category<ConfigState> {
  const items: Record<string, ConfigState> = {};
  const reads = new Map<string, ConfigRead>();
  const included = new Map<string, string[]>();
  const queue = layout.sites.flatMap(siteConfigs).map((file) => ({ file, depth: 0 }));
  let complete = layout.complete;
  while (queue.length > 0) {
    const { file, depth } = queue.shift() as { file: string; depth: number };
    if (reads.has(file)) continue;
    if (outOfTime(walk, `git config ${label(walk, file)}`)) {
      complete = false;
      break;
    }
    const read = readConfigFile(walk, file);
    reads.set(file, read);
    if (read.kind !== 'entries' || depth >= INCLUDE_DEPTH) continue;
    const targets = includeTargets(file, read.entries).filter(
      (t) => walk.reader.resolve(t).kind === 'inside',
    );
    included.set(file, targets);
    for (const target of targets) queue.push({ file: target, depth: depth + 1 });
  }
  const bases = new Map<string, Set<string>>();
  const addBase = (file: string, base: string, seen = new Set<string>()): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const set = bases.get(file) ?? new Set<string>();
    set.add(base);
    bases.set(file, set);
    for (const child of included.get(file) ?? []) addBase(child, base, seen);
  };
  for (const site of layout.sites) {
    const files = siteConfigs(site);
    const shared = reads.get(files[0] ?? '');
    const checkout =
      site.checkout ??
      submoduleCheckout(
        site.gitDir,
        shared?.kind === 'entries' ? shared.entries : [],
        walk.scope.worktreeDir,
      );
    for (const file of files) addBase(file, checkout);
  }
  for (const [file, read] of reads) {
    if (read.kind === 'missing') continue;
    items[label(walk, file)] =
      read.kind === 'unreadable'
        ? read
        : {
            kind: 'entries',
            entries: read.entries
              .filter(isExecRelevant)
              .map((e) => (e.value === null ? e.key : `${e.key}=${e.value}`))
              .sort(),
            hooksBases: [...(bases.get(file) ?? [])].sort(),
          };
  }
  return { items, complete };
}

/**
 * The hooks directories git runs hooks from, as given (a link in them is
 * resolved when read): each common dir's `hooks`, and every core.hooksPath
 * (before or after) against each checkout it applies in.
 */
function hookDirs(layout: GitLayout, configs: readonly Category<ConfigState>[]): string[] {
  const dirs: string[] = [];
  for (const site of layout.sites) {
    if (site.commonDir !== null) dirs.push(path.join(site.commonDir, 'hooks'));
  }
  for (const c of configs) {
    for (const state of Object.values(c.items)) {
      if (state.kind !== 'entries') continue;
      for (const e of state.entries) {
        if (!e.startsWith('core.hookspath=')) continue;
        const value = e.slice('core.hookspath='.length);
        if (value === '' || value.startsWith('~')) continue;
        for (const base of state.hooksBases) {
          dirs.push(value.startsWith('/') ? value : `${base}/${value}`);
        }
      }
    }
  }
  return [...new Set(dirs)];
}

/** A hook's state; a link inside the trees also carries its target file's digest (git runs that file). */
function hookState(walk: Walk, p: string): FileState | null {
  const state = walk.reader.state(p);
  if (state?.kind !== 'symlink') return state;
  const found = walk.reader.resolve(p);
  if (found.kind !== 'inside') return state;
  const target = walk.reader.state(found.path);
  return target?.kind === 'file' ? { ...state, digest: target.digest } : state;
}

function readHooks(walk: Walk, dirs: readonly string[]): Category<FileState> {
  const items: Record<string, FileState> = {};
  let seen = 0;
  for (const given of dirs) {
    const found = walk.reader.resolve(given);
    if (found.kind === 'broken') continue;
    if (found.kind === 'outside') {
      // A hooksPath named outside the project is the box's to name, not to write;
      // one inside that a link leads out of is news.
      const named = path.resolve(given);
      if (walk.reader.inside(named)) {
        items[label(walk, named)] = {
          kind: 'other',
          what: `it leads outside the project, to ${found.path}; byre does not follow it`,
        };
      }
      continue;
    }
    const dir = found.path;
    const stat = walk.reader.lstat(dir);
    if (stat === null) continue;
    if (!stat.isDirectory()) {
      const state = walk.reader.state(dir);
      if (state !== null) items[label(walk, dir)] = state;
      continue;
    }
    for (const name of walk.reader.list(dir) ?? []) {
      if (name.endsWith('.sample')) continue;
      if (++seen > HOOK_ENTRY_LIMIT) {
        walk.unchecked.add(`hooks beyond the first ${HOOK_ENTRY_LIMIT}`);
        return { items, complete: false };
      }
      const p = path.join(dir, name);
      if (outOfTime(walk, `hook ${label(walk, p)}`)) return { items, complete: false };
      const state = hookState(walk, p);
      if (state !== null) items[label(walk, p)] = state;
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
  const unchecked = new Set<string>();
  const roots = [...new Set([scope.worktreeDir, ...scope.roots])];
  const walk: Walk = {
    scope,
    reader: new WithinRoots(roots, (p, code) => {
      unchecked.add(`${label(walk, p)} (${code})`);
    }),
    deadline: scope.deadline ?? now() + SNAPSHOT_BUDGET_MS,
    now,
    unchecked,
    timedOut: false,
  };
  try {
    return snapshotWith(walk, hooksFrom);
  } finally {
    walk.reader.close();
  }
}

function snapshotWith(walk: Walk, hooksFrom: readonly Category<ConfigState>[]): TreeSnapshot {
  const { scope, unchecked } = walk;
  const layout = gitLayout({
    reader: walk.reader,
    worktreeDir: scope.worktreeDir,
    commonGitDir: scope.commonGitDir,
    label: (p) => label(walk, p),
    unchecked,
    outOfTime: (what) => outOfTime(walk, what),
  });
  const pointers = { items: layout.pointers, complete: layout.complete && !walk.timedOut };
  const configs = readConfigs(walk, layout);
  const read = readHooks(walk, hookDirs(layout, [configs, ...hooksFrom]));
  // A pointer byre did not follow, or a cut walk, leaves some hooks unread: not "deleted".
  const hooks = { ...read, complete: read.complete && layout.complete };
  const envFiles = readEnvFiles(walk);
  const taskFiles = readTaskFiles(walk);
  return { pointers, configs, hooks, envFiles, taskFiles, unchecked: [...unchecked] };
}
