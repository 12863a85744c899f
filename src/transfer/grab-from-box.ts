// The host side of grab. The box only says "file" or "directory" and streams
// bytes (the file, or a tar of the tree); every judgement is here, and all of
// it is treated as hostile (adr/0004): writes are anchored at the
// destination, files are written to O_EXCL temps and hard-linked to claim
// names (never overwriting, never through a symlink), and every entry that
// does not land is named as it is skipped and makes the grab partial (exit 1,
// `grab.partial`). A grab that brings more than its caps (grab-limits.ts), or
// that the host cannot finish writing, stops and removes all it made.
// Over 500 lines: the file and tree grabs share the destination, caps and failure judgement.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import tar from 'tar-stream';

import type { StreamResult } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { ByreError, RefusedError, UsageError } from '../errors.js';
import { WORKSPACE } from '../gen/box-layout.js';
import { escapeTerminal } from '../output/escape.js';
import { AnchoredDirSync, type HeldWriteFile } from '../host/anchored.js';
import { lstatEntry } from '../host/path-view.js';
import { BOX_EXIT, grabSpec, grabStopSpec, grabTreeSpec, type BoxUser } from './box-scripts.js';
import type { DeliverBox } from './deliver-to-box.js';
import type { GrabLimits } from './grab-limits.js';
import {
  StreamBroke,
  TreeWriter,
  claimFree,
  errno,
  openTemp,
  removeDir,
  removeTemp,
  shown,
} from './grab-writer.js';
import { isUnusableName, sanitizeName } from './names.js';
import { formatBytes } from './progress.js';
import { feed } from './stage-writer.js';
import { TarTail, judgeGrabEntry } from './tar-entry.js';

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

const PID_LINE = /^byre-grab pid ([1-9][0-9]{0,9})\n/;

/**
 * The pid a grab script says first on stderr (its process group, which
 * GRAB_STOP_SCRIPT kills); null until that line is whole, or when the first
 * line is not one (1, every process the user has, never is).
 */
function parseGrabPid(stderr: string): number | null {
  const m = PID_LINE.exec(stderr);
  const pid = m === null ? 1 : Number(m[1]);
  return pid > 1 ? pid : null;
}

/** The box's stderr without the pid line: what the box said. */
function boxStderr(stderr: string): string {
  return stderr.replace(PID_LINE, '');
}

/** The first line after the pid on the box's stderr: `byre-grab 1 f|d`. */
function parseGrabHeader(line: string): 'file' | 'dir' {
  if (line === 'byre-grab 1 f') return 'file';
  if (line === 'byre-grab 1 d') return 'dir';
  throw new ByreError(`the box answered grab with "${escapeTerminal(line.slice(0, 80))}"`, {
    rule: 'grab.bad-header',
  });
}

type GrabDestination = { kind: 'stdout'; stream: Writable } | { kind: 'path'; path: string };

interface GrabFromBoxOptions extends GrabLimits {
  /** Each entry that was skipped or renamed, as it happens (names already escaped). */
  note: (line: string) => void;
}

interface Anchor {
  dir: AnchoredDirSync;
  name: string;
  shownDir: string;
}

/**
 * Where a grab lands: an existing directory receives `<name>` inside it; a
 * new path is the name itself; an existing file keeps its bytes and the grab
 * lands beside it uniquified. A symlink destination is refused.
 */
function anchorDestination(hostPath: string, name: string): Anchor {
  const resolved = path.resolve(hostPath);
  let st;
  try {
    st = lstatEntry(resolved);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw unusableDestination(hostPath, error);
    const parent = path.dirname(resolved);
    return { dir: openParent(parent), name: path.basename(resolved), shownDir: parent };
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
  if (st.isDirectory()) return { dir: openParent(resolved), name, shownDir: resolved };
  const parent = path.dirname(resolved);
  return { dir: openParent(parent), name: path.basename(resolved), shownDir: parent };
}

function openParent(parent: string): AnchoredDirSync {
  try {
    return AnchoredDirSync.open(parent);
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

/** A cap stopped the grab: byre read no further and keeps nothing of it. */
class CapReached extends ByreError {}

function capReached(
  what: 'bytes' | 'entries',
  boxPath: string,
  limits: GrabLimits,
  kept: string,
): CapReached {
  const box = escapeTerminal(boxPath);
  return what === 'bytes'
    ? new CapReached(
        `stopped grabbing ${box}: the box sent more than ${formatBytes(limits.maxBytes)}; ${kept}`,
        {
          rule: 'grab.too-large',
          remedy: `if it really is that large, grab it again with a higher cap: byre grab --max-size ${suggestBytes(limits.maxBytes)} …`,
        },
      )
    : new CapReached(
        `stopped grabbing ${box}: the box sent more than ${limits.maxEntries} entries; ${kept}`,
        {
          rule: 'grab.too-many-entries',
          remedy: `if it really holds that many, grab it again with a higher cap: byre grab --max-entries ${limits.maxEntries * 2} …`,
        },
      );
}

/** Twice `max`, rounded up to whole GiB (or MiB below 1 GiB), as `--max-size` spells it. */
function suggestBytes(max: number): string {
  const mib = 1024 * 1024;
  const twice = 2 * max;
  return twice >= 1024 * mib ? `${Math.ceil(twice / (1024 * mib))}G` : `${Math.ceil(twice / mib)}M`;
}

/**
 * Runs one grab script with its stdout into `stdout` and waits for the
 * reader (`consuming`) to finish; an exec that fails destroys the stream, so
 * the reader ends. What the box said, its result and any exec error come back.
 */
async function execInto(
  box: DeliverBox & BoxUser,
  specFor: (mark: string) => ExecSpec,
  stdout: Writable,
  consuming: Promise<unknown>,
  note: (line: string) => void,
): Promise<{ side: BoxSide; r: StreamResult | null; execError: unknown }> {
  const side = new BoxSide(box, note);
  try {
    return {
      side,
      r: await box.handle.execStream(specFor(side.mark), { stdout, onStderr: side.hear }),
      execError: null,
    };
  } catch (error) {
    stdout.destroy();
    return { side, r: null, execError: error };
  } finally {
    await consuming;
  }
}

/**
 * The box's side of one grab exec. Killing the engine client does not stop
 * it: on both engines the exec runs on, and the engine drains what it writes
 * (seen: a `cat /dev/zero` at full speed, with the engine's shim or conmon
 * busy draining it, until the box went away). So when byre stops reading, it
 * kills the process group the exec leads, by the pid its script said first,
 * and every process still carrying the exec's mark (the pid line can arrive
 * after the cap's worth of stdout, or never).
 */
class BoxSide {
  private said = '';
  /** This exec's GRAB_MARK_VAR value. */
  readonly mark = randomBytes(16).toString('hex');

  constructor(
    private readonly box: DeliverBox & BoxUser,
    private readonly note: (line: string) => void,
  ) {}

  /** For `StreamIo.onStderr`: keeps the start, where the pid line is. */
  readonly hear = (chunk: string): void => {
    if (this.said.length < 64) this.said = (this.said + chunk).slice(0, 64);
  };

  /** Kills the exec byre stopped reading (one that already ended has nothing to kill). */
  async stop(): Promise<void> {
    const left = 'what it ran in the box may still be running (it ends with the box)';
    try {
      const r = await this.box.handle.exec(
        grabStopSpec(this.box, parseGrabPid(this.said), this.mark),
      );
      if (r.exitCode !== 0) {
        const said = escapeTerminal(r.stderr.trim().split('\n').slice(-2).join('; '));
        this.note(`could not stop the grab in the box (exit ${r.exitCode}: ${said}); ${left}`);
      }
    } catch (error) {
      this.note(`could not stop the grab in the box: ${(error as Error).message}; ${left}`);
    }
  }
}

/** How often a file grab's size is looked at while the engine client writes it. */
const SIZE_LOOK_MS = 50;

/**
 * Runs `spec` with its stdout on `file` (the engine client writes it; no byte
 * passes through byre) and stops it once the file grows past the cap. The
 * overshoot is what arrives within one look (~50 ms); a file over the cap
 * never lands, since its temp is only claimed after this returns.
 */
async function execToFile(
  box: DeliverBox & BoxUser,
  specFor: (mark: string) => ExecSpec,
  file: HeldWriteFile,
  boxPath: string,
  options: GrabFromBoxOptions,
): Promise<StreamResult> {
  const stop = new AbortController();
  const look = (): void => {
    if (!stop.signal.aborted && file.size() > options.maxBytes)
      stop.abort(capReached('bytes', boxPath, options, 'nothing landed'));
  };
  const side = new BoxSide(box, options.note);
  const timer = setInterval(look, SIZE_LOOK_MS);
  try {
    let r: StreamResult;
    try {
      r = await box.handle.execStream(specFor(side.mark), {
        stdout: file.fd,
        signal: stop.signal,
        onStderr: side.hear,
      });
    } catch (error) {
      if (stop.signal.aborted) await side.stop();
      throw error;
    }
    look();
    if (stop.signal.aborted) throw stop.signal.reason;
    return r;
  } finally {
    clearInterval(timer);
  }
}

interface GrabResult {
  /** The host path that landed (empty for stdout). */
  landed: string;
}

/**
 * Grabs `boxPath` out of `box` into `dest`. A file is one exec whose stdout
 * is an exclusive temp file's descriptor, claimed only once the box says it
 * sent it all. A directory takes a second exec streaming a tar, judged entry
 * by entry.
 */
export async function grabFromBox(
  box: DeliverBox & BoxUser,
  boxPath: string,
  dest: GrabDestination,
  options: GrabFromBoxOptions,
): Promise<GrabResult> {
  if (dest.kind === 'stdout') return grabToStream(box, boxPath, dest.stream, options);
  const anchor = anchorDestination(dest.path, defaultGrabName(boxPath));
  try {
    const tmp = openTemp(anchor.dir);
    let kind: 'file' | 'dir';
    try {
      try {
        const r = await execToFile(
          box,
          (mark) => grabSpec(box, boxPath, mark),
          tmp.file,
          boxPath,
          options,
        );
        kind = judgeFirstExec(r, boxPath);
        if (kind === 'file') tmp.file.chmod(0o644);
      } finally {
        tmp.file.close();
      }
      if (kind === 'file') {
        const { made } = claimFree(anchor.name, 1, (c) => anchor.dir.link(tmp.name, c));
        return { landed: path.join(anchor.shownDir, made) };
      }
    } finally {
      removeTemp(anchor.dir, tmp.name);
    }
    return await grabTree(box, boxPath, anchor, options);
  } finally {
    anchor.dir.close();
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
  return parseGrabHeader(boxStderr(r.stderrHead).split('\n', 1)[0] ?? '');
}

/** The last lines the box said on stderr, escaped. */
function boxSaid(r: { stderr: string }): string {
  return escapeTerminal(boxStderr(r.stderr).trim().split('\n').slice(-3).join('; '));
}

/** The box stopped before sending everything (`also` adds what that meant here). */
function incomplete(boxPath: string, r: StreamResult, also = ''): ByreError {
  return new ByreError(
    `the box could not send all of ${escapeTerminal(boxPath)}${also}: ${boxSaid(r)}`,
    { rule: 'grab.incomplete' },
  );
}

function classifyFailure(r: StreamResult, boxPath: string): ByreError {
  const said =
    boxStderr(r.stderr)
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
  options: GrabFromBoxOptions,
): Promise<GrabResult> {
  const pass = new PassThrough();
  let consumeError: unknown = null;
  // Not pipeline(): stdout must stay open, and {end:false} pipelines can hang on it.
  const consuming = (async () => {
    let total = 0;
    for await (const chunk of pass) {
      total += (chunk as Buffer).length;
      if (total > options.maxBytes) {
        throw capReached('bytes', boxPath, options, 'what came before the cap went to stdout');
      }
      if (!stream.write(chunk)) await once(stream, 'drain');
    }
  })().catch((error: unknown) => {
    consumeError = error;
    pass.destroy();
  });
  const { side, r, execError } = await execInto(
    box,
    (mark) => grabSpec(box, boxPath, mark),
    pass,
    consuming,
    options.note,
  );
  if (consumeError !== null) {
    // byre stopped reading, which killed the engine client before the exec ended.
    if (r === null) await side.stop();
    throw consumeError;
  }
  if (r === null) throw execError;
  if (r.exitCode === BOX_EXIT.grabClassify) throw classifyFailure(r, boxPath);
  if (headerOf(r) === 'dir') {
    throw new UsageError('`-` streams a single file; that box path is a directory', {
      rule: 'grab.stdout-needs-file',
      remedy: 'name a host directory instead of `-`',
    });
  }
  if (r.exitCode !== 0) throw incomplete(boxPath, r);
  return { landed: '' };
}

/** How the box's archive went, as far as the host can tell. */
interface TreeEnd {
  /** Entries named on stderr and not landed. */
  skipped: number;
  /** The stream ended without tar's end-of-archive marker. */
  cut: boolean;
  /** The stream could not be read to its end (malformed, or cut mid-entry). */
  broken: string | null;
}

/** A directory: its name claimed with mkdir, then its tar from a second exec, entry by entry. */
async function grabTree(
  box: DeliverBox & BoxUser,
  boxPath: string,
  anchor: Anchor,
  options: GrabFromBoxOptions,
): Promise<GrabResult> {
  const { made } = claimFree(anchor.name, 1, (c) => anchor.dir.makeDir(c, 0o755));
  const landed = path.join(anchor.shownDir, made);
  const tree = new TreeWriter(anchor.dir.openDir(made), options.note);
  const stream = new PassThrough();
  let end: TreeEnd | null = null;
  let consumeError: unknown = null;
  // Set when byre stopped reading before the box's stream ended (which kills the exec).
  let stoppedReading = false;
  const consuming = extractTree(stream, tree, boxPath, options)
    .then(
      (e) => {
        end = e;
      },
      (error: unknown) => {
        consumeError = error;
      },
    )
    .finally(() => {
      if (stream.destroyed || stream.readableEnded) return;
      stoppedReading = true;
      stream.destroy();
    });
  const { side, r, execError } = await execInto(
    box,
    (mark) => grabTreeSpec(box, boxPath, mark),
    stream,
    consuming,
    options.note,
  );
  if (r === null && (stoppedReading || consumeError !== null)) await side.stop();
  if (consumeError !== null) {
    // byre stopped reading (a cap, or the host could not write): nothing of this grab stays.
    const left = tree.removeAll();
    tree.close();
    try {
      removeDir(anchor.dir, made);
    } catch {
      left.push('');
    }
    throw stoppedError(consumeError, landed, left);
  }
  tree.close();
  if (r === null && !stoppedReading) {
    if (execError instanceof ByreError) throw new GrabIncomplete(execError, { landed });
    throw execError;
  }
  const why = partialReasons(end ?? { skipped: 0, cut: true, broken: null }, r);
  if (why.length === 0) return { landed };
  const skipped = (end as TreeEnd | null)?.skipped ?? 0;
  throw new GrabIncomplete(
    new ByreError(`only part of ${escapeTerminal(boxPath)} landed: ${why.join('; ')}`, {
      rule: 'grab.partial',
      remedy:
        skipped > 0
          ? 'byre never lands links, special files or names outside the directory; grab a link’s target by its own path'
          : 'check the directory in the box (byre shell) and grab it again',
    }),
    { landed },
  );
}

/** Why a tree that arrived is not the whole directory; empty when it is. */
export function partialReasons(
  end: TreeEnd,
  r: { exitCode: number; stderr: string } | null,
): string[] {
  const why: string[] = [];
  if (end.skipped > 0) {
    why.push(
      `${end.skipped} ${end.skipped === 1 ? 'entry was' : 'entries were'} skipped (named above)`,
    );
  }
  if (end.broken !== null) why.push(`the stream broke off (${escapeTerminal(end.broken)})`);
  else if (end.cut) why.push('the stream ended before its end-of-archive marker');
  if (r !== null && r.exitCode !== 0) {
    const said = boxSaid(r);
    why.push(`the box’s tar exited ${r.exitCode}${said === '' ? '' : ` (${said})`}`);
  }
  return why;
}

/** The error for a tree grab byre stopped, saying what of it is left (nothing, normally). */
function stoppedError(error: unknown, landed: string, left: readonly string[]): unknown {
  const kept =
    left.length === 0
      ? 'nothing of it was kept'
      : `byre could not remove ${left.map((k) => escapeTerminal(path.join(landed, k))).join(', ')}`;
  if (error instanceof CapReached) {
    return left.length === 0
      ? error
      : new ByreError(`${error.message.replace(/; nothing landed$/, '')}; ${kept}`, {
          rule: error.rule,
          ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
        });
  }
  const code = errno(error);
  if (error instanceof ByreError || code === undefined) return error;
  return new ByreError(
    `cannot write the grab into ${escapeTerminal(landed)}: ${(error as Error).message}; ${kept}`,
    {
      rule: 'grab.host-write',
      cause: error,
      remedy:
        code === 'ENOSPC' || code === 'EDQUOT'
          ? 'free some disk space, or grab somewhere with room, and grab again'
          : 'check the destination and grab again',
    },
  );
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

/**
 * The box's archive, entry by entry, into `tree`. Returns how it ended when
 * the stream was read to its end or broke off (both keep what landed);
 * throws when byre stops reading: a cap (CapReached) or a host-side failure.
 */
async function extractTree(
  source: AsyncIterable<unknown>,
  tree: TreeWriter,
  boxPath: string,
  options: GrabFromBoxOptions,
): Promise<TreeEnd> {
  const extract = tar.extract();
  const tail = new TarTail();
  const feeding = feed(metered(source, tail, boxPath, options), extract).catch((error: unknown) => {
    extract.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  const entries = extract[Symbol.asyncIterator]();
  let count = 0;
  let skipped = 0;
  let end = 0;
  const skip = (name: string, why: string): void => {
    skipped++;
    options.note(`skipped "${shown(name)}": ${why}`);
  };
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof entries.next>>;
      try {
        next = await entries.next();
      } catch (error) {
        throw new StreamBroke(error);
      }
      if (next.done === true) break;
      const entry = next.value;
      const h = entry.header;
      end = TarTail.dataEnd(h);
      if (++count > options.maxEntries) {
        throw capReached('entries', boxPath, options, 'nothing landed');
      }
      const judged = judgeGrabEntry(h);
      if (!judged.ok) {
        skip(h.name, judged.why);
        entry.resume();
        continue;
      }
      try {
        if (judged.kind === 'dir') tree.dir(judged.components);
        else await tree.file(judged.components, h.mode ?? 0o644, entry);
      } catch (error) {
        if (!(error instanceof ByreError && error.rule === 'grab.no-free-name')) throw error;
        skip(h.name, 'no free name for it');
      }
      entry.resume();
    }
  } catch (error) {
    // The caller stops the source once this returns; feeding is not awaited,
    // as it may be waiting on a write the destroyed extractor never drains.
    extract.destroy();
    const reason = error instanceof StreamBroke ? error.reason : error;
    if (reason instanceof CapReached) throw reason;
    if (error instanceof StreamBroke) return { skipped, cut: true, broken: error.message };
    throw error;
  }
  await feeding;
  return { skipped, cut: !tail.endMarkerAt(end), broken: null };
}

/** The chunks of `source`, noted in `tail`, until more than the byte cap has come. */
async function* metered(
  source: AsyncIterable<unknown>,
  tail: TarTail,
  boxPath: string,
  limits: GrabLimits,
): AsyncIterable<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    const b = chunk as Buffer;
    total += b.length;
    if (total > limits.maxBytes) throw capReached('bytes', boxPath, limits, 'nothing landed');
    tail.add(b);
    yield b;
  }
}
