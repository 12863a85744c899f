// `byre grab`'s decision table on the fake engine, whose box runs byre's grab
// scripts over its in-memory files: a file or tree lands under the host path
// (printed on stdout, escaped), relative box paths count from /workspace, `-`
// streams one file to stdout, an existing host file is never overwritten,
// and the refusals (bad limits before any engine is asked, a missing box
// path, no box) say so. A hostile box's streams are grab-from-box.test.ts's.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';

import { FakeEngine, type FakeContainer } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';

import { LABEL } from '../gen/names.js';
import { projectIdFor } from '../project/identity.js';
import type { CommandDeps } from './deps.js';
import { grabCommand, type GrabOptions } from './grab.js';
import { failure } from '../../test/support/failure.js';

interface World {
  dir: string;
  io: FakeIo;
  engine: FakeEngine;
  box: FakeContainer;
  deps: CommandDeps;
}

let w: World;

useTempDir('grab-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  mkdirSync(dir);
  const id = projectIdFor(dir);
  const engine = new FakeEngine();
  const box = engine.addContainer({
    name: `byre-${id}`,
    labels: {
      [LABEL.project]: id,
      [LABEL.workdir]: id,
      'byre.uid': '1000',
      'byre.gid': '1000',
    },
    env: { BYRE_UID: '1000', BYRE_GID: '1000' },
  });
  box.fs.mkdir('/workspace');
  w = {
    dir,
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: path.join(tmp, 'store') } }),
    engine,
    box,
    deps: { pool: { members: [{ name: 'docker', state: 'ok', engine }] } },
  };
});

/** What the box wrote for a single file: the fake keeps what it is asked to write to a descriptor. */
function fileBytes(): string {
  return w.engine.descriptorOutput.map((d) => d.bytes.toString()).join('');
}

function grab(boxPath: string, host?: string, options: GrabOptions = {}): Promise<void> {
  return grabCommand(w.io, boxPath, host, options, w.deps);
}

describe('byre grab', () => {
  it('lands a file in the current directory by default, and prints where', async () => {
    w.box.fs.writeFile('/workspace/notes.txt', 'from the box\n');
    await grab('notes.txt');
    const landed = path.join(w.dir, 'notes.txt');
    expect(w.io.out).toBe(`${landed}\n`);
    expect(existsSync(landed)).toBe(true);
    expect(fileBytes()).toBe('from the box\n');
    const command = w.engine.callsTo('execStream')[0]?.[0] as { command: string[] };
    expect(command.command).toContain('/workspace/notes.txt');
  });

  it('counts a relative box path from /workspace, an absolute one as given', async () => {
    w.box.fs.writeFile('/home/dev/rc', 'rc\n');
    await grab('/home/dev/rc', 'got');
    expect(w.io.out).toBe(`${path.join(w.dir, 'got')}\n`);
    expect(fileBytes()).toBe('rc\n');
    const scripts = w.engine
      .callsTo('execStream')
      .map((c) => (c[0] as { command: string[] }).command);
    expect(scripts[0]).toContain('/home/dev/rc');
  });

  it('never overwrites a host file: the grab lands beside it', async () => {
    writeFileSync(path.join(w.dir, 'notes.txt'), 'mine\n');
    w.box.fs.writeFile('/workspace/notes.txt', 'theirs\n');
    await grab('notes.txt');
    expect(readFileSync(path.join(w.dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(w.io.out).toBe(`${path.join(w.dir, 'notes-2.txt')}\n`);
    expect(fileBytes()).toBe('theirs\n');
  });

  it('lands a whole tree', async () => {
    w.box.fs.mkdir('/workspace/out');
    w.box.fs.mkdir('/workspace/out/sub');
    w.box.fs.writeFile('/workspace/out/sub/a.txt', 'a\n');
    await grab('out', 'copy');
    expect(w.io.out).toBe(`${path.join(w.dir, 'copy')}\n`);
    expect(readFileSync(path.join(w.dir, 'copy', 'sub', 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('`-` streams one file to stdout and prints no path', async () => {
    w.box.fs.writeFile('/workspace/notes.txt', 'piped\n');
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    w.io = fakeIo({ cwd: w.dir, env: w.io.env, stdoutStream: stream });
    await grab('notes.txt', '-');
    expect(Buffer.concat(chunks).toString()).toBe('piped\n');
    expect(w.io.out).toBe('');
  });

  it('a path the box does not have lands nothing and says so', async () => {
    const error = await failure(grab('missing.txt'));
    expect(error.message).toContain('no such path in the box');
    expect(w.io.out).toBe('');
    expect(existsSync(path.join(w.dir, 'missing.txt'))).toBe(false);
  });

  it('a limit that does not parse is a usage error before any engine is asked', async () => {
    const error = await failure(grab('notes.txt', undefined, { maxSize: 'lots' }));
    expect(error.exitCode).toBe(2);
    expect(w.engine.calls).toEqual([]);
  });

  it('with no box running anywhere it refuses and grabs nothing', async () => {
    w.box.running = false;
    const error = await failure(grab('notes.txt'));
    expect(error.rule).toMatch(/^transfer\./);
    expect(w.engine.callsTo('execStream')).toEqual([]);
  });
});
