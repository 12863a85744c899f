// The host side of grab. The box only says "file" or "directory" and streams
// bytes (the file, or a tar of the tree); every judgement is here, and all of
// it is treated as hostile: writes are anchored at the destination, files are
// written to O_EXCL temps and hard-linked to claim names (never overwriting,
// never through a symlink), entries outside the grabbed root are ignored
// loudly, and links and specials are skipped with a note.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  closeSync,
  constants,
  fchmodSync,
  linkSync,
  mkdirSync,
  openSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import tar from 'tar-stream';

import type { StreamResult } from '../engine/engine.js';
import { ByreError, RefusedError, UsageError } from '../errors.js';
import { WORKSPACE } from '../gen/box-layout.js';
import { escapeTerminal } from '../output/escape.js';
import { AnchoredDir } from './anchored.js';
import { BOX_EXIT, grabSpec, grabTreeSpec, type BoxUser } from './box-scripts.js';
import type { DeliverBox } from './deliver-to-box.js';
import { feed } from './stage-writer.js';
import { MAX_UNIQUIFY, candidateName, isUnusableName, sanitizeName } from './names.js';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = constants;

/** The box path as the box sees it: relative paths count from /workspace. */
export function boxPathFor(arg: string): string {
  return path.posix.resolve(WORKSPACE, arg);
}

/** The name a grab lands under when the destination is a directory. */
function defaultGrabName(boxPath: string): string {
  const base = path.posix.basename(boxPath);
  const clean = sanitizeName(base);
  return isUnusableName(clean) || base === '' ? 'box-root' : clean;
}

/** The first line of the box's stderr: `byre-grab 1 f|d`. */
function parseGrabHeader(line: string): 'file' | 'dir' {
  if (line === 'byre-grab 1 f') return 'file';
  if (line === 'byre-grab 1 d') return 'dir';
  throw new ByreError(`the box answered grab with "${escapeTerminal(line.slice(0, 80))}"`, {
    rule: 'grab.bad-header',
  });
}

export type GrabDestination = { kind: 'stdout'; stream: Writable } | { kind: 'path'; path: string };

interface Anchor {
  dir: AnchoredDir;
  name: string;
  shownDir: string;
}

/**
 * Where a grab lands: an existing directory receives `<name>` inside it; a
 * new path is the name itself; an existing file keeps its bytes and the grab
 * lands beside it uniquified. A symlink destination is refused.
 */
async function anchorDestination(hostPath: string, name: string): Promise<Anchor> {
  const resolved = path.resolve(hostPath);
  let st;
  try {
    st = await lstat(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw unusableDestination(hostPath, error);
    const parent = path.dirname(resolved);
    return { dir: await openParent(parent), name: path.basename(resolved), shownDir: parent };
  }
  if (st.isSymbolicLink()) {
    throw new RefusedError(
      `${escapeTerminal(hostPath)} is a symlink; byre never writes through one`,
      {
        rule: 'grab.dest-symlink',
        remedy: 'name the real directory instead',
      },
    );
  }
  if (st.isDirectory()) return { dir: await openParent(resolved), name, shownDir: resolved };
  const parent = path.dirname(resolved);
  return { dir: await openParent(parent), name: path.basename(resolved), shownDir: parent };
}

async function openParent(parent: string): Promise<AnchoredDir> {
  try {
    return await AnchoredDir.open(parent);
  } catch (error) {
    throw unusableDestination(parent, error);
  }
}

/** A destination the host will not let byre use: missing, or not ours to write. */
function unusableDestination(where: string, error: unknown): ByreError {
  const code = errno(error);
  const denied = code === 'EACCES' || code === 'EPERM';
  return new ByreError(`cannot write into ${where}: ${(error as Error).message}`, {
    rule: denied ? 'grab.dest-denied' : 'grab.dest-missing',
    remedy: denied
      ? 'grab into a directory you can write'
      : 'create the directory first, or name an existing one',
  });
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

// The claim path uses synchronous fs calls on purpose: a tree is thousands of
// small files, and each async call is a thread-pool round trip that costs more
// than the syscall it wraps (a 1,000-file grab spent most of its time there).

/** Writes all of `chunk` to `fd`. */
function writeAll(fd: number, chunk: Buffer): void {
  for (let off = 0; off < chunk.length;) off += writeSync(fd, chunk, off);
}

/** Every chunk of `content` into `fd`. */
async function drainInto(fd: number, content: AsyncIterable<unknown>): Promise<void> {
  for await (const chunk of content) writeAll(fd, chunk as Buffer);
}

/** An exclusive, private temp file in `dir`: its name and open descriptor. */
function openTemp(dir: AnchoredDir): { name: string; fd: number } {
  for (let i = 0; i < 100; i++) {
    const name = `.byre-tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      return { name, fd: openSync(dir.at(name), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600) };
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
  throw new ByreError('cannot create a temp file', { rule: 'grab.temp' });
}

/** Hard-links temp `tmp` to the first free form of `name`; never replaces anything. */
function linkToFreeName(dir: AnchoredDir, tmp: string, name: string): string {
  for (let k = 1; k <= MAX_UNIQUIFY; k++) {
    const candidate = candidateName(name, k);
    try {
      linkSync(dir.at(tmp), dir.at(candidate));
      return candidate;
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
  throw new ByreError(`no free name for ${escapeTerminal(name)}`, { rule: 'grab.no-free-name' });
}

function removeTemp(dir: AnchoredDir, tmp: string): void {
  try {
    unlinkSync(dir.at(tmp));
  } catch {
    // Already gone, or the directory went away: nothing of ours is left to remove.
  }
}

/** Fills an exclusive temp in `dir` from `content`, then links it to a free name. */
async function claimFile(
  dir: AnchoredDir,
  name: string,
  mode: number,
  content: AsyncIterable<unknown>,
): Promise<string> {
  const tmp = openTemp(dir);
  try {
    try {
      await drainInto(tmp.fd, content);
      fchmodSync(tmp.fd, (mode & 0o755) | 0o600);
    } finally {
      closeSync(tmp.fd);
    }
    return linkToFreeName(dir, tmp.name, name);
  } finally {
    removeTemp(dir, tmp.name);
  }
}

/** mkdir a free name in `dir`. */
async function claimDir(dir: AnchoredDir, name: string): Promise<string> {
  for (let k = 1; k <= MAX_UNIQUIFY; k++) {
    const candidate = candidateName(name, k);
    try {
      mkdirSync(dir.at(candidate), 0o755);
      return candidate;
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
  throw new ByreError(`no free name for ${escapeTerminal(name)}`, { rule: 'grab.no-free-name' });
}

/**
 * A tar entry name from the box, judged: relative to the grabbed root, with
 * no `..`, no absolute path and no empty component. `null`: the root itself.
 */
export function judgeEntryName(
  raw: string,
): { ok: true; components: string[] | null } | { ok: false; why: string } {
  let name = raw;
  if (name.startsWith('/')) return { ok: false, why: 'an absolute path' };
  while (name.startsWith('./')) name = name.slice(2);
  while (name.endsWith('/')) name = name.slice(0, -1);
  if (name === '' || name === '.') return { ok: true, components: null };
  const parts = name.split('/');
  if (parts.includes('..')) return { ok: false, why: 'outside the grabbed directory' };
  if (parts.some((p) => p === '' || p === '.')) return { ok: false, why: 'a malformed path' };
  return { ok: true, components: parts };
}

/** The host-side tree writer: every directory it made, by original box path. */
class TreeWriter {
  private readonly dirs = new Map<string, { dir: AnchoredDir; names: Map<string, string> }>();

  constructor(
    root: AnchoredDir,
    private readonly notes: string[],
  ) {
    this.dirs.set('', { dir: root, names: new Map() });
  }

  /** The directory for `parts` (original names), creating what is missing. */
  async dirFor(parts: readonly string[]): Promise<AnchoredDir> {
    let key = '';
    let cur = this.dirs.get('');
    if (cur === undefined) throw new Error('tree writer without a root');
    for (const part of parts) {
      const next = key === '' ? part : `${key}/${part}`;
      let child = this.dirs.get(next);
      if (child === undefined) {
        const clean = sanitizeName(part);
        const wanted = isUnusableName(clean) ? '_' : clean;
        const made = await claimDir(cur.dir, wanted);
        if (made !== part)
          this.notes.push(`renamed "${escapeTerminal(part)}" → "${escapeTerminal(made)}"`);
        child = { dir: await cur.dir.openDir(made), names: new Map() };
        cur.names.set(part, made);
        this.dirs.set(next, child);
      }
      cur = child;
      key = next;
    }
    return cur.dir;
  }

  async file(
    parts: readonly string[],
    mode: number,
    content: AsyncIterable<unknown>,
  ): Promise<void> {
    const dir = await this.dirFor(parts.slice(0, -1));
    const last = parts[parts.length - 1] ?? '';
    const clean = sanitizeName(last);
    const wanted = isUnusableName(clean) ? '_' : clean;
    const made = await claimFile(dir, wanted, mode, content);
    if (made !== last)
      this.notes.push(`renamed "${escapeTerminal(last)}" → "${escapeTerminal(made)}"`);
  }

  async close(): Promise<void> {
    for (const [key, d] of this.dirs) if (key !== '') await d.dir.close();
  }
}

export interface GrabResult {
  /** The host path that landed (empty for stdout). */
  landed: string;
  notes: string[];
}

/**
 * Grabs `boxPath` out of `box` into `dest`. A file is one exec whose stdout
 * is an exclusive temp file's descriptor (the engine client writes it; no
 * byte passes through byre), claimed only once the box says it sent it all.
 * A directory takes a second exec streaming a tar, judged entry by entry.
 */
export async function grabFromBox(
  box: DeliverBox & BoxUser,
  boxPath: string,
  dest: GrabDestination,
): Promise<GrabResult> {
  if (dest.kind === 'stdout') return grabToStream(box, boxPath, dest.stream);
  const anchor = await anchorDestination(dest.path, defaultGrabName(boxPath));
  try {
    const tmp = openTemp(anchor.dir);
    let kind: 'file' | 'dir';
    try {
      try {
        const r = await box.handle.execStream(grabSpec(box, boxPath), { stdout: tmp.fd });
        kind = judgeFirstExec(r, boxPath);
        if (kind === 'file') fchmodSync(tmp.fd, 0o644);
      } finally {
        closeSync(tmp.fd);
      }
      if (kind === 'file') {
        const made = linkToFreeName(anchor.dir, tmp.name, anchor.name);
        return { landed: path.join(anchor.shownDir, made), notes: [] };
      }
    } finally {
      removeTemp(anchor.dir, tmp.name);
    }
    return await grabTree(box, boxPath, anchor);
  } finally {
    await anchor.dir.close().catch(() => undefined);
  }
}

/** The first exec's answer: what the path is, or the failure to report (nothing landed). */
function judgeFirstExec(r: StreamResult, boxPath: string): 'file' | 'dir' {
  if (r.exitCode === BOX_EXIT.grabClassify) throw classifyFailure(r, boxPath);
  const kind = headerOf(r);
  if (r.exitCode !== 0) throw incomplete(boxPath, r, '; nothing landed');
  return kind;
}

/** What the first exec said the path is (its stderr's first line). */
function headerOf(r: StreamResult): 'file' | 'dir' {
  return parseGrabHeader(r.stderrHead.split('\n', 1)[0] ?? '');
}

/** The box stopped before sending everything (`also` adds what that meant here). */
function incomplete(boxPath: string, r: StreamResult, also = ''): ByreError {
  const said = escapeTerminal(r.stderr.trim().split('\n').slice(-3).join('; '));
  return new ByreError(`the box could not send all of ${escapeTerminal(boxPath)}${also}: ${said}`, {
    rule: 'grab.incomplete',
  });
}

function classifyFailure(r: StreamResult, boxPath: string): ByreError {
  const said =
    r.stderr
      .trim()
      .split('\n')
      .pop()
      ?.replace(/^byre-grab: /, '') ?? '';
  return new ByreError(`${escapeTerminal(boxPath)}: ${escapeTerminal(said)}`, {
    rule: 'grab.no-such-path',
  });
}

/** `-`: a single file's bytes to a stream (stdout); a directory is refused before any byte. */
async function grabToStream(
  box: DeliverBox & BoxUser,
  boxPath: string,
  stream: Writable,
): Promise<GrabResult> {
  const pass = new PassThrough();
  let consumeError: unknown = null;
  // Not pipeline(): stdout must stay open, and {end:false} pipelines can hang on it.
  const consuming = (async () => {
    for await (const chunk of pass) {
      if (!stream.write(chunk)) await once(stream, 'drain');
    }
  })().catch((error: unknown) => {
    consumeError = error;
    pass.destroy();
  });
  let r: StreamResult;
  try {
    r = await box.handle.execStream(grabSpec(box, boxPath), { stdout: pass });
  } catch (error) {
    pass.destroy();
    throw error;
  } finally {
    await consuming;
  }
  if (consumeError !== null) throw consumeError;
  if (r.exitCode === BOX_EXIT.grabClassify) throw classifyFailure(r, boxPath);
  if (headerOf(r) === 'dir') {
    throw new UsageError('`-` streams a single file; that box path is a directory', {
      rule: 'grab.stdout-needs-file',
      remedy: 'name a host directory instead of `-`',
    });
  }
  if (r.exitCode !== 0) throw incomplete(boxPath, r);
  return { landed: '', notes: [] };
}

/** A directory: its name claimed with mkdir, then its tar from a second exec, entry by entry. */
async function grabTree(
  box: DeliverBox & BoxUser,
  boxPath: string,
  anchor: Anchor,
): Promise<GrabResult> {
  const notes: string[] = [];
  const made = await claimDir(anchor.dir, anchor.name);
  const landed = path.join(anchor.shownDir, made);
  const tree = new TreeWriter(await anchor.dir.openDir(made), notes);
  const stream = new PassThrough();
  let consumeError: unknown = null;
  const consuming = extractTree(stream, tree, notes).catch((error: unknown) => {
    consumeError = error;
    stream.destroy();
  });
  let r: StreamResult | null = null;
  let execError: unknown = null;
  try {
    r = await box.handle.execStream(grabTreeSpec(box, boxPath), { stdout: stream });
  } catch (error) {
    execError = error;
    stream.destroy();
  } finally {
    await consuming;
    await tree.close();
  }
  if (r?.exitCode === BOX_EXIT.grabClassify) {
    throw new GrabIncomplete(classifyFailure(r, boxPath), { landed, notes });
  }
  if (consumeError !== null) throw consumeError;
  if (execError !== null || r === null) throw execError;
  if (r.exitCode !== 0) throw new GrabIncomplete(incomplete(boxPath, r), { landed, notes });
  return { landed, notes };
}

/** A grab that failed after something landed; the command prints both. */
export class GrabIncomplete extends Error {
  constructor(
    readonly error: ByreError,
    readonly result: GrabResult,
  ) {
    super(error.message);
    this.name = 'GrabIncomplete';
  }
}

async function extractTree(
  source: AsyncIterable<unknown>,
  tree: TreeWriter,
  notes: string[],
): Promise<void> {
  const extract = tar.extract();
  const feeding = feed(source, extract);
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const judged = judgeEntryName(h.name);
      if (!judged.ok) {
        notes.push(`ignored "${escapeTerminal(h.name)}" from the box: ${judged.why}`);
        entry.resume();
        continue;
      }
      const parts = judged.components;
      if (h.type === 'directory') {
        if (parts !== null) await tree.dirFor(parts);
        entry.resume();
      } else if (h.type === 'file' || h.type === 'contiguous-file') {
        if (parts === null) {
          notes.push('ignored a file entry naming the grabbed directory itself');
          entry.resume();
          continue;
        }
        await tree.file(parts, h.mode, entry);
      } else {
        const what =
          h.type === 'symlink' ? 'a symlink' : h.type === 'link' ? 'a hard link' : `a ${h.type}`;
        notes.push(`skipped "${escapeTerminal(h.name)}": ${what}`);
        entry.resume();
      }
    }
  } finally {
    await feeding.catch(() => undefined);
  }
  await feeding;
}
