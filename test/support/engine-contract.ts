// The engine contract, written once: what byre relies on every Engine to do,
// one case or more for each of its methods. The unit tier runs it against the
// fake (src/engine/contract.test.ts) and the engine tier against docker,
// podman and rootless podman (test/engine/contract.test.ts), so the fake
// cannot drift from the engines. To stay cheap on real engines the cases
// share one tiny image build and one running box; boxes that only need to
// exist are created, never started. Every object it makes carries the label
// byre.test and a `byretest` name, so the engine tier's sweep removes
// whatever a failed run leaves.

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootShellHelperArgv } from '../../src/engine/argv.js';
import { isNotFound } from '../../src/engine/classify.js';
import type { Engine } from '../../src/engine/engine.js';
import { ByreError, EngineError } from '../../src/errors.js';
import { migrateVolumeArgv } from '../../src/lifecycle/rehome-project.js';
import { seedFreshVolumes, type PlannedVolume } from '../../src/session/volume-ops.js';
import {
  BOX_EXIT,
  STAGE_COMPLETE,
  deliverFileSpec,
  deliverTarSpec,
  grabSpec,
  grabTreeSpec,
  type BoxUser,
} from '../../src/transfer/box-scripts.js';
import { tarOf } from './tar.js';

export interface ContractSubject {
  engine: Engine;
  /** A local image with `sh`, `cat`, `tar` and `sleep` to build on; never pulled. */
  image: string;
  /** Removes what the contract left, failure paths included. */
  cleanup(): Promise<void>;
}

const TEST = 'byre.test';
/** A name no engine has: nothing is ever made under it. */
const ABSENT_ID = `sha256:${'0'.repeat(64)}`;

/** What a rejected promise threw; null when it resolved. */
async function thrown(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

/** Asserts `error` is the engine's "no such object", as the callers classify it. */
function expectNotFound(error: unknown): void {
  expect(error).toBeInstanceOf(EngineError);
  expect(isNotFound((error as EngineError).stderr)).toBe(true);
}

/** Names and bodies of a tar's regular files, sorted. */
async function filesIn(archive: Buffer): Promise<{ name: string; body: string }[]> {
  const extract = tar.extract();
  const files: { name: string; body: string }[] = [];
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file')
          files.push({ name: header.name, body: Buffer.concat(chunks).toString() });
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(archive);
  await done;
  return files.sort((a, b) => a.name.localeCompare(b.name));
}

/** A sink for execStream's stdout and what reached it. */
function sink(): { stream: PassThrough; bytes: () => Buffer } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, bytes: () => Buffer.concat(chunks) };
}

export function engineContract(label: string, make: () => Promise<ContractSubject>): void {
  describe(`engine contract: ${label}`, () => {
    let s: ContractSubject;
    const run = randomBytes(4).toString('hex');
    const name = (what: string): string => `byretest-contract-${run}-${what}`;
    const mine = { 'byre.contract': run };
    const labels = (what: string): string[] => [
      '--label',
      `${TEST}=1`,
      '--label',
      `byre.contract=${run}`,
      '--label',
      `byre.case=${what}`,
    ];
    /** The one image the contract builds, and the one box it runs (from that image). */
    const tag = name('image');
    let imageId = '';
    let built = '';
    let box = '';
    let context = '';
    const created: string[] = [];
    /** A box that only needs to exist: created from the base image, never started. */
    const create = async (
      what: string,
      command: string[] = ['true'],
      flags: string[] = [],
    ): Promise<string> => {
      const id = await s.engine.create([
        'create',
        '--name',
        name(what),
        ...labels(what),
        ...flags,
        s.image,
        ...command,
      ]);
      created.push(id);
      return id;
    };

    beforeAll(async () => {
      s = await make();
      // Readable by the rootless user the engine may run as.
      context = mkdtempSync(path.join(tmpdir(), 'byretest-contract-'));
      chmodSync(context, 0o755);
      writeFileSync(
        path.join(context, 'Dockerfile.generated'),
        `FROM ${s.image}\nARG BYRE_UID\nARG BYRE_GID\n`,
        { mode: 0o644 },
      );
      await s.engine.build(
        {
          tag,
          contextDir: context,
          noCache: false,
          uid: 1000,
          gid: 1000,
          labels: { [TEST]: '1', ...mine },
        },
        { onOutput: (chunk) => (built += chunk) },
      );
      const out = await s.engine.run([
        'run',
        '-d',
        '--name',
        name('box'),
        ...labels('box'),
        '-e',
        `BYRE_CONTRACT=${run}`,
        '--network',
        'none',
        tag,
        'sleep',
        '300',
      ]);
      box = out.stdout.trim().split('\n').pop() ?? '';
      created.push(box);
    }, 300_000);
    afterAll(async () => {
      for (const id of created) await s.engine.remove(id).catch(() => false);
      await s.engine.removeImage(tag).catch(() => false);
      if (context !== '') rmSync(context, { recursive: true, force: true });
      await s.cleanup();
    }, 120_000);

    it('build: tags the image with its labels, says what it does; the image queries agree', async () => {
      expect(built).not.toBe('');
      imageId = await s.engine.imageId(tag);
      expect(imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(await s.engine.imageExists(tag)).toBe(true);
      expect(await s.engine.imageLabels(tag)).toMatchObject({ [TEST]: '1', ...mine });
      const info = await s.engine.imageInfo(tag);
      expect(info).toMatchObject({ id: imageId, labels: mine });
      // Several in one call, in their order; one absent makes it null (ask each then).
      const all = await s.engine.imageInfoAll([s.image, tag, s.image]);
      const baseId = await s.engine.imageId(s.image);
      expect(all?.map((i) => i.id)).toEqual([baseId, imageId, baseId]);
      expect(all?.[1]?.labels).toMatchObject(mine);
      expect(await s.engine.imageInfoAll([tag, name('no-image'), s.image])).toBeNull();
      const rows = await s.engine.imageList({ labels: mine });
      expect(rows.map((r) => r.id)).toEqual([imageId]);
      expect(rows[0]?.ref?.endsWith(`${tag}:latest`)).toBe(true);
      // Not asserted: an absent has-label with labels empties the list on docker, not on
      // podman (it ORs image label filters), and the adapter does not AND them yet.
      expect(await s.engine.imageList({ hasLabels: ['byre.contract'], labels: mine })).toHaveLength(
        1,
      );
      const facts = await s.engine.inspectImages([imageId, ABSENT_ID]);
      expect(facts).toEqual([{ id: imageId, labels: expect.objectContaining(mine) as object }]);
    });

    it('an absent image: exists false, info null, id and labels a not-found EngineError', async () => {
      const absent = name('no-image');
      expect(await s.engine.imageExists(absent)).toBe(false);
      expect(await s.engine.imageInfo(absent)).toBeNull();
      expectNotFound(await thrown(s.engine.imageId(absent)));
      expectNotFound(await thrown(s.engine.imageLabels(absent)));
      expect(await s.engine.removeImage(absent)).toBe(false);
      expect(await s.engine.inspectImages([ABSENT_ID])).toEqual([]);
    });

    it('create returns the full id, and the labels are there right after', async () => {
      const id = await create('labels');
      expect(id).toMatch(/^[0-9a-f]{64}$/);
      expect(await s.engine.inspectLabels(id)).toMatchObject({
        [TEST]: '1',
        ...mine,
        'byre.case': 'labels',
      });
      const [facts] = await s.engine.inspectContainers([id]);
      expect(facts).toMatchObject({ id, running: false, labels: { 'byre.case': 'labels' } });
    });

    it('a running box: its env, network mode and labels as it was run with', async () => {
      expect(box).toMatch(/^[0-9a-f]{64}$/);
      expect(await s.engine.inspectEnv(box)).toMatchObject({ BYRE_CONTRACT: run });
      expect(await s.engine.networkMode(box)).toBe('none');
      expect(await s.engine.inspectContainers([box, name('missing')])).toEqual([
        {
          id: box,
          running: true,
          labels: expect.objectContaining({ 'byre.case': 'box' }) as object,
          env: expect.objectContaining({ BYRE_CONTRACT: run }) as object,
        },
      ]);
    });

    it('ps filters by every label, by presence, and by running unless all', async () => {
      const stopped = await create('ps');
      const sorted = (ids: string[]): string[] => [...ids].sort();
      const all = sorted(await s.engine.ps({ labels: mine, all: true }));
      expect(all).toEqual(sorted(created));
      expect(await s.engine.ps({ labels: mine, all: false })).toEqual([box]);
      expect(await s.engine.ps({ labels: { ...mine, 'byre.case': 'ps' }, all: true })).toEqual([
        stopped,
      ]);
      expect(
        await s.engine.ps({ labels: mine, hasLabels: ['byre.no-such-label'], all: true }),
      ).toEqual([]);
      const rows = await s.engine.psLabels({ labels: mine, all: false }, ['byre.case', 'absent']);
      expect(rows).toEqual([{ id: box, labels: { 'byre.case': 'box' } }]);
    });

    it('create refuses a name in use, and leaves the box that has it', async () => {
      const id = await create('taken');
      const error = await thrown(
        s.engine.create(['create', '--name', name('taken'), ...labels('taken'), s.image, 'true']),
      );
      expect(error).toBeInstanceOf(EngineError);
      expect(await s.engine.ps({ labels: { ...mine, 'byre.case': 'taken' }, all: true })).toEqual([
        id,
      ]);
    });

    it('remove says whether there was a box; a missing one is false, never an error', async () => {
      const id = await create('remove');
      expect(await s.engine.remove(id)).toBe(true);
      expect(await s.engine.remove(id)).toBe(false);
      expect(await s.engine.remove(name('never-made'))).toBe(false);
      expect(await s.engine.inspectContainers([id])).toEqual([]);
    });

    it('a missing box is an EngineError whose stderr reads as not found', async () => {
      const missing = name('missing');
      expectNotFound(await thrown(s.engine.inspectLabels(missing)));
      expectNotFound(await thrown(s.engine.inspectEnv(missing)));
      expectNotFound(await thrown(s.engine.networkMode(missing)));
      expectNotFound(await thrown(s.engine.stop(missing, 0)));
      const [facts] = await s.engine.inspectContainers([missing]);
      expect(facts).toBeUndefined();
    });

    it('exec: the command’s exit status and output are data, a missing box is a non-zero status', async () => {
      const seven = await s.engine.exec({ id: box, command: ['sh', '-c', 'echo out; exit 7'] });
      expect(seven).toMatchObject({ exitCode: 7, stdout: 'out\n' });
      const fed = await s.engine.exec({ id: box, command: ['cat'] }, { input: 'fed' });
      expect(fed).toMatchObject({ exitCode: 0, stdout: 'fed' });
      const missing = await s.engine.exec({ id: name('missing'), command: ['true'] });
      expect(missing.exitCode).not.toBe(0);
      expect(isNotFound(missing.stderr)).toBe(true);
      const out = sink();
      let heard = '';
      const streamed = await s.engine.execStream(
        { id: box, command: ['sh', '-c', 'cat; echo err >&2; exit 3'] },
        { stdin: new PassThrough().end('in'), stdout: out.stream, onStderr: (c) => (heard += c) },
      );
      expect(streamed.exitCode).toBe(3);
      expect(streamed.stderr).toContain('err');
      expect(heard).toContain('err');
      expect(out.bytes().toString()).toBe('in');
      const gone = await s.engine.execStream(
        { id: name('missing'), command: ['true'] },
        { stdout: sink().stream },
      );
      expect(gone.exitCode).not.toBe(0);
      expect(isNotFound(gone.stderr)).toBe(true);
    });

    it('execAttached: the command’s exit status; a missing box is a non-zero status', async () => {
      expect(await s.engine.execAttached({ id: box, command: ['sh', '-c', 'exit 6'] })).toBe(6);
      expect(await s.engine.execAttached({ id: name('missing'), command: ['true'] })).not.toBe(0);
    });

    it('logs: stdout and stderr apart, the last lines of both when asked; a missing box is null', async () => {
      const out = await s.engine.run([
        'run',
        '-d',
        '--name',
        name('logs'),
        ...labels('logs'),
        s.image,
        'sh',
        '-c',
        'printf "one\\ntwo\\nthree\\n"; echo err >&2; sleep 300',
      ]);
      const id = out.stdout.trim().split('\n').pop() ?? '';
      created.push(id);
      // The engine's log catches up with a just-started box (seconds on a loaded
      // machine): wait for both streams' last lines, up to 30 s.
      let all = await s.engine.logs(id);
      for (
        let i = 0;
        i < 300 && !(all?.stderr === 'err\n' && all.stdout.endsWith('three\n'));
        i++
      ) {
        await new Promise((r) => setTimeout(r, 100));
        all = await s.engine.logs(id);
      }
      expect(all).toEqual({ stdout: 'one\ntwo\nthree\n', stderr: 'err\n' });
      expect((await s.engine.logs(name('logs')))?.stdout).toBe('one\ntwo\nthree\n');
      // The tail counts the log's lines of both streams together (the two
      // streams' order in the log is the engine's, so only the count is fixed).
      const lineCount = (o: { stdout: string; stderr: string } | null) =>
        `${o?.stdout ?? ''}${o?.stderr ?? ''}`.split('\n').filter((l) => l !== '').length;
      expect(lineCount(await s.engine.logs(id, { tail: 2 }))).toBe(2);
      expect(lineCount(await s.engine.logs(id, { tail: 1 }))).toBe(1);
      expect(await s.engine.logs(name('missing'), { tail: 5 })).toBeNull();
    });

    it('deliver and grab: byre’s box scripts land, number, refuse and stream back alike', async () => {
      const who: BoxUser = { id: box, uid: 1000, gid: 1000 };
      const deliver = async (file: string, bytes: string, size = bytes.length, inbox = '/tmp') =>
        s.engine.execStream(deliverFileSpec(who, file, size, inbox), {
          stdin: new PassThrough().end(bytes),
          stdout: (out = sink()).stream,
        });
      let out = sink();
      expect(await deliver('note.txt', 'hello')).toMatchObject({ exitCode: 0 });
      expect(out.bytes().toString()).toBe('/tmp/note.txt\n');
      expect(await deliver('note.txt', 'again')).toMatchObject({ exitCode: 0 });
      expect(out.bytes().toString()).toBe('/tmp/note-2.txt\n');
      const short = await deliver('short.txt', 'cut', 10);
      expect(short.exitCode).toBe(1);
      expect(short.stderr).toContain('ended early');
      expect(out.bytes().toString()).toBe('');
      const noInbox = await deliver('x', 'x', 1, `/${name('no-inbox')}`);
      expect(noInbox.exitCode).toBe(BOX_EXIT.noInbox);

      const grab = async (p: string) => {
        out = sink();
        return s.engine.execStream(grabSpec(who, p, 'contract'), { stdout: out.stream });
      };
      const file = await grab('/tmp/note-2.txt');
      expect(file.exitCode).toBe(0);
      expect(file.stderrHead).toMatch(/^byre-grab pid \d+\nbyre-grab 1 f\n/);
      expect(out.bytes().toString()).toBe('again');
      const dir = await grab('/tmp');
      expect(dir.stderr).toMatch(/\nbyre-grab 1 d\n/);
      expect(out.bytes().toString()).toBe('');
      expect((await grab('/tmp/short.txt')).exitCode).toBe(BOX_EXIT.grabClassify);

      const staged = await tarOf([
        { name: '000001/', type: 'directory' },
        { name: '000001/tree/', type: 'directory' },
        { name: '000001/tree/a.txt', body: 'A' },
        { name: STAGE_COMPLETE, body: '' },
      ]);
      out = sink();
      const tree = await s.engine.execStream(deliverTarSpec(who, '/tmp'), {
        stdin: new PassThrough().end(staged),
        stdout: out.stream,
      });
      expect(tree.exitCode).toBe(0);
      expect(out.bytes().toString()).toBe('/tmp/tree\n');
      out = sink();
      const back = await s.engine.execStream(grabTreeSpec(who, '/tmp/tree', 'contract'), {
        stdout: out.stream,
      });
      expect(back.exitCode).toBe(0);
      expect(await filesIn(out.bytes())).toEqual([{ name: './a.txt', body: 'A' }]);
    });

    it('startAttached: the box’s exit status; a --rm box is then gone', async () => {
      const what = 'attached';
      await s.engine.create([
        'create',
        '--rm',
        '--name',
        name(what),
        ...labels(what),
        s.image,
        'sh',
        '-c',
        'exit 5',
      ]);
      expect(await s.engine.startAttached(name(what), { tty: false })).toBe(5);
      // The engine removes a --rm box as it ends; docker may answer a moment before.
      let left: string[] = [];
      for (let i = 0; i < 50; i++) {
        left = await s.engine.ps({ labels: { ...mine, 'byre.case': what }, all: true });
        if (left.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(left).toEqual([]);
    });

    it('run: a helper’s output is the answer, its non-zero exit an EngineError; --rm leaves nothing', async () => {
      const helper = (what: string, script: string): string[] => [
        'run',
        '--rm',
        '--name',
        name(what),
        ...labels(what),
        s.image,
        'sh',
        '-c',
        script,
      ];
      expect((await s.engine.run(helper('rm', 'echo hi'))).stdout).toBe('hi\n');
      const failed = await thrown(s.engine.run(helper('rm-fail', 'exit 3')));
      expect(failed).toBeInstanceOf(EngineError);
      expect((failed as EngineError).engineExitCode).toBe(3);
      expect(await s.engine.ps({ labels: { ...mine, 'byre.case': 'rm' }, all: true })).toEqual([]);
    });

    it('runStream: an attached helper reads its stdin to the end and streams its stdout', async () => {
      const out = sink();
      const r = await s.engine.runStream(
        ['run', '-i', '--rm', '--name', name('stream'), ...labels('stream'), s.image, 'cat'],
        { stdin: Readable.from([Buffer.from('one\ntwo\n')]), stdout: out.stream },
      );
      expect(r.exitCode).toBe(0);
      expect(out.bytes().toString()).toBe('one\ntwo\n');
      // A helper created with -i (while what it joins starts), then started attached.
      const created = name('stream-created');
      await s.engine.create([
        'create',
        '-i',
        '--name',
        created,
        ...labels('stream'),
        s.image,
        'cat',
      ]);
      try {
        const later = sink();
        const started = await s.engine.runStream(['start', '--attach', '--interactive', created], {
          stdin: Readable.from([Buffer.from('three\n')]),
          stdout: later.stream,
        });
        expect(started.exitCode).toBe(0);
        expect(later.bytes().toString()).toBe('three\n');
      } finally {
        expect(await s.engine.remove(created)).toBe(true);
      }
    });

    it('runStream of a `run --cidfile` (the edge, adr/0081): the id is in the file while it runs; a name in use is refused with none', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'byretest-contract-cid-'));
      const argv = (cidfile: string): string[] => [
        'run',
        '-i',
        '--cidfile',
        cidfile,
        '--name',
        name('cid'),
        ...labels('cid'),
        s.image,
        'cat',
      ];
      const stdin = new PassThrough();
      const out = sink();
      const cidfile = path.join(dir, 'cid');
      const running = s.engine.runStream(argv(cidfile), { stdin, stdout: out.stream });
      try {
        let id = '';
        for (let i = 0; i < 600 && !/^[0-9a-f]{64}$/.test(id); i++) {
          await new Promise((r) => setTimeout(r, 50));
          id = existsSync(cidfile) ? readFileSync(cidfile, 'utf8').trim() : '';
        }
        expect(id).toMatch(/^[0-9a-f]{64}$/);
        created.push(id);
        const again = path.join(dir, 'cid-again');
        const refused = await s.engine.runStream(argv(again), {
          stdin: Readable.from([]),
          stdout: sink().stream,
        });
        expect(refused.exitCode).toBe(125);
        expect(existsSync(again) ? readFileSync(again, 'utf8') : '').toBe('');
        // An absent image is refused alike (never pulled), with no id.
        const absent = path.join(dir, 'cid-absent');
        const noImage = await s.engine.runStream(
          [
            'run',
            '-i',
            '--pull=never',
            '--cidfile',
            absent,
            ...labels('cid'),
            name('no-image'),
            'cat',
          ],
          { stdin: Readable.from([]), stdout: sink().stream },
        );
        expect(noImage.exitCode).toBe(125);
        expect(existsSync(absent) ? readFileSync(absent, 'utf8') : '').toBe('');
        stdin.end('four\n');
        expect((await running).exitCode).toBe(0);
        expect(out.bytes().toString()).toBe('four\n');
        expect(await s.engine.remove(id)).toBe(true);
      } finally {
        stdin.end();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('volumes: created with labels, listed by label and by name, inspected, removed once', async () => {
      const vol = name('vol');
      await s.engine.volumeCreate(vol, { [TEST]: '1', ...mine });
      expect(await s.engine.volumeExists(vol)).toBe(true);
      expect(await s.engine.volumeList({ labels: mine })).toEqual([vol]);
      expect(await s.engine.volumeList({ name: vol })).toContain(vol);
      expect(
        await s.engine.volumeList({ name: vol, labels: { 'byre.contract': 'other' } }),
      ).toEqual([]);
      expect(await s.engine.inspectVolumes([vol, name('no-vol')])).toEqual([
        { id: vol, labels: expect.objectContaining(mine) as object },
      ]);
      // ps by volume: only a box that mounts it, stopped ones with `all`.
      const user = await create(
        'vol-user',
        ['true'],
        ['--mount', `type=volume,source=${vol},target=/data`],
      );
      expect(await s.engine.ps({ labels: mine, all: true, volume: vol })).toEqual([user]);
      expect(await s.engine.ps({ labels: mine, all: false, volume: vol })).toEqual([]);
      expect(await s.engine.remove(user)).toBe(true);
      expect(await s.engine.volumeRemove(vol)).toBe(true);
      expect(await s.engine.volumeRemove(vol)).toBe(false);
      expect(await s.engine.volumeExists(vol)).toBe(false);
    });

    it('volume helpers: a literal seed lands at its path, a copy carries it over, a failed seed is removed', async () => {
      const keepId = s.engine.facts.keepId;
      const [a, b, c] = [name('seed-a'), name('seed-b'), name('seed-c')];
      for (const v of [a, b, c]) await s.engine.volumeCreate(v, { [TEST]: '1', ...mine });
      const seeded = (vol: string, at: string): PlannedVolume => ({
        name: vol,
        decl: {
          name: 'prefs',
          role: 'state',
          target: '/home/dev/prefs',
          scope: 'project',
          sharing: 'shared',
          seed: { literal: `seeded ${at}\n`, path: at },
        },
      });
      const seed = { image: s.image, uid: 1000, gid: 1000, keepId, home: '/nonexistent' };
      const read = async (vol: string, file: string): Promise<string> =>
        (
          await s.engine.run([
            ...rootShellHelperArgv(keepId),
            '--mount',
            `type=volume,source=${vol},target=/v`,
            s.image,
            '-c',
            `cat /v/${file}`,
          ])
        ).stdout;
      try {
        expect(
          await seedFreshVolumes(s.engine, [seeded(a, 'conf/settings')], new Set([a]), seed),
        ).toEqual([a]);
        expect(await read(a, 'conf/settings')).toBe('seeded conf/settings\n');
        await s.engine.run(migrateVolumeArgv(a, b, s.image, keepId));
        expect(await read(b, 'conf/settings')).toBe('seeded conf/settings\n');
        // A seed whose path runs through a file fails; the volume goes, so the next launch retries.
        await seedFreshVolumes(s.engine, [seeded(c, 'conf')], new Set([c]), seed);
        const failed = await thrown(
          seedFreshVolumes(s.engine, [seeded(c, 'conf/settings')], new Set([c]), seed),
        );
        expect(failed).toBeInstanceOf(ByreError);
        expect((failed as ByreError).rule).toBe('volume.seed-failed');
        expect(await s.engine.volumeExists(c)).toBe(false);
        expect(await thrown(read(a, 'absent'))).toBeInstanceOf(EngineError);
      } finally {
        for (const v of [a, b, c]) await s.engine.volumeRemove(v).catch(() => false);
      }
    });

    it('storage and registry: a local root; an unreachable registry is an answer, never a throw', async () => {
      const storage = await s.engine.storageInfo();
      expect(path.isAbsolute(storage.root)).toBe(true);
      expect(storage.remote).toBe(false);
      // Nothing listens on port 9 here: refused at once, no traffic leaves the machine.
      const asked = await s.engine.registryHas(`127.0.0.1:9/${name('none')}:1`, 30_000);
      expect(asked.has).toBe(false);
      expect(asked.has === false && asked.why.trim() !== '').toBe(true);
    });

    it('stop, then remove the box and its image: each says once that it was there', async () => {
      await s.engine.stop(box, 0);
      expect((await s.engine.inspectContainers([box]))[0]?.running).toBe(false);
      await s.engine.stop(box, 0);
      expect(await s.engine.remove(box)).toBe(true);
      expect(await s.engine.removeImage(tag)).toBe(true);
      expect(await s.engine.removeImage(tag)).toBe(false);
      expect(await s.engine.imageExists(tag)).toBe(false);
      expect(await s.engine.imageInfo(tag)).toBeNull();
      expect(await s.engine.inspectImages([imageId])).toEqual([]);
    });
  });
}
