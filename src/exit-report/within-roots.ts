// Reads what lies inside a set of trees (the box-writable project roots) the
// way a program on the host would reach it, and nothing outside them. A path
// is resolved one component at a time as the kernel resolves it: a link
// inside the trees is followed, `..` applies to what was resolved so far, and
// the resolution stops at the first step that leaves every tree (no file out
// there is ever opened). Reads then open each directory from its tree's root
// with O_NOFOLLOW (host/anchored.ts), so a directory swapped for a link
// after the resolution fails the read instead of redirecting it; files go
// through the no-follow, non-blocking, capped readers of read-regular.ts.

import { createHash } from 'node:crypto';
import path from 'node:path';

import { isAncestorOrSelf } from '../project/containment.js';
import {
  describeNotRegular,
  readRegularFile,
  readRegularHead,
  type RegularRead,
} from '../host/read-regular.js';
import { AnchoredDirSync } from '../host/anchored.js';
import { listEntries, lstatEntry, maySearch, readLink, type Stats } from '../host/path-view.js';
import type { FileState } from './report.js';

/** Links followed in one resolution at most (Linux's own limit). */
const LINK_LIMIT = 40;
/** Files larger than this are compared by size and time, not content. */
export const FILE_HASH_CAP = 1024 * 1024;

type Resolution =
  /** Canonical, inside a tree; its last component may not exist. */
  | { kind: 'inside'; path: string }
  /** It leaves every tree at `path`; not followed further. */
  | { kind: 'outside'; path: string }
  /** No program could reach anything there: a missing or non-directory component, a link loop. */
  | { kind: 'broken'; why: string };

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'error';
}

/** Gone, or not there any more as a directory on the way: not an error to report. */
function isAbsence(code: string): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** What a file is, enough to tell that it changed; `at` is a path to reach it by (maybe /proc/self/fd/N/name). */
export function fileState(at: string, stat: Stats): FileState {
  if (stat.isSymbolicLink()) {
    try {
      return { kind: 'symlink', target: readLink(at) };
    } catch {
      return { kind: 'symlink', target: '?' };
    }
  }
  if (stat.isDirectory()) return { kind: 'other', what: 'a directory' };
  if (!stat.isFile())
    return { kind: 'other', what: stat.isFIFO() ? 'a FIFO' : 'not a regular file' };
  if (stat.size > FILE_HASH_CAP) return { kind: 'file', digest: `${stat.size}:${stat.mtimeMs}` };
  try {
    const read = readRegularFile(at, FILE_HASH_CAP);
    if (read.kind === 'ok') {
      return { kind: 'file', digest: createHash('sha256').update(read.bytes).digest('hex') };
    }
    if (read.kind === 'not-regular') return { kind: 'other', what: describeNotRegular(read.what) };
    if (read.kind === 'too-large') return { kind: 'file', digest: `${read.size}:${stat.mtimeMs}` };
    return { kind: 'other', what: 'gone while read' };
  } catch (error) {
    return { kind: 'other', what: `unreadable (${errnoOf(error)})` };
  }
}

/** Directories one reader keeps open at most. */
const OPEN_DIR_LIMIT = 64;

/** The first component from `root` down to `dir` that is a link now, to name a failed open. */
function firstLink(root: string, dir: string): string | null {
  let at = root;
  for (const part of path.relative(root, dir).split(path.sep)) {
    if (part === '') continue;
    at = path.join(at, part);
    try {
      const stat = lstatEntry(at);
      if (stat.isSymbolicLink()) return at;
      if (!stat.isDirectory()) return null;
    } catch {
      return null;
    }
  }
  return null;
}

export class WithinRoots {
  /**
   * `roots` must be canonical (no link in them); `onError` hears of every
   * read that failed for a reason other than absence (a permission, a link
   * swapped in since the resolution), with the path and the errno code.
   */
  constructor(
    readonly roots: readonly string[],
    private readonly onError: (p: string, code: string) => void = () => undefined,
  ) {}

  inside(p: string): boolean {
    return this.roots.some((r) => isAncestorOrSelf(r, p));
  }

  /** `p` is a directory on the way down to a tree: a real directory, since the roots are canonical. */
  private onTheWay(p: string): boolean {
    return this.roots.some((r) => isAncestorOrSelf(p, r));
  }

  /**
   * Where a program opening `p` (absolute) would land, resolved as the
   * kernel and git's realpath do; never past the trees. A missing last
   * component is allowed (it resolves to where it would be).
   */
  resolve(p: string): Resolution {
    if (!path.isAbsolute(p)) return { kind: 'broken', why: `${p} is not absolute` };
    const pending = p.split('/').reverse();
    let at = '/';
    let links = 0;
    while (pending.length > 0) {
      const part = pending.pop() as string;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        at = path.dirname(at);
        continue;
      }
      const next = path.join(at, part);
      if (!this.inside(next)) {
        if (this.onTheWay(next)) {
          at = next;
          continue;
        }
        return { kind: 'outside', path: path.join(next, ...[...pending].reverse()) };
      }
      let stat: Stats;
      try {
        stat = lstatEntry(next);
      } catch (error) {
        const code = errnoOf(error);
        if (!isAbsence(code)) return { kind: 'broken', why: `${next}: ${code}` };
        if (pending.every((q) => q === '' || q === '.')) return { kind: 'inside', path: next };
        return { kind: 'broken', why: `${next} does not exist` };
      }
      if (stat.isSymbolicLink()) {
        if (++links > LINK_LIMIT) return { kind: 'broken', why: `more than ${LINK_LIMIT} links` };
        let target: string;
        try {
          target = readLink(next);
        } catch (error) {
          return { kind: 'broken', why: `${next}: ${errnoOf(error)}` };
        }
        pending.push(...target.split('/').reverse());
        if (path.isAbsolute(target)) at = '/';
        continue;
      }
      if (!stat.isDirectory() && pending.some((q) => q !== '' && q !== '.')) {
        return { kind: 'broken', why: `${next} is not a directory` };
      }
      at = next;
    }
    return this.inside(at) ? { kind: 'inside', path: at } : { kind: 'outside', path: at };
  }

  /** Directories opened so far, by path: a snapshot reopens the same few many times. */
  private readonly open = new Map<string, AnchoredDirSync>();

  /** Closes every directory this reader holds open. */
  close(): void {
    for (const d of this.open.values()) d.close();
    this.open.clear();
  }

  /** `dir` opened from its tree's root one component at a time (each O_NOFOLLOW); kept open. */
  private openDir(dir: string, root: string): AnchoredDirSync {
    const known = this.open.get(dir);
    if (known !== undefined) return known;
    const d =
      dir === root
        ? AnchoredDirSync.open(root)
        : this.openDir(path.dirname(dir), root).openDir(path.basename(dir));
    if (this.open.size >= OPEN_DIR_LIMIT) {
      const [oldest, handle] = this.open.entries().next().value as [string, AnchoredDirSync];
      handle.close();
      this.open.delete(oldest);
    }
    this.open.set(dir, d);
    return d;
  }

  /**
   * Runs `use` on directory `dir` (canonical, inside a tree), opened from the
   * outermost tree holding it one component at a time, never through a link.
   * Null when it is not there; other failures are told to onError.
   */
  private inDir<T>(dir: string, use: (d: AnchoredDirSync) => T): T | null {
    const root = this.roots
      .filter((r) => isAncestorOrSelf(r, dir))
      .sort((a, b) => a.length - b.length)[0];
    if (root === undefined) {
      this.onError(dir, 'outside the project');
      return null;
    }
    let d: AnchoredDirSync;
    try {
      d = this.openDir(dir, root);
    } catch (error) {
      const code = errnoOf(error);
      // A link where a directory was (O_DIRECTORY|O_NOFOLLOW says ENOTDIR or ELOOP) is news.
      const link = firstLink(root, dir);
      if (link !== null) this.onError(link, 'a symbolic link on the way');
      else if (!isAbsence(code)) this.onError(dir, code);
      return null;
    }
    try {
      return use(d);
    } catch (error) {
      const code = errnoOf(error);
      if (!isAbsence(code)) this.onError(dir, code);
      return null;
    }
  }

  /** Runs `use` on the path that reaches `p`'s last component from its anchored parent. */
  private atEntry<T>(p: string, use: (at: string) => T): T | null {
    return this.inDir(path.dirname(p), (d) => use(d.at(path.basename(p))));
  }

  /** What `p` itself is (a link is not followed); null when it is not there. */
  lstat(p: string): Stats | null {
    return this.atEntry(p, (at) => lstatEntry(at));
  }

  /** `p`'s state for the report; null when it is not there. */
  state(p: string): FileState | null {
    return this.atEntry(p, (at) => fileState(at, lstatEntry(at)));
  }

  /** A regular file's bytes, at most `cap` (readRegularFile); null when it could not be opened. */
  read(p: string, cap: number): RegularRead | null {
    return this.atEntry(p, (at) => readRegularFile(at, cap));
  }

  /** The first `n` bytes of a regular file (readRegularHead). */
  head(p: string, n: number): RegularRead | null {
    return this.atEntry(p, (at) => readRegularHead(at, n));
  }

  /** A link's own target. */
  readlink(p: string): string | null {
    return this.atEntry(p, (at) => readLink(at));
  }

  /** The names in directory `p`, sorted; null when it is not a directory there. */
  list(p: string): string[] | null {
    return this.inDir(p, (d) => listEntries(d.self()).sort());
  }

  /** Whether the user may search or run `p` (access X_OK), as git asks of `objects` and `refs`. */
  executable(p: string): boolean {
    return this.atEntry(p, (at) => maySearch(at)) ?? false;
  }
}
