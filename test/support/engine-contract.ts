// The engine contract, written once: what byre relies on every Engine to do.
// The unit tier runs it against the fake (src/engine/contract.test.ts) and the
// engine tier against docker, podman and rootless podman
// (test/engine/contract.test.ts), so the fake cannot drift from the engines.
// Every object it makes carries the label byre.test and a `byretest` name,
// so the engine tier's sweep removes whatever a failed run leaves.

import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../src/engine/classify.js';
import type { Engine } from '../../src/engine/engine.js';
import { EngineError } from '../../src/errors.js';

export interface ContractSubject {
  engine: Engine;
  /** A local image with `sh` and `sleep`; never pulled. */
  image: string;
  /** Removes what the contract left, failure paths included. */
  cleanup(): Promise<void>;
}

const TEST = 'byre.test';

export function engineContract(label: string, make: () => Promise<ContractSubject>): void {
  describe(`engine contract: ${label}`, () => {
    let s: ContractSubject;
    const run = randomBytes(4).toString('hex');
    const name = (what: string): string => `byretest-contract-${run}-${what}`;
    const labels = (what: string): string[] => [
      '--label',
      `${TEST}=1`,
      '--label',
      `byre.contract=${run}`,
      '--label',
      `byre.case=${what}`,
    ];
    const created: string[] = [];
    const create = async (what: string, command: string[] = ['true']): Promise<string> => {
      const id = await s.engine.create([
        'create',
        '--name',
        name(what),
        ...labels(what),
        s.image,
        ...command,
      ]);
      created.push(id);
      return id;
    };
    /** A running box for exec: detached, removed at the end. */
    const running = async (what: string): Promise<string> => {
      const out = await s.engine.run([
        'run',
        '-d',
        '--name',
        name(what),
        ...labels(what),
        s.image,
        'sleep',
        '300',
      ]);
      const id = out.stdout.trim().split('\n').pop() ?? '';
      created.push(id);
      return id;
    };

    beforeAll(async () => {
      s = await make();
    }, 120_000);
    afterAll(async () => {
      for (const id of created) await s.engine.remove(id).catch(() => false);
      await s.cleanup();
    }, 120_000);

    it('create returns the full id, and the labels are there right after', async () => {
      const id = await create('labels');
      expect(id).toMatch(/^[0-9a-f]{64}$/);
      expect(await s.engine.inspectLabels(id)).toMatchObject({
        [TEST]: '1',
        'byre.contract': run,
        'byre.case': 'labels',
      });
      const [facts] = await s.engine.inspectContainers([id]);
      expect(facts).toMatchObject({ id, running: false, labels: { 'byre.case': 'labels' } });
    });

    it('ps filters by every label, by presence, and by running unless all', async () => {
      const a = await create('ps-a');
      const b = await running('ps-b');
      const mine = { 'byre.contract': run };
      const sorted = (ids: string[]): string[] => [...ids].sort();
      expect(sorted(await s.engine.ps({ labels: mine, all: true }))).toEqual(
        sorted(created.filter((id) => id === a || id === b || created.includes(id))),
      );
      expect(await s.engine.ps({ labels: mine, all: false })).toEqual([b]);
      expect(await s.engine.ps({ labels: { ...mine, 'byre.case': 'ps-a' }, all: true })).toEqual([
        a,
      ]);
      expect(
        await s.engine.ps({ labels: mine, hasLabels: ['byre.no-such-label'], all: true }),
      ).toEqual([]);
      const rows = await s.engine.psLabels({ labels: mine, all: false }, ['byre.case', 'absent']);
      expect(rows).toEqual([{ id: b, labels: { 'byre.case': 'ps-b' } }]);
    });

    it('remove says whether there was a box; a missing one is false, never an error', async () => {
      const id = await create('remove');
      expect(await s.engine.remove(id)).toBe(true);
      expect(await s.engine.remove(id)).toBe(false);
      expect(await s.engine.remove(name('never-made'))).toBe(false);
      expect(await s.engine.inspectContainers([id])).toEqual([]);
    });

    it('a missing box is an EngineError whose stderr reads as not found', async () => {
      const error = await s.engine.inspectLabels(name('missing')).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EngineError);
      expect(isNotFound((error as EngineError).stderr)).toBe(true);
      const [facts] = await s.engine.inspectContainers([name('missing')]);
      expect(facts).toBeUndefined();
    });

    it('exec: the command’s exit status and output are data, a missing box is a non-zero status', async () => {
      const id = await running('exec');
      const seven = await s.engine.exec({ id, command: ['sh', '-c', 'echo out; exit 7'] });
      expect(seven).toMatchObject({ exitCode: 7, stdout: 'out\n' });
      const fed = await s.engine.exec({ id, command: ['cat'] }, { input: 'fed' });
      expect(fed).toMatchObject({ exitCode: 0, stdout: 'fed' });
      const missing = await s.engine.exec({ id: name('missing'), command: ['true'] });
      expect(missing.exitCode).not.toBe(0);
      expect(isNotFound(missing.stderr)).toBe(true);
      const sink = new PassThrough();
      const chunks: Buffer[] = [];
      sink.on('data', (c: Buffer) => chunks.push(c));
      let heard = '';
      const streamed = await s.engine.execStream(
        { id, command: ['sh', '-c', 'cat; echo err >&2; exit 3'] },
        { stdin: new PassThrough().end('in'), stdout: sink, onStderr: (c) => (heard += c) },
      );
      expect(streamed.exitCode).toBe(3);
      expect(streamed.stderr).toContain('err');
      expect(heard).toContain('err');
      expect(Buffer.concat(chunks).toString()).toBe('in');
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
      let got = await s.engine.logs(id, { tail: 2 });
      // The engine's log catches up with a just-started box: wait for its last line.
      for (let i = 0; i < 50 && got?.stderr.includes('err') !== true; i++) {
        await new Promise((r) => setTimeout(r, 100));
        got = await s.engine.logs(id, { tail: 2 });
      }
      // The tail counts the log's lines of both streams together.
      expect(got?.stdout).toBe('three\n');
      expect(got?.stderr).toBe('err\n');
      expect((await s.engine.logs(name('logs')))?.stdout).toBe('one\ntwo\nthree\n');
      expect(await s.engine.logs(name('missing'), { tail: 5 })).toBeNull();
    });

    it('a --rm box is gone once it has run', async () => {
      await s.engine.run(['run', '--rm', '--name', name('rm'), ...labels('rm'), s.image, 'true']);
      expect(
        await s.engine.ps({ labels: { 'byre.contract': run, 'byre.case': 'rm' }, all: true }),
      ).toEqual([]);
    });

    it('volumes: created with labels, listed by label and by name, removed once', async () => {
      const vol = name('vol');
      await s.engine.volumeCreate(vol, { [TEST]: '1', 'byre.contract': run });
      expect(await s.engine.volumeExists(vol)).toBe(true);
      expect(await s.engine.volumeList({ labels: { 'byre.contract': run } })).toEqual([vol]);
      expect(await s.engine.volumeList({ name: vol })).toContain(vol);
      expect(
        await s.engine.volumeList({ name: vol, labels: { 'byre.contract': 'other' } }),
      ).toEqual([]);
      expect(await s.engine.volumeRemove(vol)).toBe(true);
      expect(await s.engine.volumeRemove(vol)).toBe(false);
      expect(await s.engine.volumeExists(vol)).toBe(false);
    });
  });
}
