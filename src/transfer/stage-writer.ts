// Builds the staged tar a delivery streams into the box (layout in
// stage-plan.ts): from local paths, walked anchored and without following
// interior symlinks, or from an incoming `--tar -` archive whose entries are
// validated first. One archive, one exec, however many files.

import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';

import { ByreError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { AnchoredDirSync, HeldReadFile } from '../host/anchored.js';
import { canonicalPathSync } from '../host/canonical.js';
import { statFollowing } from '../host/path-view.js';
import { ChunkedOut } from './chunked-out.js';
import { STAGE_COMPLETE } from './box-scripts.js';
import { StagePlan, type StageLayout } from './stage-plan.js';
import { TarTail, checkTarEntry } from './tar-entry.js';
import { END_OF_ARCHIVE, paddingOf, tarHeader } from './tar-header.js';

/** The part of a Node or streamx writable that `feed` uses. */
export interface ChunkSink {
  write(chunk: never): boolean;
  end(chunk?: never): unknown;
  once(event: 'drain' | 'error', listener: (err?: unknown) => void): unknown;
  off(event: 'drain' | 'error', listener: (err?: unknown) => void): unknown;
}

/** Writes chunks into a (possibly streamx) writable with backpressure, then ends it. */
export async function feed(source: AsyncIterable<unknown>, sink: ChunkSink): Promise<void> {
  for await (const chunk of source) {
    if (!sink.write(chunk as never)) {
      await new Promise<void>((resolve, reject) => {
        const done = (): void => {
          sink.off('error', fail);
          resolve();
        };
        const fail = (err: unknown): void => {
          sink.off('drain', done);
          reject(err instanceof Error ? err : new Error(String(err)));
        };
        sink.once('drain', done);
        sink.once('error', fail);
      });
    }
  }
  sink.end();
}

export class StageWriter {
  private readonly out = new ChunkedOut();
  readonly plan: StagePlan;

  constructor(readonly layout: StageLayout = 'staged') {
    this.plan = new StagePlan(layout);
  }
  /** Top-level items in archive order (their staged paths). */
  readonly items: string[] = [];

  /** The archive as a Node stream. */
  get stream(): Readable {
    return this.out.stream;
  }

  async dir(name: string, mode: number, mtime: Date): Promise<void> {
    this.out.write(
      tarHeader({ name, type: 'directory', size: 0, mode: (mode & 0o777) | 0o700, mtime }),
    );
    await this.out.room();
  }

  /** A file whose `size` bytes come from `content` (an incoming archive's entry). */
  async file(
    name: string,
    size: number,
    mode: number,
    mtime: Date,
    content: AsyncIterable<unknown>,
  ): Promise<void> {
    this.out.write(tarHeader({ name, type: 'file', size, mode: (mode & 0o777) | 0o600, mtime }));
    let got = 0;
    for await (const chunk of content) {
      const bytes = chunk as Uint8Array;
      got += bytes.length;
      if (got > size) break;
      this.out.write(bytes);
      await this.out.room();
    }
    if (got !== size) {
      throw new ByreError(`"${escapeTerminal(name)}" is not the size its header says`, {
        rule: 'transfer.size-mismatch',
      });
    }
    this.out.zeros(paddingOf(size));
  }

  /**
   * A regular file held open (the caller closes it), as its fstat said it
   * was: exactly that many bytes, read synchronously straight into the
   * archive's chunks (a tree is mostly small files, and an async read costs
   * more than it reads). A file that shrank fails the delivery; one that
   * grew is cut at the size its header already promised.
   */
  async fileFrom(name: string, file: HeldReadFile, shown: string): Promise<void> {
    const st = file.stats;
    this.out.write(
      tarHeader({
        name,
        type: 'file',
        size: st.size,
        mode: (st.mode & 0o777) | 0o600,
        mtime: st.mtime,
      }),
    );
    let got = 0;
    while (got < st.size) {
      const n = this.out.readFrom(file, st.size - got, got);
      if (n === 0) {
        throw new ByreError(`${escapeTerminal(shown)} shrank while byre read it`, {
          rule: 'transfer.source-changed',
        });
      }
      got += n;
      if (got < st.size) await this.out.room();
    }
    this.out.zeros(paddingOf(st.size));
    await this.out.room();
  }

  /** The completion marker goes last: a box that never sees it claims nothing. */
  finish(): void {
    // A remote byre stages its own marker; a truncated upload fails its tar read.
    if (this.layout !== 'flat') {
      this.out.write(
        tarHeader({ name: STAGE_COMPLETE, type: 'file', size: 0, mode: 0o600, mtime: new Date() }),
      );
    }
    this.out.write(END_OF_ARCHIVE);
    this.out.end();
  }

  fail(error: unknown): void {
    this.out.fail(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Runs `fill` against a fresh writer; the returned promise settles when the
 * archive is complete (or failed, in which case the archive stream errors so
 * the box sees a broken stream and claims nothing).
 */
export function buildStage(
  fill: (w: StageWriter) => Promise<void>,
  layout: StageLayout = 'staged',
): {
  writer: StageWriter;
  done: Promise<void>;
} {
  const writer = new StageWriter(layout);
  const done = fill(writer)
    .then(() => writer.finish())
    .catch((error: unknown) => {
      writer.fail(error);
      throw error;
    });
  return { writer, done };
}

/** A top-level file source (the user's own argument, so a symlink to it is fine) as `item`. */
async function stageFileAt(
  w: StageWriter,
  item: string,
  file: string,
  shown: string,
): Promise<void> {
  const held = HeldReadFile.openFollowing(file);
  try {
    if (!held.stats.isFile()) {
      throw new ByreError(`${escapeTerminal(shown)} is not a regular file`, {
        rule: 'transfer.not-a-file',
      });
    }
    await w.fileFrom(item, held, shown);
  } finally {
    held.close();
  }
}

/** One regular file (a stdin spool, a clipboard capture) as a top-level item named `name`. */
export async function stageNamedFile(w: StageWriter, file: string, name: string): Promise<void> {
  const item = w.plan.addItem(name, 'file');
  w.items.push(item);
  await stageFileAt(w, item, file, name);
}

/** Local sources: each path is one top-level item. Notes collect skips. */
export async function stageLocalSources(
  w: StageWriter,
  sources: readonly string[],
  notes: string[],
): Promise<void> {
  for (const source of sources) {
    // The user's own argument may be a symlink; interior ones are never followed.
    const st = statFollowing(source);
    const name = path.basename(path.resolve(source));
    if (st.isFile()) {
      const item = w.plan.addItem(name, 'file');
      w.items.push(item);
      await stageFileAt(w, item, source, source);
    } else if (st.isDirectory()) {
      const item = w.plan.addItem(name, 'dir');
      w.items.push(item);
      await w.dir(item, st.mode, st.mtime);
      const dir = AnchoredDirSync.open(canonicalPathSync(source));
      try {
        await walk(w, dir, item, [], source, notes);
      } finally {
        dir.close();
      }
    } else {
      throw new ByreError(`${escapeTerminal(source)} is not a regular file or directory`, {
        rule: 'transfer.not-a-file',
      });
    }
  }
}

async function walk(
  w: StageWriter,
  dir: AnchoredDirSync,
  item: string,
  rel: readonly string[],
  shownRoot: string,
  notes: string[],
): Promise<void> {
  const entries = dir.entries();
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const shown = path.join(shownRoot, ...rel, e.name);
    const components = [...rel, e.name];
    if (e.isSymbolicLink()) {
      notes.push(`skipped ${escapeTerminal(shown)}: a symlink`);
    } else if (e.isDirectory()) {
      let child: AnchoredDirSync;
      try {
        child = dir.openDir(e.name);
      } catch {
        notes.push(`skipped ${escapeTerminal(shown)}: it changed while byre read it`);
        continue;
      }
      try {
        const st = child.stat();
        const placed = w.plan.place(item, components, 'dir');
        await w.dir(placed.path, st.mode, st.mtime);
        await walk(w, child, item, components, shownRoot, notes);
      } finally {
        child.close();
      }
    } else if (e.isFile()) {
      let file: HeldReadFile;
      try {
        file = dir.openFile(e.name);
      } catch {
        notes.push(`skipped ${escapeTerminal(shown)}: it changed while byre read it`);
        continue;
      }
      try {
        if (!file.stats.isFile()) {
          notes.push(`skipped ${escapeTerminal(shown)}: not a regular file`);
          continue;
        }
        const placed = w.plan.place(item, components, 'file');
        await w.fileFrom(placed.path, file, shown);
      } finally {
        file.close();
      }
    } else {
      notes.push(`skipped ${escapeTerminal(shown)}: not a regular file or directory`);
    }
  }
}

/**
 * An incoming archive (`deliver --tar -`): entries are checked before any of
 * their bytes are staged, and any refusal fails the whole delivery.
 */
export async function stageTarInput(w: StageWriter, input: Readable): Promise<void> {
  const extract = tar.extract();
  const tail = new TarTail();
  let end = 0;
  const feeding = feed(tallied(input, tail), extract);
  const tops = new Map<string, { path: string; kind: 'file' | 'dir' }>();
  const now = new Date();
  try {
    for await (const entry of extract) {
      const h = entry.header;
      end = TarTail.dataEnd(h);
      const check = checkTarEntry(h);
      if (!check.ok) {
        throw new ByreError(
          `refusing the archive: "${escapeTerminal(h.name)}" is ${check.reason}`,
          {
            rule: check.rule,
          },
        );
      }
      const [top = '', ...rest] = check.components;
      const mode = h.mode ?? (check.kind === 'dir' ? 0o755 : 0o644);
      const mtime = h.mtime ?? now;
      let item = tops.get(top);
      if (item === undefined) {
        const kind = rest.length === 0 ? check.kind : 'dir';
        item = { path: w.plan.addItem(top, kind), kind };
        tops.set(top, item);
        w.items.push(item.path);
        if (kind === 'dir') await w.dir(item.path, mode, mtime);
        if (rest.length === 0) {
          if (kind === 'file') await w.file(item.path, h.size ?? 0, mode, mtime, entry);
          else entry.resume();
          continue;
        }
      } else if (rest.length === 0) {
        if (check.kind === 'dir' && item.kind === 'dir') {
          entry.resume();
          continue;
        }
        throw new ByreError(`refusing the archive: "${escapeTerminal(top)}" appears twice`, {
          rule: 'transfer.duplicate-entry',
        });
      }
      const placed = w.plan.place(item.path, rest, check.kind);
      for (const parent of placed.parents) await w.dir(parent, 0o755, mtime);
      if (check.kind === 'dir') {
        await w.dir(placed.path, mode, mtime);
        entry.resume();
      } else {
        await w.file(placed.path, h.size ?? 0, mode, mtime, entry);
      }
    }
  } finally {
    await feeding.catch(() => undefined);
  }
  await feeding;
  if (!tail.endMarkerAt(end)) {
    throw new ByreError(
      'the archive ended before its end-of-archive marker; nothing was delivered',
      {
        rule: 'transfer.truncated-archive',
        remedy: 'the upload was cut short; deliver again',
      },
    );
  }
}

/** The chunks of `source`, each noted in `tail` as it passes. */
async function* tallied(source: AsyncIterable<unknown>, tail: TarTail): AsyncIterable<Buffer> {
  for await (const chunk of source) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    tail.add(b);
    yield b;
  }
}
