import path from 'node:path';
import { writeFileSync } from 'node:fs';

import { describe, expect, it, vi } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import { useSharedTempDir } from '../../test/support/temp.js';
import type { InjectRule } from '../config/inject.js';
import { readEdgeStore } from '../credentials/edge-store.js';
import { RECEIVER_DONE } from '../credentials/channel.js';
import type { StreamIo } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { edgeHelperName, type EdgeHandle } from '../network/edge.js';
import { credentialDelivery, deliverBeside, dropBoxEdge, startBoxEdge } from './credentials.js';
import { prepareEdge, projectEdgeCa } from './edge.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const bearer = (name: string, port = 443): InjectRule => ({
  hosts: [{ name, port }],
  presentation: { kind: 'bearer' },
});
const tmp = useSharedTempDir('edge-session');

/** The edge's stdin, one parsed line each. */
function lines(input: string): Record<string, unknown>[] {
  return input
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('prepareEdge', () => {
  it('nothing injected: no edge, nothing minted', async () => {
    const dir = path.join(tmp.path, 'none');
    expect(await prepareEdge(dir, 'p', [], {})).toBeNull();
    expect(await projectEdgeCa(dir, 'p', [])).toBeUndefined();
    expect(readEdgeStore(dir).kind).toBe('missing');
  });

  it('mints the project set for the injected names; host entries, TLS ports, the keys and the values on stdin only', async () => {
    const dir = path.join(tmp.path, 'two');
    const edge = await prepareEdge(
      dir,
      'proj-abc',
      [
        { key: 'GH', value: text('ghp-secret'), rules: [bearer('api.github.com')] },
        { key: 'INTERNAL', value: text('int-secret'), rules: [bearer('api.x.test', 8443)] },
      ],
      {},
    );
    expect(edge).not.toBeNull();
    if (edge === null) return;
    expect(edge.hostEntries).toEqual(['api.github.com:127.31.0.1', 'api.x.test:127.31.0.1']);
    // :80 is the edge's own (refusing plain HTTP); it is told only the TLS ports.
    expect(edge.ports).toEqual([443, 8443]);
    // Names only: the box's launcher sets each to the sentinel (adr/0084).
    expect(edge.keys).toEqual(['GH', 'INTERNAL']);
    expect(edge.upstreamAddress).toBeUndefined();
    const stored = readEdgeStore(dir);
    expect(stored.kind).toBe('set');
    expect(edge.caPem).toBe(stored.kind === 'set' ? stored.set.caPem : '');
    // The CA's certificate only: no key goes where the image is built from.
    expect(edge.caPem).not.toMatch(/PRIVATE KEY/);
    const routes = lines(edge.input).map((l) => l['route'] as Record<string, unknown> | undefined);
    expect(routes.map((r) => r?.['host'])).toEqual(['api.github.com', 'api.x.test', undefined]);
    expect(routes[0]?.['header']).toEqual({ name: 'authorization', value: 'Bearer ghp-secret' });
    expect(routes[1]?.['port']).toBe(8443);
    expect(lines(edge.input).at(-1)).toEqual({ 'byre-edge': 1, end: true });
    // The same names again: the stored set, the same CA (the image is not rebuilt).
    expect(
      await projectEdgeCa(dir, 'proj-abc', [
        {
          key: 'GH',
          rules: [bearer('api.github.com'), bearer('api.x.test', 8443)],
          from: { kind: 'project', name: 'p', path: '/p' },
        },
      ]),
    ).toBe(edge.caPem);
  });

  it('tests only: BYRE_EDGE_UPSTREAM and its CA reach the edge', async () => {
    const dir = path.join(tmp.path, 'upstream');
    const first = await prepareEdge(
      dir,
      'p',
      [{ key: 'K', value: text('v'), rules: [bearer('api.x.test')] }],
      {},
    );
    const stored = readEdgeStore(dir);
    const ca = stored.kind === 'set' ? stored.set.caPem : '';
    const edge = await prepareEdge(
      dir,
      'p',
      [{ key: 'K', value: text('v'), rules: [bearer('api.x.test')] }],
      { BYRE_EDGE_UPSTREAM: ' 192.0.2.9 ', BYRE_EDGE_UPSTREAM_CA: ca },
    );
    expect(first?.upstreamAddress).toBeUndefined();
    expect(edge?.upstreamAddress).toBe('192.0.2.9');
    expect(lines(edge?.input ?? '').some((l) => l['upstreamCa'] === ca)).toBe(true);
  });

  it('a value a header cannot carry is refused without quoting it', async () => {
    const dir = path.join(tmp.path, 'bad');
    const failure = prepareEdge(
      dir,
      'p',
      [{ key: 'K', value: text('line\nbreak-secret'), rules: [bearer('api.x.test')] }],
      {},
    );
    await expect(failure).rejects.toMatchObject({ rule: 'edge.input' });
    await expect(failure).rejects.not.toThrow(/break-secret/);
  });
});

describe('credentialDelivery', () => {
  const params = { uid: 1000, gid: 1000 };
  const value = { key: 'API_KEY', kind: 'encrypted' as const, value: text('sk') };

  it('delivers the delivered values, by the box id', () => {
    expect(credentialDelivery(params, 'b', [value])).toEqual({
      boxId: 'b',
      uid: 1000,
      gid: 1000,
      values: [value],
    });
  });

  it('nothing delivered (an injecting box holds sentinels, set by its launcher): none', () => {
    expect(credentialDelivery(params, 'b', [])).toBeNull();
  });
});

describe('startBoxEdge and dropBoxEdge (adr/0079)', () => {
  it('starts the edge before any box: created first (the box’s create names it), then up (the box may start), ready later; dropped, its stdin ends and its helper goes', async () => {
    const engine = new FakeEngine();
    engine.images.set('img', { id: 'sha256:img', labels: {} });
    const launch = await prepareEdge(
      path.join(tmp.path, 'beside'),
      'proj-beside',
      [{ key: 'GH', value: text('ghp-secret'), rules: [bearer('api.github.com')] }],
      {},
    );
    if (launch === null) throw new Error('no edge planned');
    let ready = (): void => undefined;
    let stdinEnded = false;
    engine.runStream = async (argv, io) => {
      engine.madeByRun(argv);
      const stdin = io.stdin as NodeJS.ReadableStream;
      stdin.on('end', () => (stdinEnded = true)).resume();
      // The container runs (its shell says so); node is not ready yet.
      (io.stdout as NodeJS.WritableStream).write('byre-edge 1 up\n');
      await new Promise<void>((resolve) => (ready = resolve));
      (io.stdout as NodeJS.WritableStream).write('byre-edge 1 ready\n');
      await new Promise((resolve) => stdin.on('end', resolve));
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    const edge = startBoxEdge(engine, {
      launch,
      box: 'byre-box',
      project: 'p-1a2b3c',
      image: 'img',
      network: ['--add-host', 'api.github.com:127.31.0.1'],
    });
    const id = await edge.created;
    expect(engine.containers.get(id)?.name).toBe(edgeHelperName('byre-box'));
    // Running, not yet ready: the box may start in its network, its gate not open.
    await edge.up;
    const early = await Promise.race([
      edge.started.then(() => 'ready'),
      new Promise((r) => setTimeout(() => r('waiting'), 50)),
    ]);
    expect(early).toBe('waiting');
    ready();
    expect((await edge.started).id).toBe(id);
    expect(stdinEnded).toBe(false);
    await dropBoxEdge(engine, edge);
    await (
      await edge.started
    ).ended;
    expect(stdinEnded).toBe(true);
    expect(engine.containers.has(id)).toBe(false);
  });
});

describe('deliverBeside with an edge still starting (adr/0084)', () => {
  /** A running box whose deliveries are logged in `order`, and an edge ready once `ready()`. */
  function edgeStarting(): {
    engine: FakeEngine;
    boxId: string;
    order: string[];
    ready: () => void;
    started: Promise<EdgeHandle>;
  } {
    const engine = new FakeEngine();
    const box = engine.addContainer({ name: 'byre-box', running: true });
    const order: string[] = [];
    engine.execStream = async (_spec: ExecSpec, io: StreamIo) => {
      order.push('delivery started');
      if (io.stdin !== undefined && typeof io.stdin !== 'number') io.stdin.resume();
      if (typeof io.stdout !== 'number') io.stdout.end(`${RECEIVER_DONE}\n`);
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    let ready = (): void => undefined;
    const started = new Promise<EdgeHandle>((resolve) => (ready = () => resolve({} as EdgeHandle)));
    return { engine, boxId: box.id, order, ready, started };
  }

  it('an injecting box alone: no exec into it, and the outcome waits for the edge to be ready', async () => {
    const { engine, boxId, order, ready, started } = edgeStarting();
    const beside = deliverBeside(engine, path.join(tmp.path, 'r0'), 'h', {
      boxId,
      delivery: null,
      edge: { started },
    });
    const early = await Promise.race([
      beside.then(() => 'settled'),
      new Promise((r) => setTimeout(() => r('waiting'), 50)),
    ]);
    expect(early).toBe('waiting');
    ready();
    expect(await beside).toBeNull();
    expect(order).toEqual([]);
    expect(engine.callsTo('stop')).toEqual([]);
  });

  it('delivered values beside an edge still starting: delivered at once, not held for the edge', async () => {
    const { engine, boxId, order, ready, started } = edgeStarting();
    const value = { key: 'API_KEY', kind: 'encrypted' as const, value: text('sk') };
    const beside = deliverBeside(engine, path.join(tmp.path, 'r1'), 'h', {
      boxId,
      delivery: credentialDelivery({ uid: 1000, gid: 1000 }, boxId, [value]),
      edge: { started },
    });
    await vi.waitFor(() => expect(order).toEqual(['delivery started']));
    ready();
    expect(await beside).toBeNull();
  });

  it('an edge that fails is the failure reported, and stops the box at once', async () => {
    const engine = new FakeEngine();
    const box = engine.addContainer({ name: 'byre-box', running: true });
    const failure = new Error('the edge for injected credentials exited before it was ready');
    const outcome = await deliverBeside(engine, path.join(tmp.path, 'r2'), 'h', {
      boxId: box.id,
      delivery: null,
      edge: { started: Promise.reject(failure) },
    });
    expect(outcome).toEqual({ error: failure });
    expect(engine.callsTo('stop').map(([id]) => id)).toEqual([box.id]);
  });
});

describe('deliverBeside: the receipt', () => {
  it('says so, for after the session, when the receipt cannot be written (status would say NOT delivered)', async () => {
    const engine = new FakeEngine();
    const box = engine.addContainer({ name: 'byre-box', running: true });
    engine.execStream = async (_spec: ExecSpec, io: StreamIo) => {
      if (io.stdin !== undefined && typeof io.stdin !== 'number') io.stdin.resume();
      if (typeof io.stdout !== 'number') io.stdout.end(`${RECEIVER_DONE}\n`);
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    const value = { key: 'API_KEY', kind: 'encrypted' as const, value: text('sk') };
    const delivery = credentialDelivery({ uid: 1000, gid: 1000 }, box.id, [value]);
    // A file where the receipts directory should be: nothing can be made under it.
    const blocked = path.join(tmp.path, 'blocked');
    writeFileSync(blocked, 'x');
    const warned: string[] = [];
    const outcome = await deliverBeside(
      engine,
      path.join(blocked, 'receipts'),
      'a'.repeat(64),
      { boxId: box.id, delivery, edge: null },
      (m) => warned.push(m),
    );
    expect(outcome).toBeNull();
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(
      /got its credentials, but byre could not record that in .*byre status says NOT delivered/,
    );
  });
});
