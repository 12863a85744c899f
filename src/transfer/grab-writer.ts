// The host-side writer grab lands through: names claimed under a directory
// descriptor (O_EXCL temps hard-linked to the first free name, mkdir for
// directories; never overwriting, never through a symlink), the tree of one
// grab with a bounded number of directories held open, and the removal of
// everything that grab made when it is stopped. It judges nothing the box
// says; grab.ts and tar-entry.ts do.

import { randomBytes } from 'node:crypto';

import { ByreError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import type { AnchoredDirSync, HeldWriteFile } from '../host/anchored.js';
import { MAX_UNIQUIFY, candidateName, isUnusableName, sanitizeName } from './names.js';

export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** A box-sent name for the terminal: escaped, and cut after 512 characters. */
export function shown(name: string): string {
  return escapeTerminal(name.length > 512 ? `${name.slice(0, 512)}…` : name);
}

// The claim path is synchronous on purpose (AnchoredDirSync's calls): a tree
// is thousands of small files, and each async call is a thread-pool round
// trip that costs more than the syscall it wraps (a 1,000-file grab spent
// most of its time there).

/** Every chunk of `content` into `file`; a failure to read it is the stream's (StreamBroke). */
async function drainInto(file: HeldWriteFile, content: AsyncIterable<unknown>): Promise<void> {
  const chunks = content[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<unknown>;
    try {
      next = await chunks.next();
    } catch (error) {
      throw new StreamBroke(error);
    }
    if (next.done === true) return;
    file.writeAll(next.value as Buffer);
  }
}

/** An exclusive, private temp file in `dir`: its name and the file open for writing. */
export function openTemp(dir: AnchoredDirSync): { name: string; file: HeldWriteFile } {
  for (let i = 0; i < 100; i++) {
    const name = `.byre-tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      return { name, file: dir.createExclusive(name, 0o600) };
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
  throw new ByreError('cannot create a temp file', { rule: 'grab.temp' });
}

/**
 * The first free candidate of `name` from the `from`-th on (`report.pdf`,
 * `report-2.pdf`, …): `claim` takes it or fails with EEXIST. Never replaces
 * anything. A candidate the suffix made too long for the host has no free
 * form either (`grab.no-free-name`, which a tree skips like a refused entry).
 */
export function claimFree(
  name: string,
  from: number,
  claim: (candidate: string) => void,
): { made: string; k: number } {
  for (let k = from; k <= MAX_UNIQUIFY; k++) {
    const candidate = candidateName(name, k);
    try {
      claim(candidate);
      return { made: candidate, k };
    } catch (error) {
      const code = errno(error);
      if (code === 'ENAMETOOLONG') break;
      if (code !== 'EEXIST') throw error;
    }
  }
  throw new ByreError(`no free name for ${escapeTerminal(name)}`, { rule: 'grab.no-free-name' });
}

export function removeTemp(dir: AnchoredDirSync, tmp: string): void {
  try {
    dir.unlink(tmp);
  } catch {
    // Already gone, or the directory went away: nothing of ours is left to remove.
  }
}

/** The name an entry lands under: control characters made `_`, an unusable one `_`. */
function landingName(boxName: string): string {
  const clean = sanitizeName(boxName);
  return isUnusableName(clean) ? '_' : clean;
}

/** Directories held open at once while a tree lands; others are reopened when revisited. */
const OPEN_DIRS = 64;

interface MadeDir {
  /** The key of the directory it was made in ('' for the root). */
  parent: string;
  /** The name it landed under there. */
  name: string;
}

/**
 * The host-side tree writer. Directories are keyed by their path in the
 * box's archive; each is reached from the root through the names this
 * writer made, one O_NOFOLLOW open at a time, so at most OPEN_DIRS
 * descriptors are held however wide the tree.
 */
export class TreeWriter {
  /** Every directory made below the root, in the order made. */
  private readonly made = new Map<string, MadeDir>();
  /** Per directory key, per wanted name, the next uniquify candidate to try. */
  private readonly next = new Map<string, Map<string, number>>();
  private readonly open = new Map<string, AnchoredDirSync>();

  constructor(
    private readonly root: AnchoredDirSync,
    private readonly note: (line: string) => void,
  ) {}

  /** Makes the directory `parts` (and what is missing above it). */
  dir(parts: readonly string[]): void {
    this.keyFor(parts, parts.length);
  }

  /** Lands a file at `parts` from `content`, under a free name in its directory. */
  async file(
    parts: readonly string[],
    mode: number,
    content: AsyncIterable<unknown>,
  ): Promise<void> {
    const key = this.keyFor(parts, parts.length - 1);
    const dir = this.dirAt(key);
    const last = parts[parts.length - 1] ?? '';
    const tmp = openTemp(dir);
    try {
      try {
        await drainInto(tmp.file, content);
        tmp.file.chmod((mode & 0o755) | 0o600);
      } finally {
        tmp.file.close();
      }
      const made = this.claim(key, landingName(last), (c) => dir.link(tmp.name, c));
      this.renamed(last, made);
    } finally {
      removeTemp(dir, tmp.name);
    }
  }

  /** The key of the directory holding the first `depth` of `parts`, made as needed. */
  private keyFor(parts: readonly string[], depth: number): string {
    let key = '';
    for (let i = 0; i < depth; i++) {
      const part = parts[i] ?? '';
      const child = key === '' ? part : `${key}/${part}`;
      if (!this.made.has(child)) {
        const parent = this.dirAt(key);
        const made = this.claim(key, landingName(part), (c) => parent.makeDir(c, 0o755));
        this.renamed(part, made);
        this.made.set(child, { parent: key, name: made });
      }
      key = child;
    }
    return key;
  }

  /** Claims a free form of `wanted` in directory `key`, resuming where its last claim stopped. */
  private claim(key: string, wanted: string, take: (candidate: string) => void): string {
    let tried = this.next.get(key);
    if (tried === undefined) this.next.set(key, (tried = new Map()));
    const { made, k } = claimFree(wanted, tried.get(wanted) ?? 1, take);
    tried.set(wanted, k + 1);
    return made;
  }

  private renamed(boxName: string, made: string): void {
    if (made !== boxName) this.note(`renamed "${shown(boxName)}" → "${escapeTerminal(made)}"`);
  }

  /** The open directory for `key`, reopened from its parent when it is not held. */
  private dirAt(key: string): AnchoredDirSync {
    if (key === '') return this.root;
    const held = this.open.get(key);
    if (held !== undefined) {
      this.open.delete(key);
      this.open.set(key, held);
      return held;
    }
    const at = this.made.get(key);
    if (at === undefined) throw new Error(`tree writer: no directory made for ${key}`);
    const dir = this.dirAt(at.parent).openDir(at.name);
    this.open.set(key, dir);
    for (const [old, d] of this.open) {
      if (this.open.size <= OPEN_DIRS) break;
      this.open.delete(old);
      d.close();
    }
    return dir;
  }

  private release(key: string): void {
    this.open.get(key)?.close();
    this.open.delete(key);
  }

  /**
   * Removes everything below the root that this grab made, deepest first,
   * through the same anchored descriptors (a link swapped in is unlinked,
   * never followed). Returns the directories it could not remove.
   */
  removeAll(): string[] {
    const left: string[] = [];
    for (const key of [...this.made.keys()].reverse()) {
      const at = this.made.get(key);
      if (at === undefined) continue;
      try {
        emptyOfFiles(this.dirAt(key));
      } catch {
        // Swapped or gone; the rmdir below says whether anything is left.
      }
      this.release(key);
      try {
        removeDir(this.dirAt(at.parent), at.name);
      } catch {
        left.push(key);
      }
    }
    emptyOfFiles(this.root);
    return left;
  }

  close(): void {
    for (const key of [...this.open.keys()]) this.release(key);
    this.root.close();
  }
}

/**
 * rmdir of `name` in `dir`: gone already is fine, and a non-directory swapped
 * in for it (a link) is unlinked. Throws when a directory stays (not empty).
 */
export function removeDir(dir: AnchoredDirSync, name: string): void {
  try {
    dir.removeDir(name);
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') return;
    if (code !== 'ENOTDIR') throw error;
    dir.unlink(name);
  }
}

/** Unlinks every entry of `dir` that is not a directory (a link is removed, never followed). */
function emptyOfFiles(dir: AnchoredDirSync): void {
  for (const e of dir.entries()) {
    if (e.isDirectory()) continue;
    try {
      dir.unlink(e.name);
    } catch {
      // Gone already, or turned into a directory: the caller's rmdir reports it.
    }
  }
}

/** Reading the box's stream failed: a malformed archive, or one cut mid-entry. */
export class StreamBroke extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'StreamBroke';
  }
}
