// The session exit report (adr/0035): what changed, between the snapshot
// taken before the box started and the one taken after it ended, among the
// things the host runs or reads later: git's pointers (which git dir and
// common dir the host's git uses, adr/0048), exec-relevant git config, hooks,
// `.env*` files and the worktree's task files (make, npm scripts, the
// editor's tasks, pre-commit, mise). A notice, never a claim of containment.
// Pure: snapshot.ts reads the files.

/** What one file is, enough to tell that it changed. */
export type FileState =
  | { kind: 'file'; digest: string }
  /** `digest`: the file it leads to, when that lies inside the project (a hook git runs through it). */
  | { kind: 'symlink'; target: string; digest?: string }
  | { kind: 'other'; what: string };

/**
 * One of git's pointers (`.git`, a `commondir`, a worktree's `gitdir`): a
 * pointer file's text and what it means for git, or what else is there.
 */
export type PointerState =
  | FileState
  | {
      kind: 'pointer';
      text: string;
      meaning: string;
      /**
       * As git itself writes it when a linked worktree is added (its admin
       * dir's `gitdir`, a `commondir` naming the repository it lives in):
       * appearing or going with its worktree is not news; a change is.
       */
      routine?: true;
    };

/** A git config file: its exec-relevant `key=value` lines, or why it could not be read. */
export type ConfigState =
  | {
      kind: 'entries';
      entries: string[];
      /**
       * Where a relative core.hooksPath in this file points from: every
       * checkout git runs this config's hooks in.
       */
      hooksBases: string[];
    }
  | { kind: 'unreadable'; why: string };

export interface Category<T> {
  /** Display path -> state; an absent file is not in the map. */
  items: Record<string, T>;
  /** False when a bound or the time budget cut the walk: absence then proves nothing. */
  complete: boolean;
}

export interface TreeSnapshot {
  /** git's pointers, by display path (git-layout.ts). */
  pointers: Category<PointerState>;
  configs: Category<ConfigState>;
  hooks: Category<FileState>;
  envFiles: Category<FileState>;
  /** The worktree's task files (TASK_FILES in snapshot.ts); package.json by its scripts alone. */
  taskFiles: Category<FileState>;
  /** What could not be checked, one phrase each. */
  unchecked: string[];
}

interface ReportInput {
  before: TreeSnapshot;
  after: TreeSnapshot;
  /** The worktree was checked out by this session: `.env*` and task files it brought are not news. */
  checkedOutThisSession: boolean;
}

interface ExitReport {
  changes: string[];
  unchecked: string[];
}

/** The most change lines the notice prints; the rest are counted. */
const REPORT_LINE_LIMIT = 30;
const VALUE_SHOWN = 100;

function shown(entry: string): string {
  const eq = entry.indexOf('=');
  const key = eq === -1 ? entry : entry.slice(0, eq);
  if (eq === -1) return `${key} (no value)`;
  const value = entry.slice(eq + 1);
  const cut = value.length > VALUE_SHOWN ? `${value.slice(0, VALUE_SHOWN)}…` : value;
  return `${key} = ${JSON.stringify(cut)}`;
}

function counts(list: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function configChanges(before: Category<ConfigState>, after: Category<ConfigState>): string[] {
  const out: string[] = [];
  const files = [...new Set([...Object.keys(before.items), ...Object.keys(after.items)])].sort();
  for (const file of files) {
    const a = before.items[file];
    const b = after.items[file];
    if (b?.kind === 'unreadable' || a?.kind === 'unreadable') continue;
    if (b === undefined && !after.complete) continue;
    const was = counts(a?.entries ?? []);
    const now = counts(b?.entries ?? []);
    for (const [entry, n] of now) {
      if (n > (was.get(entry) ?? 0)) out.push(`git config ${file}: ${shown(entry)} (added)`);
    }
    for (const [entry, n] of was) {
      if (n > (now.get(entry) ?? 0)) out.push(`git config ${file}: ${shown(entry)} (removed)`);
    }
  }
  return out;
}

function sameFile(a: PointerState, b: PointerState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.digest === b.digest;
  if (a.kind === 'symlink' && b.kind === 'symlink') {
    return a.target === b.target && a.digest === b.digest;
  }
  if (a.kind === 'pointer' && b.kind === 'pointer') {
    return a.text === b.text && a.meaning === b.meaning;
  }
  return a.kind === 'other' && b.kind === 'other' && a.what === b.what;
}

function describe(state: PointerState): string {
  switch (state.kind) {
    case 'file':
      return '';
    case 'symlink':
      return ` (a symbolic link to ${state.target})`;
    case 'other':
      return ` (${state.what})`;
    case 'pointer': {
      const text = state.text.replace(/\r?\n$/, '');
      const cut = text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN)}…` : text;
      return ` = ${JSON.stringify(cut)} (${state.meaning})`;
    }
  }
}

function isRoutine(state: PointerState): boolean {
  return state.kind === 'pointer' && state.routine === true;
}

function fileChanges(
  what: string,
  before: Category<PointerState>,
  after: Category<PointerState>,
): string[] {
  const out: string[] = [];
  const names = [...new Set([...Object.keys(before.items), ...Object.keys(after.items)])].sort();
  for (const name of names) {
    const a = before.items[name];
    const b = after.items[name];
    if (a === undefined && b !== undefined) {
      if (!isRoutine(b)) out.push(`${what} added: ${name}${describe(b)}`);
    } else if (a !== undefined && b === undefined) {
      if (after.complete && !isRoutine(a)) out.push(`${what} deleted: ${name}`);
    } else if (a !== undefined && b !== undefined && !sameFile(a, b)) {
      out.push(`${what} changed: ${name}${describe(b)}`);
    }
  }
  return out;
}

function unreadableNow(before: Category<ConfigState>, after: Category<ConfigState>): string[] {
  return Object.entries(after.items).flatMap(([file, state]) => {
    if (state.kind !== 'unreadable') return [];
    const was = before.items[file];
    return [
      was?.kind === 'unreadable'
        ? `git config ${file} (${state.why})`
        : `git config ${file}, changed into something byre cannot read (${state.why})`,
    ];
  });
}

export function exitReport(input: ReportInput): ExitReport {
  const { before, after } = input;
  const changes = [
    ...fileChanges('git pointer', before.pointers, after.pointers),
    ...configChanges(before.configs, after.configs),
    ...fileChanges('hook', before.hooks, after.hooks),
    ...(input.checkedOutThisSession
      ? []
      : [
          ...fileChanges('.env file', before.envFiles, after.envFiles),
          ...fileChanges('task file', before.taskFiles, after.taskFiles),
        ]),
  ];
  const unchecked = [
    ...new Set([
      ...before.unchecked,
      ...after.unchecked,
      ...unreadableNow(before.configs, after.configs),
    ]),
  ];
  return { changes, unchecked };
}

/**
 * The notice's lines, without the `byre: ` prefix: nothing at all for an
 * untouched tree (and nothing unchecked), else each change (at most
 * REPORT_LINE_LIMIT, then a count), what could not be checked, and what the
 * notice is and is not.
 */
export function exitReportLines(report: ExitReport): string[] {
  if (report.changes.length === 0 && report.unchecked.length === 0) return [];
  const lines: string[] = [];
  if (report.changes.length > 0) {
    lines.push(
      'notice: while this session ran, the box changed things your host may run or read later:',
    );
    lines.push(...report.changes.slice(0, REPORT_LINE_LIMIT).map((c) => `  ${c}`));
    const rest = report.changes.length - REPORT_LINE_LIMIT;
    if (rest > 0) lines.push(`  … and ${rest} more`);
  }
  if (report.unchecked.length > 0) {
    lines.push(`notice: could not check: ${report.unchecked.join('; ')}`);
  }
  if (report.changes.length > 0) {
    lines.push(
      'notice: git runs hooks and configured commands as you, tools read .env files, and make, npm, your editor and pre-commit run task files: look at these before running git or those tools here. byre reports them; it does not block or undo them.',
    );
  }
  return lines;
}
