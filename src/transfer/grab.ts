// The host side of grab. The box only says "file" or "directory" and streams
// bytes (the file, or a tar of the tree); every judgement is here, and all of
// it is treated as hostile: writes are anchored at the destination, files are
// written to O_EXCL temps and hard-linked to claim names (never overwriting,
// never through a symlink), entries outside the grabbed root are ignored
// loudly, and links and specials are skipped with a note.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import tar from 'tar-stream';

import { ByreError, RefusedError, UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { AnchoredDir } from './anchored.js';
import { BOX_EXIT, grabSpec, type BoxUser } from './box-scripts.js';
import type { DeliverBox } from './deliver.js';
import { feed } from './stage-writer.js';
import { MAX_UNIQUIFY, candidateName, isUnusableName, sanitizeName } from './names.js';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = constants;

export const WORKSPACE = '/workspace';

/** The box path as the box sees it: relative paths count from /workspace. */
export function boxPathFor(arg: string): string {
  return path.posix.resolve(WORKSPACE, arg);
}

/** The name a grab lands under when the destination is a directory. */
export function defaultGrabName(boxPath: string): string {
  const base = path.posix.basename(boxPath);
  const clean = sanitizeName(base);
  return isUnusableName(clean) || base === '' ? 'box-root' : clean;
}

/** First line of the box's reply: `byre-grab 1 f|d`. */
export function parseGrabHeader(line: string): 'file' | 'dir' {
  if (line === 'byre-grab 1 f') return 'file';
  if (line === 'byre-grab 1 d') return 'dir';
  throw new ByreError(`the box answered grab with "${escapeTerminal(line.slice(0, 80))}"`, {
    rule: 'grab.bad-header',
  });
}

/** Splits off the header line; everything after flows on untouched. */
export class HeaderSplit extends Transform {
  private pending: Buffer | null = Buffer.alloc(0);
  private resolveHeader!: (kind: 'file' | 'dir') => void;
  private rejectHeader!: (error: Error) => void;
  readonly header = new Promise<'file' | 'dir'>((resolve, reject) => {
    this.resolveHeader = resolve;
    this.rejectHeader = reject;
  });

  constructor() {
    super();
    this.header.catch(() => undefined);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.pending === null) return cb(null, chunk);
    const buf = Buffer.concat([this.pending, chunk]);
    const nl = buf.indexOf(0x0a);
    if (nl < 0) {
      if (buf.length > 64) {
        const error = parseError('a header line longer than 64 bytes');
        this.rejectHeader(error);
        return cb(error);
      }
      this.pending = buf;
      return cb();
    }
    this.pending = null;
    try {
      this.resolveHeader(parseGrabHeader(buf.subarray(0, nl).toString('latin1')));
    } catch (error) {
      this.rejectHeader(error as Error);
      return cb(error as Error);
    }
    cb(null, buf.subarray(nl + 1));
  }

  override _flush(cb: TransformCallback): void {
    if (this.pending !== null) this.rejectHeader(parseError('no header'));
    cb();
  }
}

function parseError(why: string): ByreError {
  return new ByreError(`the box's grab reply is malformed: ${why}`, { rule: 'grab.bad-header' });
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
export async function anchorDestination(hostPath: string, name: string): Promise<Anchor> {
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

/** Creates an exclusive temp in `dir`, fills it, and links it to a free name. */
async function claimFile(
  dir: AnchoredDir,
  name: string,
  mode: number,
  fill: (fh: FileHandle) => Promise<void>,
): Promise<string> {
  let tmp = '';
  let fh: FileHandle | null = null;
  for (let i = 0; i < 100 && fh === null; i++) {
    tmp = `.byre-tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      fh = await open(dir.at(tmp), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600);
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
  if (fh === null) throw new ByreError('cannot create a temp file', { rule: 'grab.temp' });
  try {
    try {
      await fill(fh);
      await fh.chmod((mode & 0o755) | 0o600);
    } finally {
      await fh.close();
    }
    for (let k = 1; k <= MAX_UNIQUIFY; k++) {
      const candidate = candidateName(name, k);
      try {
        await link(dir.at(tmp), dir.at(candidate));
        return candidate;
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error;
      }
    }
    throw new ByreError(`no free name for ${escapeTerminal(name)}`, { rule: 'grab.no-free-name' });
  } finally {
    await unlink(dir.at(tmp)).catch(() => undefined);
  }
}

/** mkdir a free name in `dir`. */
async function claimDir(dir: AnchoredDir, name: string): Promise<string> {
  for (let k = 1; k <= MAX_UNIQUIFY; k++) {
    const candidate = candidateName(name, k);
    try {
      await mkdir(dir.at(candidate), 0o755);
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
    const made = await claimFile(dir, wanted, mode, async (fh) => {
      for await (const chunk of content) await fh.write(chunk as Buffer);
    });
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
 * Grabs `boxPath` out of `box` into `dest`. The exec is a single stream; a
 * failure in the box after bytes landed leaves what landed and says so.
 */
export async function grabFromBox(
  box: DeliverBox & BoxUser,
  boxPath: string,
  dest: GrabDestination,
): Promise<GrabResult> {
  const notes: string[] = [];
  const split = new HeaderSplit();
  let landed = '';
  let anchor: Anchor | null = null;

  const consume = async (): Promise<void> => {
    const kind = await split.header;
    if (dest.kind === 'stdout') {
      if (kind !== 'file') {
        throw new UsageError('`-` streams a single file; that box path is a directory', {
          rule: 'grab.stdout-needs-file',
          remedy: 'name a host directory instead of `-`',
        });
      }
      // Not pipeline(): stdout must stay open, and {end:false} pipelines can hang on it.
      for await (const chunk of split) {
        if (!dest.stream.write(chunk)) await once(dest.stream, 'drain');
      }
      return;
    }
    anchor = await anchorDestination(dest.path, defaultGrabName(boxPath));
    const a = anchor;
    if (kind === 'file') {
      const made = await claimFile(a.dir, a.name, 0o644, async (fh) => {
        // Not pipeline(): a write stream that must not close its fd never emits 'close'.
        for await (const chunk of split) await fh.write(chunk as Buffer);
      });
      landed = path.join(a.shownDir, made);
      return;
    }
    const made = await claimDir(a.dir, a.name);
    landed = path.join(a.shownDir, made);
    const tree = new TreeWriter(await a.dir.openDir(made), notes);
    try {
      await extractTree(split, tree, notes);
    } finally {
      await tree.close();
    }
  };

  let consumeError: unknown = null;
  const consuming = consume().catch((error: unknown) => {
    consumeError = error;
    split.destroy();
  });
  let r: { exitCode: number; stderr: string } | null = null;
  let execError: unknown = null;
  try {
    r = await box.handle.execStream(grabSpec(box, boxPath), { stdout: split });
  } catch (error) {
    execError = error;
  }
  await consuming;
  const a = anchor as Anchor | null;
  if (a !== null) await a.dir.close().catch(() => undefined);
  if (r?.exitCode === BOX_EXIT.grabClassify) {
    const said =
      r.stderr
        .trim()
        .split('\n')
        .pop()
        ?.replace(/^byre-grab: /, '') ?? '';
    throw new ByreError(`${escapeTerminal(boxPath)}: ${escapeTerminal(said)}`, {
      rule: 'grab.no-such-path',
    });
  }
  if (consumeError !== null) throw consumeError;
  if (execError !== null || r === null) throw execError;
  if (r.exitCode !== 0) {
    const said = escapeTerminal(r.stderr.trim().split('\n').slice(-3).join('; '));
    throw new GrabIncomplete(
      new ByreError(`the box could not send all of ${escapeTerminal(boxPath)}: ${said}`, {
        rule: 'grab.incomplete',
      }),
      { landed, notes },
    );
  }
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
