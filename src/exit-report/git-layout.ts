// Where the host's git goes from a checkout, worked out from git's own files
// the way git's setup code works it out (adr/0048), so the exit report reads
// what git would read and names every pointer on the way:
// - in a checkout, `.git` is a file whose `gitdir: ` line names the git dir,
//   or a directory that is one; when neither holds, git takes the checkout
//   itself as a repository if it has a valid HEAD, `objects` and `refs`;
// - a git dir's `commondir` file names the directory that holds the
//   repository's `config`, `hooks`, `objects` and `refs` (relative to the git
//   dir; git's realpath resolves it), while `config.worktree` stays in the
//   git dir itself;
// - a linked worktree's admin dir (`<common>/worktrees/<name>`) records its
//   checkout in `gitdir`; submodules keep their git dirs under `modules`.
// The box writes all of these. Pointer files are parsed by git's rules (pure
// functions here); links are followed only inside the project's trees
// (WithinRoots), and a pointer that leads anywhere else is reported, never
// read through. Runs no git.

import path from 'node:path';

import { describeNotRegular } from '../host/read-regular.js';
import { commonDirOfWorktreeGitdir, mainWorktreeFor } from '../project/worktree.js';
import type { PointerState } from './report.js';
import type { WithinRoots } from './within-roots.js';

/** Pointer files byre reads at most this much of; git's own `.git` file limit is 1 MiB. */
const POINTER_CAP = 64 * 1024;
/** git reads this much of `HEAD` to decide whether a directory is a repository. */
const HEAD_PREFIX = 255;
/** Linked worktrees' admin dirs read at most. */
const WORKTREE_ADMIN_LIMIT = 100;
/** Submodule git dirs read at most, how deep their names nest, and entries looked at. */
export const SUBMODULE_LIMIT = 100;
const SUBMODULE_DEPTH = 8;
const SUBMODULE_ENTRY_LIMIT = 5_000;

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function withoutTrailingNewlines(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  return bytes.subarray(0, end);
}

/** git's C string: what comes before the first NUL. */
function cString(bytes: Buffer): Buffer {
  const nul = bytes.indexOf(0);
  return nul === -1 ? bytes : bytes.subarray(0, nul);
}

function utf8(bytes: Buffer): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

type PointerValue =
  | { kind: 'path'; value: string }
  /** git stops with an error on this file (`why`): it reads nothing through it. */
  | { kind: 'refused'; why: string }
  /** A path git would take, but not text byre can carry as a path. */
  | { kind: 'not-utf8' };

/**
 * The git dir a `.git` file names, read as git reads it: the file starts
 * with exactly `gitdir: `, trailing CR and LF are dropped, and the path is
 * the rest up to a NUL (inner spaces and newlines are part of it). Pure.
 */
function gitfileTarget(bytes: Buffer): PointerValue {
  if (!cString(bytes).subarray(0, 8).equals(Buffer.from('gitdir: '))) {
    return { kind: 'refused', why: 'it does not start with "gitdir: "' };
  }
  const text = withoutTrailingNewlines(bytes);
  if (text.length < 9) return { kind: 'refused', why: 'it names no path' };
  const value = utf8(cString(text.subarray(8)));
  return value === null ? { kind: 'not-utf8' } : { kind: 'path', value };
}

/**
 * The directory a `commondir` file names, read as git reads it: all of it,
 * trailing CR and LF dropped, up to a NUL; an empty file stops git. Pure.
 */
function commondirTarget(bytes: Buffer): PointerValue {
  if (bytes.length === 0) return { kind: 'refused', why: 'it is empty' };
  const value = utf8(cString(withoutTrailingNewlines(bytes)));
  return value === null ? { kind: 'not-utf8' } : { kind: 'path', value };
}

/** Where a pointer's path leads from the directory it is relative to (git: not absolute, prefix `base/`). */
function pointerPath(base: string, value: string): string {
  return value.startsWith('/') ? value : `${base}/${value}`;
}

/**
 * git's test of a `HEAD` it reads the first 255 bytes of: a symbolic ref
 * (`ref:`, spaces, `refs/…`) or an object name (40 hex digits, which a
 * SHA-256 name starts with too). Pure.
 */
function headTextIsValid(bytes: Buffer): boolean {
  const text = cString(bytes.subarray(0, HEAD_PREFIX)).toString('latin1');
  return /^ref:[ \t\n\r]*refs\//.test(text) || /^[0-9a-fA-F]{40}/.test(text);
}

/** One git dir git may use, and the directories it reads through it. */
export interface GitSite {
  /** Canonical. */
  gitDir: string;
  /** Its common dir, canonical; null when git reads nothing through it or byre did not follow it. */
  commonDir: string | null;
  /** Where its hooks run and a relative hooksPath resolves; null for a submodule (its core.worktree says). */
  checkout: string | null;
}

export interface GitLayout {
  /** The git dir the host's git uses in this session's checkout; null when none byre reads. */
  own: GitSite | null;
  /** Display path -> what the pointer is and where it leads. */
  pointers: Record<string, PointerState>;
  sites: GitSite[];
  /** False when some pointer was not followed or a bound cut the walk: absence proves nothing. */
  complete: boolean;
}

interface LayoutInput {
  reader: WithinRoots;
  /** This session's checkout (canonical). */
  worktreeDir: string;
  /** The repository's shared git dir as resolved at launch; null outside git. */
  commonGitDir: string | null;
  label: (p: string) => string;
  unchecked: Set<string>;
  /** True when the time budget ran out; the layout then stops where it is. */
  outOfTime: (what: string) => boolean;
}

interface Layout {
  input: LayoutInput;
  pointers: Record<string, PointerState>;
  sites: Map<string, GitSite>;
  complete: boolean;
  commons: Map<string, string | null>;
}

function notFollowed(layout: Layout, p: string, why: string): void {
  layout.complete = false;
  layout.input.unchecked.add(`what git reads through ${layout.input.label(p)} (${why})`);
}

function fileKind(state: PointerState): string {
  switch (state.kind) {
    case 'symlink':
      return 'a symbolic link; byre does not follow it';
    case 'other':
      return state.what;
    default:
      return 'not a regular file';
  }
}

/**
 * A pointer file's bytes: undefined when absent; null when it is not a
 * regular file byre reads (recorded, and what git reads through it is not
 * checked).
 */
function pointerBytes(layout: Layout, file: string): Buffer | null | undefined {
  const { reader, label } = layout.input;
  const stat = reader.lstat(file);
  if (stat === null) return undefined;
  if (!stat.isFile()) {
    const state = reader.state(file) ?? { kind: 'other', what: 'gone while read' };
    layout.pointers[label(file)] = state;
    notFollowed(layout, file, fileKind(state));
    return null;
  }
  const read = reader.read(file, POINTER_CAP);
  if (read?.kind === 'ok') return read.bytes;
  const why =
    read === null
      ? 'unreadable'
      : read.kind === 'too-large'
        ? `over ${POINTER_CAP} bytes`
        : read.kind === 'not-regular'
          ? describeNotRegular(read.what)
          : 'gone while read';
  layout.pointers[label(file)] = { kind: 'other', what: why };
  notFollowed(layout, file, why);
  return null;
}

/**
 * A pointer file git follows, recorded with where it leads: the directory
 * git would use (resolved inside the project's trees), or null when git
 * reads nothing through it or byre does not follow it; undefined when the
 * file is absent.
 */
function followPointer(
  layout: Layout,
  file: string,
  parse: (bytes: Buffer) => PointerValue,
  base: string,
  meaning: (to: string) => string,
  routine: (to: string) => boolean = () => false,
): string | null | undefined {
  const bytes = pointerBytes(layout, file);
  if (bytes === null || bytes === undefined) return bytes;
  const { reader, label } = layout.input;
  const text = bytes.toString('utf8');
  const record = (m: string, to: string | null = null): void => {
    layout.pointers[label(file)] = {
      kind: 'pointer',
      text,
      meaning: m,
      ...(to !== null && routine(to) ? { routine: true as const } : {}),
    };
  };
  const parsed = parse(bytes);
  if (parsed.kind === 'refused') {
    record(`git stops with an error here: ${parsed.why}`);
    return null;
  }
  if (parsed.kind === 'not-utf8') {
    record('a path that is not UTF-8; byre does not follow it');
    notFollowed(layout, file, 'a path that is not UTF-8');
    return null;
  }
  const resolved = reader.resolve(pointerPath(base, parsed.value));
  switch (resolved.kind) {
    case 'inside':
      record(meaning(label(resolved.path)), resolved.path);
      return resolved.path;
    case 'outside':
      record(`${meaning(resolved.path)}, outside the project`);
      notFollowed(layout, file, `it leads outside the project, to ${resolved.path}`);
      return null;
    case 'broken':
      record(`git stops with an error here: ${resolved.why}`);
      return null;
  }
}

/** The common dir git uses for `gitDir` (its `commondir`, else itself); null when not followed. Memoized. */
function commonDirOf(layout: Layout, gitDir: string): string | null {
  const known = layout.commons.get(gitDir);
  if (known !== undefined) return known;
  const named = followPointer(
    layout,
    path.join(gitDir, 'commondir'),
    commondirTarget,
    gitDir,
    (to) => `git’s common dir: ${to}`,
    // git writes `../..` in a linked worktree's admin dir: the repository it lives in.
    (to) => to === commonDirOfWorktreeGitdir(gitDir),
  );
  const common = named === undefined ? gitDir : named;
  layout.commons.set(gitDir, common);
  return common;
}

/** git's `is_git_directory`: a valid HEAD, and `objects` and `refs` it may search in the common dir. */
function isGitDirectory(layout: Layout, dir: string): boolean {
  const { reader } = layout.input;
  const head = path.join(dir, 'HEAD');
  const stat = reader.lstat(head);
  if (stat === null) return false;
  if (stat.isSymbolicLink()) {
    if (!(reader.readlink(head)?.startsWith('refs/') ?? false)) return false;
  } else {
    const read = reader.head(head, HEAD_PREFIX);
    if (read?.kind !== 'ok' || !headTextIsValid(read.bytes)) return false;
  }
  const common = commonDirOf(layout, dir);
  if (common === null) return false;
  return ['objects', 'refs'].every((name) => {
    const found = reader.resolve(path.join(common, name));
    return found.kind === 'inside' && reader.executable(found.path);
  });
}

function addSite(layout: Layout, gitDir: string, checkout: string | null): void {
  if (layout.sites.has(gitDir)) return;
  layout.sites.set(gitDir, { gitDir, commonDir: commonDirOf(layout, gitDir), checkout });
}

/**
 * git's discovery in `checkout`: its `.git` (a file's gitdir, or the
 * directory), and the checkout itself as a repository when `.git` is absent
 * or a directory git does not take. Returns the git dir git uses there, or
 * null when it uses none byre reads (git stops with an error, looks above
 * the checkout, or follows a link byre does not). A `.git` directory or file
 * target is read even when git would not take it (it is where the
 * repository was), so the report shows what changed there.
 */
function discover(layout: Layout, checkout: string): string | null {
  const { reader, label } = layout.input;
  const dotGit = path.join(checkout, '.git');
  const stat = reader.lstat(dotGit);
  let own: string | null = null;
  let bare = stat === null;
  if (stat?.isDirectory() === true) {
    const taken = isGitDirectory(layout, dotGit);
    layout.pointers[label(dotGit)] = {
      kind: 'other',
      what: taken ? 'a directory' : 'a directory git does not take for a repository',
    };
    addSite(layout, dotGit, checkout);
    if (taken) own = dotGit;
    bare = !taken;
  } else if (stat?.isFile() === true) {
    const gitDir = followPointer(
      layout,
      dotGit,
      gitfileTarget,
      checkout,
      (to) => `git’s dir: ${to}`,
    );
    if (gitDir !== null && gitDir !== undefined) {
      addSite(layout, gitDir, checkout);
      // git stops with an error when the file names no repository.
      if (isGitDirectory(layout, gitDir)) own = gitDir;
    }
  } else if (stat !== null) {
    const state = reader.state(dotGit) ?? { kind: 'other', what: 'gone while read' };
    layout.pointers[label(dotGit)] = state;
    // A link is followed by git; anything else stops it.
    if (stat.isSymbolicLink()) notFollowed(layout, dotGit, fileKind(state));
  }
  if (bare && isGitDirectory(layout, checkout)) {
    layout.pointers[label(path.join(checkout, 'HEAD'))] = {
      kind: 'other',
      what: 'git takes the checkout itself for a repository',
    };
    addSite(layout, checkout, checkout);
    own = checkout;
  }
  return own;
}

/**
 * A linked worktree's checkout, from its admin dir's `gitdir` file
 * (`<checkout>/.git`, relative to the admin dir or absolute): recorded as a
 * pointer, and used only to place a relative hooksPath, never read through
 * (other worktrees' checkouts are outside this box's reach).
 */
function linkedCheckout(layout: Layout, admin: string): string | null {
  const file = path.join(admin, 'gitdir');
  const bytes = pointerBytes(layout, file);
  if (bytes === null || bytes === undefined) return null;
  const value = commondirTarget(bytes);
  const text = bytes.toString('utf8');
  const { label } = layout.input;
  if (value.kind !== 'path' || value.value.trim() === '') {
    layout.pointers[label(file)] = { kind: 'pointer', text, meaning: 'it names no checkout' };
    return null;
  }
  const dotGit = path.resolve(admin, value.value.trim());
  layout.pointers[label(file)] = {
    kind: 'pointer',
    text,
    meaning: `this worktree’s checkout: ${label(path.dirname(dotGit))}`,
    routine: true,
  };
  return path.dirname(dotGit);
}

/**
 * Submodule git dirs under `<gitDir>/modules`: a real directory holding a
 * regular `HEAD` is one (its name may span directories), and its own
 * `modules` holds nested ones. Links are not followed; bounded.
 */
function findSubmodules(layout: Layout, under: readonly string[]): string[] {
  const { reader, outOfTime, unchecked, label } = layout.input;
  const found: string[] = [];
  const stack = under.map((g) => ({ dir: path.join(g, 'modules'), depth: 0 }));
  let visited = 0;
  const cut = (why: string): string[] => {
    unchecked.add(why);
    layout.complete = false;
    return found;
  };
  while (stack.length > 0) {
    const { dir, depth } = stack.pop() as { dir: string; depth: number };
    if (outOfTime(`submodule git dirs in ${label(dir)}`)) {
      layout.complete = false;
      return found;
    }
    if (depth === 0 && (reader.lstat(dir)?.isSymbolicLink() ?? false)) {
      // git reaches submodules through it (their `.git` files name it).
      const state = reader.state(dir) ?? { kind: 'other', what: 'gone while read' };
      layout.pointers[label(dir)] = state;
      notFollowed(layout, dir, fileKind(state));
      continue;
    }
    for (const name of reader.list(dir) ?? []) {
      if (++visited > SUBMODULE_ENTRY_LIMIT) {
        return cut(`submodule git dirs past the first ${SUBMODULE_ENTRY_LIMIT} entries`);
      }
      const p = path.join(dir, name);
      if (!(reader.lstat(p)?.isDirectory() ?? false)) continue;
      if (reader.lstat(path.join(p, 'HEAD'))?.isFile() ?? false) {
        if (found.length >= SUBMODULE_LIMIT) {
          return cut(`submodule git dirs beyond the first ${SUBMODULE_LIMIT}`);
        }
        found.push(p);
        stack.push({ dir: path.join(p, 'modules'), depth: depth + 1 });
      } else if (depth < SUBMODULE_DEPTH) {
        stack.push({ dir: p, depth: depth + 1 });
      }
    }
  }
  return found.sort();
}

/**
 * Every git dir the host's git may use in this repository's checkouts that
 * the box could reach: this checkout's (by discovery), the main checkout's,
 * each linked worktree's admin dir, and every submodule's; each with the
 * common dir it reads through, and every pointer on the way.
 */
export function gitLayout(input: LayoutInput): GitLayout {
  const layout: Layout = {
    input,
    pointers: {},
    sites: new Map(),
    complete: true,
    commons: new Map(),
  };
  const { reader, worktreeDir, commonGitDir, outOfTime, unchecked } = input;
  const own = discover(layout, worktreeDir);
  if (commonGitDir !== null) {
    const main = mainWorktreeFor(commonGitDir);
    if (main === null) addSite(layout, commonGitDir, worktreeDir);
    else if (main !== worktreeDir && reader.inside(main)) discover(layout, main);
    else if (main !== worktreeDir) addSite(layout, commonGitDir, main);
    const admins = reader.list(path.join(commonGitDir, 'worktrees')) ?? [];
    if (admins.length > WORKTREE_ADMIN_LIMIT) {
      layout.complete = false;
      unchecked.add(
        `the git dirs of ${admins.length - WORKTREE_ADMIN_LIMIT} worktrees (over ${WORKTREE_ADMIN_LIMIT})`,
      );
    }
    for (const name of admins.slice(0, WORKTREE_ADMIN_LIMIT)) {
      const admin = path.join(commonGitDir, 'worktrees', name);
      if (outOfTime(`worktree ${input.label(admin)}`)) {
        layout.complete = false;
        break;
      }
      if (!(reader.lstat(admin)?.isDirectory() ?? false)) continue;
      addSite(layout, admin, linkedCheckout(layout, admin) ?? worktreeDir);
    }
  }
  const owners = [...layout.sites.keys()];
  for (const sub of findSubmodules(layout, owners)) addSite(layout, sub, null);
  return {
    own: own === null ? null : (layout.sites.get(own) ?? null),
    pointers: layout.pointers,
    sites: [...layout.sites.values()],
    complete: layout.complete,
  };
}
