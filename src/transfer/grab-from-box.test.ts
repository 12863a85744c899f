// grab's host side against a hostile box: streams from a fake exec whose
// tar entries escape the root, plant symlinks, and swap a written directory
// for a symlink mid-stream. Nothing may land outside the destination.

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
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';

import type { Engine, StreamIo } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { GRAB_TREE_SCRIPT } from './box-scripts.js';
import { boxPathFor, grabFromBox, judgeEntryName } from './grab-from-box.js';

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

type Entry = {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  body?: string;
  linkname?: string;
};

async function tarOf(entries: Entry[]): Promise<Buffer[]> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const reading = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const e of entries) {
    const body = e.body ?? '';
    const type = e.type ?? 'file';
    const linkname = e.linkname === undefined ? {} : { linkname: e.linkname };
    if (type === 'file') pack.entry({ name: e.name, type, size: Buffer.byteLength(body) }, body);
    else pack.entry({ name: e.name, type, ...linkname });
  }
  pack.finalize();
  await reading;
  return chunks;
}

/**
 * An engine playing both grab execs: the first says `kind` on stderr (a
 * file's bytes are `parts`, written to the descriptor or stream it was
 * given); the tree exec streams `parts`, calling `between` after each.
 */
function box(
  kind: string,
  parts: Buffer[],
  between: (i: number) => void | Promise<void> = () => undefined,
  exitCode = 0,
) {
  const handle = {
    async execStream(spec: ExecSpec, io: StreamIo) {
      const out = io.stdout;
      if (spec.command[2] !== GRAB_TREE_SCRIPT) {
        const said = kind.length === 1 ? `byre-grab 1 ${kind}\n` : kind;
        const body = kind === 'f' ? Buffer.concat(parts) : Buffer.alloc(0);
        if (typeof out === 'number') writeSync(out, body);
        else await new Promise<void>((r) => out.end(body, () => r()));
        return { exitCode, stderr: said, stderrHead: said };
      }
      if (typeof out === 'number') throw new Error('the tree exec streams');
      for (let i = 0; i < parts.length; i++) {
        if (out.destroyed) break;
        await new Promise<void>((r) => {
          if (out.write(parts[i])) r();
          else {
            out.once('drain', () => r());
            out.once('close', () => r());
          }
        });
        await between(i);
      }
      out.end();
      return { exitCode, stderr: '', stderrHead: '' };
    },
  } as unknown as Engine;
  return { id: 'f'.repeat(64), uid: 1000, gid: 1000, handle };
}

describe('judgeEntryName', () => {
  it.each([
    ['./a/b', ['a', 'b']],
    ['a/', ['a']],
    ['./', null],
    ['.', null],
  ])('accepts %j', (name, components) => {
    expect(judgeEntryName(name)).toEqual({ ok: true, components });
  });
  it.each(['../x', './a/../../x', '/etc/passwd', 'a//b', 'a/./b'])('refuses %j', (name) => {
    expect(judgeEntryName(name).ok).toBe(false);
  });
});

describe('grabFromBox', () => {
  it('counts relative box paths from /workspace', () => {
    expect(boxPathFor('out/x')).toBe('/workspace/out/x');
    expect(boxPathFor('/tmp/x')).toBe('/tmp/x');
  });

  it('lands a file beside an existing one without touching it', async () => {
    writeFileSync(path.join(dest, 'r.txt'), 'mine');
    const r = await grabFromBox(box('f', [Buffer.from('theirs')]), '/w/r.txt', {
      kind: 'path',
      path: dest,
    });
    expect(r.landed).toBe(path.join(dest, 'r-2.txt'));
    expect(readFileSync(path.join(dest, 'r.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(path.join(dest, 'r-2.txt'), 'utf8')).toBe('theirs');
    expect(readdirSync(dest).sort()).toEqual(['r-2.txt', 'r.txt']);
  });

  it('never writes through a symlink planted under the landing name', async () => {
    symlinkSync(outside, path.join(dest, 't'));
    const parts = await tarOf([{ name: './x', body: 'x' }]);
    const r = await grabFromBox(box('d', parts), '/w/t', { kind: 'path', path: dest });
    expect(r.landed).toBe(path.join(dest, 't-2'));
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses a destination that is itself a symlink', async () => {
    symlinkSync(outside, path.join(root, 'link'));
    await expect(
      grabFromBox(box('f', [Buffer.from('x')]), '/w/x', {
        kind: 'path',
        path: path.join(root, 'link'),
      }),
    ).rejects.toMatchObject({ rule: 'grab.dest-symlink' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('ignores entries outside the root loudly and skips links', async () => {
    const parts = [
      ...(await tarOf([
        { name: './', type: 'directory' },
        { name: '../escape.txt', body: 'no' },
        { name: '/abs.txt', body: 'no' },
        { name: './evil', type: 'symlink', linkname: outside },
        { name: './evil/through.txt', body: 'inside' },
        { name: './hard', type: 'link', linkname: './ok.txt' },
        { name: './ok.txt', body: 'ok' },
        { name: './ok.txt', body: 'again' },
        { name: './new\nline', body: 'n' },
      ])),
    ];
    const r = await grabFromBox(box('d', parts), '/w/t', { kind: 'path', path: dest });
    const t = path.join(dest, 't');
    expect(r.notes.join('\n')).toMatch(
      /ignored "..\/escape.txt" from the box: outside the grabbed directory/,
    );
    expect(r.notes.join('\n')).toMatch(/ignored "\/abs.txt"/);
    expect(r.notes.join('\n')).toMatch(/skipped ".\/evil": a symlink/);
    expect(r.notes.join('\n')).toMatch(/skipped ".\/hard": a hard link/);
    expect(r.notes.join('\n')).toMatch(/renamed "new\\nline" → "new_line"/);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(root, 'escape.txt'))).toBe(false);
    expect(lstatSync(path.join(t, 'evil')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(t, 'evil', 'through.txt'), 'utf8')).toBe('inside');
    expect(readFileSync(path.join(t, 'ok.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(path.join(t, 'ok-2.txt'), 'utf8')).toBe('again');
  });

  it('a directory swapped for a symlink mid-stream cannot redirect later writes', async () => {
    const archive = Buffer.concat(
      await tarOf([
        { name: './d', type: 'directory' },
        { name: './d/first.txt', body: 'a' },
        ...Array.from({ length: 50 }, (_, i) => ({
          name: `./d/f${i}.txt`,
          body: 'x'.repeat(4096),
        })),
      ]),
    );
    const parts = [archive.subarray(0, 3072), archive.subarray(3072)];
    const d = path.join(dest, 't', 'd');
    let swapped = false;
    const r = grabFromBox(
      box('d', parts, async (i) => {
        if (i !== 0) return;
        // Swapped once grab has made the directory from the first part, however long that takes.
        for (let n = 0; n < 2000 && !existsSync(path.join(d, 'first.txt')); n++) {
          await new Promise((done) => setTimeout(done, 5));
        }
        renameSync(d, path.join(root, 'moved'));
        symlinkSync(outside, d);
        swapped = true;
      }),
      '/w/t',
      { kind: 'path', path: dest },
    );
    await r.catch(() => undefined);
    expect(swapped).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('streams a single file to stdout, and refuses a directory there', async () => {
    const chunks: Buffer[] = [];
    const { PassThrough } = await import('node:stream');
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => chunks.push(c));
    await grabFromBox(box('f', [Buffer.from('bytes')]), '/w/x', {
      kind: 'stdout',
      stream: sink,
    });
    expect(Buffer.concat(chunks).toString()).toBe('bytes');
    await expect(
      grabFromBox(box('d', await tarOf([{ name: './x', body: 'x' }])), '/w/d', {
        kind: 'stdout',
        stream: new PassThrough(),
      }),
    ).rejects.toMatchObject({ rule: 'grab.stdout-needs-file' });
  });

  it('lands nothing, not even a temp, when the box fails part way through a file', async () => {
    await expect(
      grabFromBox(box('f', [Buffer.from('half')], undefined, 1), '/w/x', {
        kind: 'path',
        path: dest,
      }),
    ).rejects.toMatchObject({ rule: 'grab.incomplete' });
    expect(readdirSync(dest)).toEqual([]);
  });

  it('hands a file the temp descriptor and keeps its bytes exact', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const r = await grabFromBox(box('f', [bytes]), '/w/blob.bin', { kind: 'path', path: dest });
    expect(readFileSync(r.landed).equals(bytes)).toBe(true);
    expect(readdirSync(dest)).toEqual(['blob.bin']);
  });

  it('rejects a malformed header', async () => {
    await expect(
      grabFromBox(box('x'.repeat(100), []), '/w/x', { kind: 'path', path: dest }),
    ).rejects.toMatchObject({ rule: 'grab.bad-header' });
    expect(readdirSync(dest)).toEqual([]);
  });
});
