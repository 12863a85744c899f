// grab's host side against a hostile box: a fake exec plays the box's `cat`
// and `tar` replaced by the agent. Its streams escape the root, plant links
// and specials, end early, break off, lie with their exit status, run away
// past the caps, and swap a written directory for a symlink mid-stream.
// Nothing may land outside the destination, every entry that does not land
// is named, a partial tree says so (`grab.partial`), and a stopped grab
// leaves nothing behind.

import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tarOf, withoutMarker, type TarEntry as Entry } from '../../test/support/tar.js';
import { useTempDir } from '../../test/support/temp.js';

import type { Engine, StreamIo } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { GRAB_TREE_SCRIPT, grabStopSpec } from './box-scripts.js';
import { grabLimits, type GrabLimits } from './grab-limits.js';
import { GrabIncomplete, boxPathFor, grabFromBox, partialReasons } from './grab-from-box.js';

type GrabDestination = Parameters<typeof grabFromBox>[2];

let root: string;
let dest: string;
let outside: string;
useTempDir('grab', (tmp) => {
  root = tmp;
  dest = path.join(root, 'dest');
  outside = path.join(root, 'outside');
  mkdirSync(dest);
  mkdirSync(outside);
});

/** The header block at `offset` with its typeflag set to `flag` and its checksum redone. */
function retyped(archive: Buffer, offset: number, flag: string): Buffer {
  const out = Buffer.from(archive);
  const block = out.subarray(offset, offset + 512);
  block.write(flag, 156, 'latin1');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return out;
}

interface Script {
  /** What the first exec says after its pid: `f`, `d`, or a whole stderr text. */
  kind: string;
  /** The first exec's stdout (a file's bytes), or a writer that streams to the descriptor. */
  file?: Buffer | ((fd: number, signal: AbortSignal | undefined) => Promise<void>);
  /** A file's bytes to a stream (stdout), in parts, until byre stops reading. */
  fileParts?: () => Iterable<Buffer>;
  /** The tree exec's stdout, in parts; or a generator of parts (until byre stops reading). */
  tree?: Buffer[] | (() => Iterable<Buffer>);
  /** Called after each tree part is taken. */
  between?: (i: number) => void | Promise<void>;
  exitCode?: number;
  treeExit?: number;
  treeStderr?: string;
  /** The first line each exec says on stderr; default, as the scripts do, its pid. */
  pidLine?: string;
}

const PID = 4242;

/** `parts` to the box's stdout stream, as an engine client would; throws once byre stops reading. */
async function send(
  out: NodeJS.WritableStream & { destroyed: boolean },
  parts: Iterable<Buffer>,
  between?: (i: number) => void | Promise<void>,
): Promise<void> {
  const killed = (): Error => new Error('the engine client was killed (byre stopped reading)');
  let i = 0;
  for (const part of parts) {
    if (out.destroyed) throw killed();
    await new Promise<void>((r) => {
      if (out.write(part)) return r();
      // Whichever comes first; the other listener goes with it.
      const done = (): void => {
        out.off('drain', done);
        out.off('close', done);
        r();
      };
      out.once('drain', done);
      out.once('close', done);
    });
    await between?.(i++);
  }
  if (out.destroyed) throw killed();
  out.end();
}

/** An engine playing the box for both grab execs, as the script says; `stopped` gets each stop exec. */
function box(
  script: Script,
  stopped: ExecSpec[] = [],
  stopResult: { exitCode: number; stderr: string } = { exitCode: 0, stderr: '' },
) {
  // Each grab exec's mark; a stop naming one of them is recorded with MARK in its place.
  const marks: string[] = [];
  const pidLine = script.pidLine ?? `byre-grab pid ${PID}\n`;
  const handle = {
    async exec(spec: ExecSpec) {
      // The stop names the mark its grab exec carried: the fake hands back the pid it found.
      const mark = spec.command[5] ?? '';
      stopped.push({
        ...spec,
        command: [...spec.command.slice(0, 5), marks.includes(mark) ? 'MARK' : mark],
      });
      return { ...stopResult, stdout: '' };
    },
    async execStream(spec: ExecSpec, io: StreamIo) {
      marks.push(spec.env?.['BYRE_GRAB'] ?? '');
      const out = io.stdout;
      const exitCode = script.exitCode ?? 0;
      io.onStderr?.(pidLine);
      if (spec.command[2] !== GRAB_TREE_SCRIPT) {
        const said = script.kind.length === 1 ? `byre-grab 1 ${script.kind}\n` : script.kind;
        io.onStderr?.(said);
        const body = script.file ?? Buffer.alloc(0);
        if (script.fileParts !== undefined) {
          if (typeof out === 'number') throw new Error('parts go to a stream');
          await send(out, script.fileParts());
        } else if (typeof body === 'function') {
          if (typeof out !== 'number') throw new Error('a streaming file needs a descriptor');
          await body(out, io.signal);
          if (io.signal?.aborted === true) throw io.signal.reason;
        } else if (typeof out === 'number') writeSync(out, body);
        else await new Promise<void>((r) => out.end(body, () => r()));
        return { exitCode, stderr: pidLine + said, stderrHead: pidLine + said };
      }
      if (typeof out === 'number') throw new Error('the tree exec streams');
      const parts = typeof script.tree === 'function' ? script.tree() : (script.tree ?? []);
      await send(out, parts, script.between);
      const stderr = pidLine + (script.treeStderr ?? '');
      return { exitCode: script.treeExit ?? exitCode, stderr, stderrHead: stderr };
    },
  } as unknown as Engine;
  return { id: 'f'.repeat(64), uid: 1000, gid: 1000, handle };
}

/** Grabs with a fake box; the notes as printed, the stop execs byre ran, and the outcome. */
async function grab(
  script: Script,
  boxPath = '/w/t',
  to: GrabDestination = { kind: 'path', path: dest },
  limits: Partial<GrabLimits> = {},
  stopResult?: { exitCode: number; stderr: string },
): Promise<{ notes: string[]; stopped: ExecSpec[]; landed?: string; error?: unknown }> {
  const notes: string[] = [];
  const stopped: ExecSpec[] = [];
  const options = { ...grabLimits({}), ...limits, note: (l: string) => notes.push(l) };
  try {
    const r = await grabFromBox(box(script, stopped, stopResult), boxPath, to, options);
    return { notes, stopped, landed: r.landed };
  } catch (error) {
    return { notes, stopped, error };
  }
}

/** Everything under `dir`, relative, sorted (directories end in /). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        walk(path.join(d, e.name), r);
      } else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

function partial(error: unknown): { rule: string; message: string; landed: string } {
  expect(error).toBeInstanceOf(GrabIncomplete);
  const e = error as GrabIncomplete;
  return { rule: e.error.rule, message: e.error.message, landed: e.result.landed };
}

describe('grabFromBox', () => {
  it('counts relative box paths from /workspace', () => {
    expect(boxPathFor('out/x')).toBe('/workspace/out/x');
    expect(boxPathFor('/tmp/x')).toBe('/tmp/x');
  });

  it('lands a file beside an existing one without touching it', async () => {
    writeFileSync(path.join(dest, 'r.txt'), 'mine');
    const r = await grab({ kind: 'f', file: Buffer.from('theirs') }, '/w/r.txt');
    expect(r.landed).toBe(path.join(dest, 'r-2.txt'));
    expect(readFileSync(path.join(dest, 'r.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(path.join(dest, 'r-2.txt'), 'utf8')).toBe('theirs');
    expect(readdirSync(dest).sort()).toEqual(['r-2.txt', 'r.txt']);
  });

  it('lands a whole tree with exit 0 and no notes', async () => {
    const archive = await tarOf([
      { name: './', type: 'directory' },
      { name: './a.txt', body: 'a' },
      { name: './sub/', type: 'directory' },
      { name: './sub/b.txt', body: 'b' },
    ]);
    const r = await grab({ kind: 'd', tree: [archive] });
    expect(r.error).toBeUndefined();
    expect(r.notes).toEqual([]);
    expect(r.stopped).toEqual([]);
    expect(tree(dest)).toEqual(['t/', 't/a.txt', 't/sub/', 't/sub/b.txt']);
  });

  it('never writes through a symlink planted under the landing name', async () => {
    symlinkSync(outside, path.join(dest, 't'));
    const archive = await tarOf([{ name: './x', body: 'x' }]);
    const r = await grab({ kind: 'd', tree: [archive] });
    expect(r.landed).toBe(path.join(dest, 't-2'));
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses a destination that is itself a symlink', async () => {
    symlinkSync(outside, path.join(root, 'link'));
    const r = await grab({ kind: 'f', file: Buffer.from('x') }, '/w/x', {
      kind: 'path',
      path: path.join(root, 'link'),
    });
    expect(r.error).toMatchObject({ rule: 'grab.dest-symlink' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('names every entry it skips, lands the rest, and calls the grab partial', async () => {
    const archive = await tarOf([
      { name: './', type: 'directory' },
      { name: '../escape.txt', body: 'no' },
      { name: '/abs.txt', body: 'no' },
      { name: './evil', type: 'symlink', linkname: outside },
      { name: './evil/through.txt', body: 'inside' },
      { name: './hard', type: 'link', linkname: './ok.txt' },
      { name: './pipe', type: 'fifo' },
      { name: './tty', type: 'character-device' },
      { name: './ok.txt', body: 'ok' },
      { name: './ok.txt', body: 'again' },
      { name: './new\nline', body: 'n' },
      { name: '.', body: 'the root as a file' },
    ]);
    const r = await grab({ kind: 'd', tree: [archive] });
    const p = partial(r.error);
    expect(p.rule).toBe('grab.partial');
    expect(p.landed).toBe(path.join(dest, 't'));
    expect(p.message).toContain('7 entries were skipped (named above)');
    expect(r.notes).toEqual([
      'skipped "../escape.txt": outside the grabbed directory',
      'skipped "/abs.txt": an absolute path',
      `skipped "./evil": a symlink`,
      'skipped "./hard": a hard link',
      'skipped "./pipe": a fifo',
      'skipped "./tty": a character device',
      'renamed "ok.txt" → "ok-2.txt"',
      'renamed "new\\nline" → "new_line"',
      'skipped ".": a file entry naming the grabbed directory itself',
    ]);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(root, 'escape.txt'))).toBe(false);
    const t = path.join(dest, 't');
    expect(lstatSync(path.join(t, 'evil')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(t, 'evil', 'through.txt'), 'utf8')).toBe('inside');
    expect(readFileSync(path.join(t, 'ok.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(path.join(t, 'ok-2.txt'), 'utf8')).toBe('again');
    expect(tree(dest)).toEqual([
      't/',
      't/evil/',
      't/evil/through.txt',
      't/new_line',
      't/ok-2.txt',
      't/ok.txt',
    ]);
  });

  it('skips an entry of a type tar-stream does not know (a GNU sparse file), by name', async () => {
    const archive = retyped(
      await tarOf([
        { name: './sparse', body: 'x' },
        { name: './ok', body: 'ok' },
      ]),
      0,
      'S',
    );
    const r = await grab({ kind: 'd', tree: [archive] });
    expect(partial(r.error).rule).toBe('grab.partial');
    expect(r.notes).toEqual(['skipped "./sparse": an entry of unknown type']);
    expect(tree(dest)).toEqual(['t/', 't/ok']);
  });

  it('skips names and paths the host could not hold, and escapes what it shows', async () => {
    const long = 'n'.repeat(256);
    const deep = Array.from({ length: 1400 }, () => 'abc').join('/');
    const archive = await tarOf([
      { name: `./${long}`, body: 'x' },
      { name: `./${'é'.repeat(128)}`, body: 'two-byte letters: 256 bytes' },
      { name: `./${deep}/f`, body: 'x' },
      { name: './\u001b[31mred', type: 'symlink', linkname: '/' },
      { name: `./${'n'.repeat(255)}`, body: 'fits' },
    ]);
    const r = await grab({ kind: 'd', tree: [archive] });
    expect(partial(r.error).message).toContain('4 entries were skipped');
    expect(r.notes).toEqual([
      `skipped "./${long}": a name longer than 255 bytes`,
      `skipped "./${'é'.repeat(128)}": a name longer than 255 bytes`,
      `skipped "./${deep.slice(0, 510)}…": a path longer than 4096 bytes`,
      'skipped "./\\x1b[31mred": a symlink',
    ]);
    expect(tree(dest)).toEqual(['t/', `t/${'n'.repeat(255)}`]);
  });

  it('skips a second entry whose uniquified name would be too long, and lands the rest', async () => {
    const long = 'n'.repeat(255);
    const archive = await tarOf([
      { name: `./${long}`, body: 'first' },
      { name: `./${long}`, body: 'second' },
      { name: './ok', body: 'ok' },
    ]);
    const r = await grab({ kind: 'd', tree: [archive] });
    expect(partial(r.error).message).toContain('1 entry was skipped');
    expect(r.notes).toEqual([`skipped "./${long}": no free name for it`]);
    expect(tree(dest)).toEqual(['t/', `t/${long}`, 't/ok']);
  });

  it('calls a stream cut at an entry boundary partial, though the box said 0', async () => {
    const archive = await tarOf([
      { name: './a.txt', body: 'a' },
      { name: './b.txt', body: 'b' },
    ]);
    // Cut after a.txt: a.txt's header and one data block, no b.txt, no marker.
    const r = await grab({ kind: 'd', tree: [archive.subarray(0, 1024)] });
    const p = partial(r.error);
    expect(p.rule).toBe('grab.partial');
    expect(p.message).toContain('the stream ended before its end-of-archive marker');
    expect(r.notes).toEqual([]);
    expect(tree(dest)).toEqual(['t/', 't/a.txt']);
    // No entry at all, no marker: still not a whole directory.
    const empty = await grab({ kind: 'd', tree: [] });
    expect(partial(empty.error).message).toContain('end-of-archive marker');
    // The marker alone is a whole, empty directory.
    const none = await grab({ kind: 'd', tree: [Buffer.alloc(1024)] });
    expect(none.error).toBeUndefined();
  });

  it('keeps what landed when the stream breaks off, and never lands the half file', async () => {
    const archive = await tarOf([
      { name: './a.txt', body: 'a' },
      { name: './big.bin', body: Buffer.alloc(4096, 7) },
    ]);
    // Cut inside big.bin's data.
    const cut = await grab({ kind: 'd', tree: [archive.subarray(0, 1024 + 512 + 1000)] });
    const p = partial(cut.error);
    expect(p.rule).toBe('grab.partial');
    expect(p.message).toMatch(/the stream broke off \(.+\)/);
    expect(tree(dest)).toEqual(['t/', 't/a.txt']);

    // Garbage where the next header should be: no crash, a partial grab.
    const garbage = await grab({
      kind: 'd',
      tree: [withoutMarker(await tarOf([{ name: './x', body: 'x' }])), Buffer.alloc(4096, 'A')],
    });
    expect(partial(garbage.error).message).toMatch(/the stream broke off \(Invalid tar header/);
    expect(tree(dest)).toContain('t-2/x');
  });

  it('refuses a pax header above tar-stream’s 4 MiB as a broken stream, without buffering on', async () => {
    // A pax extended header (typeflag x) of 5 MiB, as if for a 5 MiB path.
    const pax = retyped(
      await tarOf([{ name: 'PaxHeader', body: Buffer.alloc(5 * 1024 * 1024) }]),
      0,
      'x',
    );
    const r = await grab({ kind: 'd', tree: [pax] });
    expect(partial(r.error).message).toContain('Header exceeds max size');
    expect(tree(dest)).toEqual(['t/']);
  });

  it('calls a whole stream partial when the box’s tar exits non-zero, quoting it', async () => {
    const archive = await tarOf([{ name: './a.txt', body: 'a' }]);
    const r = await grab({
      kind: 'd',
      tree: [archive],
      treeExit: 2,
      treeStderr: 'tar: ./secret: Cannot open: Permission denied\ntar: Exiting with failure\n',
    });
    const p = partial(r.error);
    expect(p.message).toContain(
      'the box’s tar exited 2 (tar: ./secret: Cannot open: Permission denied; tar: Exiting with failure)',
    );
    expect(tree(dest)).toEqual(['t/', 't/a.txt']);
  });

  it('lands trees wider than the directories it holds open, and revisits them', async () => {
    const entries: Entry[] = [];
    for (let round = 0; round < 2; round++)
      for (let d = 0; d < 150; d++) entries.push({ name: `./d${d}/f${round}`, body: `${d}` });
    const r = await grab({ kind: 'd', tree: [await tarOf(entries)] });
    expect(r.error).toBeUndefined();
    const all = tree(dest);
    expect(all).toHaveLength(1 + 150 * 3);
    expect(readFileSync(path.join(dest, 't', 'd149', 'f1'), 'utf8')).toBe('149');
  });

  it('a directory swapped for a symlink mid-stream cannot redirect later writes', async () => {
    const archive = await tarOf([
      { name: './d', type: 'directory' },
      { name: './d/first.txt', body: 'a' },
      ...Array.from({ length: 50 }, (_, i) => ({
        name: `./d/f${i}.txt`,
        body: 'x'.repeat(4096),
      })),
    ]);
    const d = path.join(dest, 't', 'd');
    let swapped = false;
    await grab({
      kind: 'd',
      tree: [archive.subarray(0, 3072), archive.subarray(3072)],
      between: async (i) => {
        if (i !== 0) return;
        // Swapped once grab has made the directory from the first part, however long that takes.
        for (let n = 0; n < 2000 && !existsSync(path.join(d, 'first.txt')); n++) {
          await new Promise((done) => setTimeout(done, 5));
        }
        renameSync(d, path.join(root, 'moved'));
        symlinkSync(outside, d);
        swapped = true;
      },
    });
    expect(swapped).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('streams a single file to stdout, and refuses a directory there', async () => {
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => chunks.push(c));
    const r = await grab({ kind: 'f', file: Buffer.from('bytes') }, '/w/x', {
      kind: 'stdout',
      stream: sink,
    });
    expect(r.error).toBeUndefined();
    expect(Buffer.concat(chunks).toString()).toBe('bytes');
    const dir = await grab({ kind: 'd', tree: [await tarOf([{ name: './x' }])] }, '/w/d', {
      kind: 'stdout',
      stream: new PassThrough(),
    });
    expect(dir.error).toMatchObject({ rule: 'grab.stdout-needs-file' });
  });

  it('lands nothing, not even a temp, when the box fails part way through a file', async () => {
    const r = await grab({ kind: 'f', file: Buffer.from('half'), exitCode: 1 }, '/w/x');
    expect(r.error).toMatchObject({ rule: 'grab.incomplete' });
    expect(readdirSync(dest)).toEqual([]);
  });

  it('hands a file the temp descriptor and keeps its bytes exact', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const r = await grab({ kind: 'f', file: bytes }, '/w/blob.bin');
    expect(readFileSync(r.landed ?? '').equals(bytes)).toBe(true);
    expect(readdirSync(dest)).toEqual(['blob.bin']);
  });

  it('rejects a malformed header', async () => {
    const r = await grab({ kind: 'x'.repeat(100) }, '/w/x');
    expect(r.error).toMatchObject({ rule: 'grab.bad-header' });
    expect(readdirSync(dest)).toEqual([]);
  });
});

describe('the caps stop a runaway with nothing landed', () => {
  const MIB = 1024 * 1024;
  /** The exec that kills the box's side of a grab byre stopped reading. */
  const stop = grabStopSpec({ id: 'f'.repeat(64), uid: 1000, gid: 1000 }, PID, 'MARK');

  it('a file over the byte cap lands nothing, whether it ends or runs on', async () => {
    const ended = await grab({ kind: 'f', file: Buffer.alloc(MIB + 1) }, '/w/x', undefined, {
      maxBytes: MIB,
    });
    expect(ended.error).toMatchObject({
      rule: 'grab.too-large',
      message: expect.stringContaining('more than 1.0 MiB; nothing landed'),
      remedy: expect.stringContaining('byre grab --max-size 2M'),
    });
    expect(readdirSync(dest)).toEqual([]);
    // It ended on its own: nothing of it runs on in the box.
    expect(ended.stopped).toEqual([]);

    // A `cat` that never stops: byre stops it, there and in the box.
    let written = 0;
    const endless = await grab(
      {
        kind: 'f',
        file: async (fd, signal) => {
          const chunk = Buffer.alloc(64 * 1024);
          while (signal?.aborted !== true && written < 64 * MIB) {
            written += writeSync(fd, chunk);
            await new Promise((r) => setTimeout(r, 1));
          }
        },
      },
      '/w/x',
      undefined,
      { maxBytes: MIB },
    );
    expect(endless.error).toMatchObject({ rule: 'grab.too-large' });
    expect(written).toBeLessThan(64 * MIB);
    expect(readdirSync(dest)).toEqual([]);
    expect(endless.stopped).toEqual([stop]);

    // Exactly the cap is not over it.
    const exact = await grab({ kind: 'f', file: Buffer.alloc(MIB) }, '/w/x', undefined, {
      maxBytes: MIB,
    });
    expect(exact.error).toBeUndefined();
  });

  it('a tree over the byte cap is stopped and removed, directories included', async () => {
    const head = withoutMarker(
      await tarOf([
        { name: './a/', type: 'directory' },
        { name: './a/b/', type: 'directory' },
        { name: './a/b/small', body: 'small' },
      ]),
    );
    // Then a file whose header promises a terabyte, and bytes for ever.
    const big = Buffer.alloc(512);
    const hdr = await tarOf([{ name: './a/b/huge', body: '' }]);
    hdr.copy(big, 0, 0, 512);
    big.write('17777777777\0', 124, 'latin1'); // size field: 8 GiB - 1
    const fixed = retyped(big, 0, '0');
    let sent = 0;
    const r = await grab(
      {
        kind: 'd',
        tree: function* () {
          yield head;
          yield fixed;
          for (; sent < 256; sent++) yield Buffer.alloc(64 * 1024);
        },
      },
      '/w/t',
      undefined,
      { maxBytes: 4 * MIB },
    );
    expect(r.error).toMatchObject({
      rule: 'grab.too-large',
      message: expect.stringContaining('more than 4.0 MiB; nothing landed'),
    });
    expect(sent).toBeLessThan(256);
    expect(readdirSync(dest)).toEqual([]);
    expect(r.stopped).toEqual([stop]);
  });

  it('a tree over the entry cap is stopped and removed, wider than the held directories', async () => {
    const entries: Entry[] = [];
    for (let d = 0; d < 100; d++) entries.push({ name: `./d${d}/sub/f`, body: 'x' });
    const r = await grab({ kind: 'd', tree: [await tarOf(entries)] }, '/w/t', undefined, {
      maxEntries: 99,
    });
    expect(r.error).toMatchObject({
      rule: 'grab.too-many-entries',
      message: expect.stringContaining('more than 99 entries; nothing landed'),
      remedy: expect.stringContaining('--max-entries 198'),
    });
    expect(readdirSync(dest)).toEqual([]);
  });

  it('stdout stops at the cap and says what already went out', async () => {
    const sink = new PassThrough().resume();
    const r = await grab(
      { kind: 'f', file: Buffer.alloc(2 * MIB) },
      '/w/x',
      { kind: 'stdout', stream: sink },
      { maxBytes: MIB },
    );
    expect(r.error).toMatchObject({
      rule: 'grab.too-large',
      message: expect.stringContaining('what came before the cap went to stdout'),
    });

    // A `cat` that never stops: byre stops it, there and in the box.
    let sent = 0;
    const endless = await grab(
      {
        kind: 'f',
        fileParts: function* () {
          for (; sent < 256; sent++) yield Buffer.alloc(64 * 1024);
        },
      },
      '/w/x',
      { kind: 'stdout', stream: new PassThrough().resume() },
      { maxBytes: MIB },
    );
    expect(endless.error).toMatchObject({ rule: 'grab.too-large' });
    expect(sent).toBeLessThan(256);
    expect(endless.stopped).toEqual([stop]);
  });

  it('stops by the mark alone when the box never said which process it is', async () => {
    const r = await grab(
      { kind: 'f', pidLine: '', fileParts: () => Array<Buffer>(64).fill(Buffer.alloc(64 * 1024)) },
      '/w/x',
      { kind: 'stdout', stream: new PassThrough().resume() },
      { maxBytes: MIB },
    );
    expect(r.error).toMatchObject({ rule: 'grab.too-large' });
    expect(r.stopped).toEqual([
      grabStopSpec({ id: 'f'.repeat(64), uid: 1000, gid: 1000 }, null, 'MARK'),
    ]);
    expect(r.notes).toEqual([]);
  });

  it('says so when the engine could not run the stop', async () => {
    const r = await grab(
      { kind: 'f', fileParts: () => Array<Buffer>(64).fill(Buffer.alloc(64 * 1024)) },
      '/w/x',
      { kind: 'stdout', stream: new PassThrough().resume() },
      { maxBytes: MIB },
      { exitCode: 126, stderr: 'OCI runtime exec failed: \x1b[31mbusy\n' },
    );
    expect(r.error).toMatchObject({ rule: 'grab.too-large' });
    expect(r.notes).toEqual([
      'could not stop the grab in the box (exit 126: OCI runtime exec failed: \\x1b[31mbusy); what it ran in the box may still be running (it ends with the box)',
    ]);
  });
});

describe('the pid line the grab scripts say first', () => {
  it.each([
    ['byre-grab pid 42\nbyre-grab 1 f\n', 42],
    ['byre-grab pid 4294967295\n', 4294967295],
    // Not whole yet, or not first: no pid.
    ['byre-grab pid 42', null],
    ['byre-grab 1 f\nbyre-grab pid 42\n', null],
    // 1 would be every process the user has; 0 and signs are not pids.
    ['byre-grab pid 1\n', null],
    ['byre-grab pid 0\n', null],
    ['byre-grab pid -5\n', null],
    ['byre-grab pid 042\n', null],
    ['byre-grab pid 12345678901\n', null],
    ['byre-grab pid 42 \n', null],
    ['', null],
  ])('%j -> %s: the stop names that pid', async (pidLine, pid) => {
    // A runaway to stdout, which byre stops in the box by the pid it heard.
    const r = await grab(
      { kind: 'f', pidLine, fileParts: () => Array<Buffer>(64).fill(Buffer.alloc(64 * 1024)) },
      '/w/x',
      { kind: 'stdout', stream: new PassThrough().resume() },
      { maxBytes: 1024 * 1024 },
    );
    expect(r.error).toMatchObject({ rule: 'grab.too-large' });
    expect(r.stopped).toEqual([
      grabStopSpec({ id: 'f'.repeat(64), uid: 1000, gid: 1000 }, pid, 'MARK'),
    ]);
  });

  it('is not part of what the box said', async () => {
    const said = async (script: Script): Promise<string> => {
      const r = await grab({ ...script, exitCode: 1 }, '/w/x');
      return (r.error as Error).message;
    };
    expect(await said({ kind: 'f', pidLine: 'byre-grab pid 42\n' })).toMatch(/: byre-grab 1 f$/);
    expect(await said({ kind: 'byre-grab 1 f\ntar: x\nbyre-grab pid 42\n', pidLine: '' })).toMatch(
      /: byre-grab 1 f; tar: x; byre-grab pid 42$/,
    );
  });
});

describe('partialReasons', () => {
  const whole = { skipped: 0, cut: false, broken: null };
  it.each([
    ['a whole stream and exit 0', whole, 0, []],
    ['one skipped entry', { ...whole, skipped: 1 }, 0, ['1 entry was skipped (named above)']],
    [
      'a cut stream',
      { ...whole, cut: true },
      0,
      ['the stream ended before its end-of-archive marker'],
    ],
    [
      'a broken stream (which is also cut)',
      { ...whole, cut: true, broken: 'bad\u001b' },
      0,
      ['the stream broke off (bad\\x1b)'],
    ],
    ['a whole stream and exit 1', whole, 1, ['the box’s tar exited 1 (said)']],
  ])('%s', (_label, end, exitCode, expected) => {
    expect(partialReasons(end, { exitCode, stderr: 'said\n' })).toEqual(expected);
  });
});
