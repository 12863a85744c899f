// The edge helper's runner against the fake engine (adr/0070): its argv
// (run with stdin open in one call (adr/0081), before the box, owning the box's network
// (adr/0079), three capabilities, no value), its stdin (the encoded input,
// whole, held open until the session closes it), and failing closed — a
// helper that exits or stays silent before its ready line is removed.
// test/engine/edge.test.ts proves it on docker and podman.

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { edgeHelperName, startEdge } from './edge.js';

// edge.ts's MAX_EDGE_EVENTS.
const KEPT_EVENTS = 1000;

const SECRET = 'sk-test-not-in-argv';
const INPUT = `{"byre-edge":1,"route":{"value":"${SECRET}"}}\n{"byre-edge":1,"end":true}\n`;

function setup(): { engine: FakeEngine; fed: Buffer[] } {
  const engine = new FakeEngine({ name: 'docker' });
  engine.images.set('byre-edge', { id: 'sha256:edge-image', labels: {} });
  return { engine, fed: [] };
}

/** The box's network as run-argv's edgeNetworkFlags gives it. */
const NETWORK = ['--add-host', 'api.x.com:127.31.0.1', '-p', '127.0.0.1:8080:80'];

const plan = (network: readonly string[] = NETWORK) => ({
  box: 'byre-box',
  project: 'proj-1a2b3c',
  image: 'sha256:edge-image',
  ports: [8443, 443, 443],
  input: INPUT,
  network,
});

/** The edge's run argv, as the engine was given it. */
const runArgv = (engine: FakeEngine): string[] =>
  engine.calls.find((c) => c.method === 'runStream')?.args[0] as string[];

describe('startEdge', () => {
  it('runs the baked edge under node, made and started attached in one call, owning the box’s network, with three capabilities and no value', async () => {
    const { engine, fed } = setup();
    engine.onRunStream = async (_argv, stdin) => {
      fed.push(stdin);
      return {
        exitCode: 0,
        stdout: 'byre-edge 1 ready\nbyre-edge 1 refused 1 plain-http x.com\n',
        stderr: '',
      };
    };
    const starting = startEdge(engine, plan());
    const edge = await starting.started;
    expect(await starting.created).toBe(edge.id);
    const argv = runArgv(engine);
    const name = edgeHelperName('byre-box');
    expect(name).toMatch(/^byre-edge-[0-9a-f]{16}$/);
    expect(edge.id).toBe(engine.containers.get(edge.id)?.id);
    // One call: the engine writes the id to a file of byre's private temp
    // directory, removed once read.
    expect(argv.slice(0, 2)).toEqual(['run', '--cidfile']);
    expect(argv[2]).toMatch(/byre-edge-[^/]+\/cid$/);
    expect(existsSync(path.dirname(argv[2] ?? ''))).toBe(false);
    expect(argv.slice(3)).toEqual([
      '-i',
      '--pull=never',
      '--name',
      name,
      // The image's project label emptied: a census never counts a helper as a box.
      '--label',
      'byre.project=',
      '--label',
      'byre.helper=proj-1a2b3c',
      '-u',
      '0:0',
      // The box's host entries and ports: the box joins this network (adr/0079).
      ...NETWORK,
      '--label',
      'byre.edge=byre-box',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--cap-add',
      'NET_BIND_SERVICE',
      '--cap-add',
      'SETGID',
      '--cap-add',
      'SETUID',
      '--stop-timeout',
      '1',
      '--entrypoint',
      '/bin/sh',
      // byre's edge image (adr/0077), by id: nothing of the config's in it.
      'sha256:edge-image',
      // A shell says the container runs, then becomes node, the script
      // restored from the image's startup snapshot (adr/0078).
      '-c',
      "printf '%s\\n' 'byre-edge 1 up'; exec node --no-warnings --snapshot-blob /usr/local/lib/byre/byre-edge.blob -- \"$@\"",
      'byre-edge',
      '--port',
      '443',
      '--port',
      '8443',
      // The box's launcher waits for it there (adr/0084).
      '--gate-port',
      '7228',
    ]);
    expect(argv.join(' ')).not.toContain(SECRET);
    expect(Buffer.concat(fed).toString()).toBe(INPUT);
    await edge.ended;
    expect(edge.events).toEqual(['byre-edge 1 refused 1 plain-http x.com']);
    // No stale helper: nothing removed, nothing else asked.
    expect(engine.calls.map((c) => c.method)).toEqual(['runStream']);
  });

  it('removes a stale helper of the box when its name is taken, then makes its own', async () => {
    const { engine } = setup();
    const stale = engine.addContainer({ name: edgeHelperName('byre-box'), running: false });
    engine.onRunStream = async () => ({ exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' });
    const edge = await startEdge(engine, plan()).started;
    expect(engine.calls.map((c) => c.method)).toEqual(['runStream', 'remove', 'runStream']);
    expect(engine.calls[1]?.args[0]).toBe(edgeHelperName('byre-box'));
    expect(engine.containers.has(stale.id)).toBe(false);
    expect(engine.containers.has(edge.id)).toBe(true);
  });

  it('before the setup lock (adr/0080) a name in use is refused, and the helper holding it is left alone', async () => {
    const { engine, fed } = setup();
    const held = engine.addContainer({ name: edgeHelperName('byre-box') });
    engine.onRunStream = async (_argv, stdin) => {
      fed.push(stdin);
      return { exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' };
    };
    const starting = startEdge(engine, plan(), { replace: false });
    await expect(starting.started).rejects.toMatchObject({
      rule: 'edge.not-ready',
      message: 'the edge for injected credentials could not be created',
      details: [`the container name "${edgeHelperName('byre-box')}" is already in use`],
    });
    await expect(starting.created).rejects.toMatchObject({ rule: 'edge.not-ready' });
    expect(engine.calls.map((c) => c.method)).toEqual(['runStream']);
    expect(engine.containers.has(held.id)).toBe(true);
    expect(fed).toEqual([]);
  });

  it('writes its values only once the engine made it: a refused run is never fed', async () => {
    const { engine } = setup();
    const order: string[] = [];
    engine.runStream = async (argv, io) => {
      const stdin = io.stdin as Readable;
      stdin.once('data', () => order.push('values'));
      stdin.resume();
      await new Promise((r) => setTimeout(r, 50));
      order.push('made');
      writeFileSync(argv[argv.indexOf('--cidfile') + 1] ?? '', 'a'.repeat(64));
      await new Promise((r) => setTimeout(r, 50));
      (io.stdout as NodeJS.WritableStream).write('byre-edge 1 ready\n');
      await new Promise((r) => stdin.once('end', r));
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    const edge = await startEdge(engine, plan()).started;
    expect(edge.id).toBe('a'.repeat(64));
    expect(order).toEqual(['made', 'values']);
    edge.close();
    await edge.ended;
  });

  it('keeps the newest event lines only: the box causes them', async () => {
    const { engine } = setup();
    const lines = Array.from(
      { length: KEPT_EVENTS + 5 },
      (_, i) => `byre-edge 1 refused ${i} plain-http x.com`,
    );
    engine.onRunStream = async () => ({
      exitCode: 0,
      stdout: `byre-edge 1 ready\n${lines.join('\n')}\n`,
      stderr: '',
    });
    const edge = await startEdge(engine, plan()).started;
    await edge.ended;
    expect(edge.events).toEqual(lines.slice(5));
  });

  it('holds its stdin open once ready, until the session closes it: its end ends the edge', async () => {
    const { engine } = setup();
    let stdin: Readable | undefined;
    let exit = (): void => undefined;
    engine.runStream = async (argv, io) => {
      stdin = io.stdin as Readable;
      engine.madeByRun(argv);
      (io.stdout as NodeJS.WritableStream).write('byre-edge 1 ready\n');
      await new Promise<void>((resolve) => {
        exit = resolve;
        stdin?.once('end', resolve);
        stdin?.resume();
      });
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    const edge = await startEdge(engine, plan()).started;
    await new Promise((r) => setTimeout(r, 20));
    expect(stdin?.readableEnded).toBe(false);
    edge.close();
    const ended = await Promise.race([
      edge.ended.then(() => 'ended'),
      new Promise((r) => setTimeout(() => r('open'), 1000)),
    ]);
    exit();
    expect(ended).toBe('ended');
  });

  it('carries the keep-id user namespace it is given, before its image', async () => {
    const { engine } = setup();
    engine.onRunStream = async () => ({ exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' });
    await startEdge(engine, plan([...NETWORK, '--userns=keep-id:uid=1000,gid=1000'])).started;
    const argv = runArgv(engine);
    expect(argv.indexOf('--userns=keep-id:uid=1000,gid=1000')).toBeGreaterThan(0);
    expect(argv.indexOf('--userns=keep-id:uid=1000,gid=1000')).toBeLessThan(
      argv.indexOf('sha256:edge-image'),
    );
  });

  it('fails closed when the edge exits before its ready line: helper and box removed', async () => {
    const { engine } = setup();
    let helperId = '';
    engine.onRunStream = async () => {
      helperId = [...engine.containers].find(([, c]) => c.name === edgeHelperName('byre-box'))![0];
      return { exitCode: 2, stdout: '', stderr: 'byre-edge: stdin ended before the end line\n' };
    };
    await expect(startEdge(engine, plan()).started).rejects.toMatchObject({
      rule: 'edge.not-ready',
      message: 'the edge for injected credentials exited before it was ready',
      // What the edge said, line by line, as details (escaped there).
      details: ['byre-edge: stdin ended before the end line'],
    });
    const removed = engine.calls.filter((c) => c.method === 'remove').map((c) => c.args[0]);
    // By its id: its name may since be another launch's edge (adr/0080).
    expect(removed).toEqual([helperId]);
    expect(engine.containers.size).toBe(0);
  });

  it('fails closed when the edge stays silent past its bound', async () => {
    const { engine } = setup();
    let release = (): void => undefined;
    engine.onRunStream = () =>
      new Promise((resolve) => {
        release = () => resolve({ exitCode: 137, stdout: '', stderr: '' });
      });
    const removeBox = engine.remove.bind(engine);
    engine.remove = async (id) => {
      const r = await removeBox(id);
      if (engine.calls.length > 1) release();
      return r;
    };
    await expect(startEdge(engine, plan(), { readyMs: 20 }).started).rejects.toMatchObject({
      rule: 'edge.not-ready',
      message: expect.stringContaining('never became ready') as string,
    });
    expect(engine.containers.size).toBe(0);
  });
});

describe('startEdge, its values given later (adr/0080)', () => {
  it('starts at once and waits unbounded for its values: the ready bound counts from when they are written', async () => {
    const { engine, fed } = setup();
    engine.onRunStream = async (_argv, stdin) => {
      fed.push(stdin);
      return { exitCode: 0, stdout: 'byre-edge 1 ready\n', stderr: '' };
    };
    let give = (_: string): void => undefined;
    const input = new Promise<string>((resolve) => (give = resolve));
    const starting = startEdge(engine, { ...plan(), input }, { readyMs: 20 }).started;
    // Started, and kept waiting well past the ready bound: nothing was given yet.
    await new Promise((r) => setTimeout(r, 100));
    expect(engine.calls.some((c) => c.method === 'runStream')).toBe(true);
    expect(fed).toEqual([]);
    give(INPUT);
    const edge = await starting;
    expect(fed.map((b) => b.toString('utf8'))).toEqual([INPUT]);
    edge.close();
    expect(await edge.ended).toMatchObject({ exitCode: 0 });
  });

  it('withheld values (the launch dropped it): it is ended unfed and its helper removed by id', async () => {
    const { engine, fed } = setup();
    engine.onRunStream = async (_argv, stdin) => {
      fed.push(stdin);
      return { exitCode: 2, stdout: '', stderr: 'byre-edge: stdin ended before the end line\n' };
    };
    let withhold = (): void => undefined;
    const input = new Promise<string>((_, reject) => (withhold = () => reject(new Error('x'))));
    const starting = startEdge(engine, { ...plan(), input }).started;
    await new Promise((r) => setTimeout(r, 20));
    const helperId = [...engine.containers].find(
      ([, c]) => c.name === edgeHelperName('byre-box'),
    )?.[0];
    expect(helperId).toBeDefined();
    withhold();
    await expect(starting).rejects.toMatchObject({
      rule: 'edge.not-ready',
      message: 'the edge for injected credentials was dropped before it was given its values',
    });
    expect(fed.join('')).not.toContain(SECRET);
    const removed = engine.calls.filter((c) => c.method === 'remove').map((c) => c.args[0]);
    expect(removed).toEqual([helperId]);
    expect(engine.containers.size).toBe(0);
  });
});
