// Host-side delivery over the fake engine, whose exec runs the real receiver
// under sh against a temp directory standing in for the session tmpfs.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FakeEngine } from '../../test/support/fake-engine.js';
import type { StreamIo } from '../engine/engine.js';
import type { ExecSpec } from '../engine/types.js';
import { clearSecrets, registerSecret } from '../output/redact.js';
import { CREDENTIAL_DIR, RECEIVER_DONE, type DeliveredValue } from './channel.js';
import { deliverCredentials } from './box-delivery.js';

const FAST = { timeouts: { findMs: 200, startPollMs: 5 } };
const SECRET = 'sk-deliver-test-42';
const values: DeliveredValue[] = [
  { key: 'API_KEY', kind: 'encrypted', value: new TextEncoder().encode(SECRET) },
];

let root: string;
let dir: string;
let mounts: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'byre-deliver-'));
  dir = path.join(root, 'credentials');
  mkdirSync(dir, { mode: 0o700 });
  mounts = path.join(root, 'mounts');
  writeFileSync(mounts, `tmpfs ${dir} tmpfs rw 0 0\n`);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  clearSecrets();
});

/** Runs the exec'd command for real, pointed at the temp tmpfs. */
function realReceiver(spec: ExecSpec, input: string | undefined) {
  const argv = spec.command.map((a) =>
    a === CREDENTIAL_DIR ? dir : a === '/proc/mounts' ? mounts : a,
  );
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd as string, args, { input: input ?? '', encoding: 'utf8' });
  return { exitCode: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** Each exec's spec and the whole stdin it was fed. */
let fed: { spec: ExecSpec; input: string }[] = [];

function engineWithBox(): { engine: FakeEngine; id: string } {
  const engine = new FakeEngine();
  const box = engine.addContainer({ name: 'byre-app' });
  fed = [];
  engine.onExecStream = (spec, stdin) => {
    fed.push({ spec, input: stdin.toString() });
    return realReceiver(spec, stdin.toString());
  };
  return { engine, id: box.id };
}

describe('deliverCredentials', () => {
  it('streams the values on the exec’s stdin as the dev user, never in its argv', async () => {
    const { engine, id } = engineWithBox();
    await deliverCredentials(engine, { boxId: id, uid: 1000, gid: 1001, values }, FAST);
    const [{ spec, input }] = fed as [{ spec: ExecSpec; input: string }];
    expect(spec).toMatchObject({ id, user: '1000:1001' });
    expect(JSON.stringify(spec)).not.toContain(SECRET);
    expect(JSON.stringify(spec)).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(input).toContain(Buffer.from(SECRET).toString('base64'));
    expect(readFileSync(path.join(dir, 'env', 'API_KEY'), 'utf8')).toBe(SECRET);
    expect(engine.callsTo('stop')).toEqual([]);
  });

  it('stops the box and says why when the box refuses, redacting any echo', async () => {
    const { engine, id } = engineWithBox();
    registerSecret(SECRET);
    engine.onExecStream = () => ({ exitCode: 3, stdout: '', stderr: `refused\n${SECRET}\n` });
    const failure = deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST);
    await expect(failure).rejects.toMatchObject({ rule: 'develop.credentials-failed' });
    await expect(failure).rejects.toThrow(/refused/);
    await expect(failure).rejects.not.toThrow(new RegExp(SECRET));
    expect(engine.callsTo('stop')).toEqual([[id, 2]]);
  });

  it('refuses an exit 0 that did not confirm the gate opened', async () => {
    const { engine, id } = engineWithBox();
    engine.onExecStream = () => ({ exitCode: 0, stdout: 'ok\n', stderr: '' });
    await expect(
      deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST),
    ).rejects.toMatchObject({ rule: 'develop.credentials-failed' });
  });

  it('fails when the box is gone before it ran', async () => {
    const engine = new FakeEngine();
    await expect(
      deliverCredentials(engine, { boxId: 'gone', uid: 1, gid: 1, values }, FAST),
    ).rejects.toThrow(/never started/);
    expect(engine.callsTo('exec')).toEqual([]);
  });

  it('refuses a second delivery into the same box', async () => {
    const { engine, id } = engineWithBox();
    await deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST);
    await expect(
      deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST),
    ).rejects.toThrow(/already delivered/);
  });
});

/** execStream for real: the receiver run with the streamed stdin, pointed at the temp tmpfs. */
function streamingReceiver(engine: FakeEngine): void {
  engine.execStream = async (spec: ExecSpec, io: StreamIo) => {
    const argv = spec.command.map((a) =>
      a === CREDENTIAL_DIR ? dir : a === '/proc/mounts' ? mounts : a,
    );
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (typeof io.stdout !== 'number') child.stdout.pipe(io.stdout);
    const exited = new Promise<number>((r) => child.on('close', (code) => r(code ?? 1)));
    const stdin = io.stdin;
    if (stdin !== undefined && typeof stdin !== 'number') {
      try {
        for await (const chunk of stdin) child.stdin.write(chunk);
        child.stdin.end();
      } catch (error) {
        child.kill('SIGKILL');
        await exited;
        throw error;
      }
    }
    return { exitCode: await exited, stderr, stderrHead: stderr };
  };
}

describe('deliverCredentials answers at the receiver’s word', () => {
  it('resolves on the done line, before the engine’s exec returns (podman’s exec teardown)', async () => {
    const { engine, id } = engineWithBox();
    let finish = (): void => undefined;
    engine.execStream = async (_spec: ExecSpec, io: StreamIo) => {
      if (io.stdin !== undefined && typeof io.stdin !== 'number') io.stdin.resume();
      if (typeof io.stdout !== 'number') io.stdout.write(`${RECEIVER_DONE}\n`);
      await new Promise<void>((r) => (finish = r));
      return { exitCode: 0, stderr: '', stderrHead: '' };
    };
    const outcome = await Promise.race([
      deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST).then(
        () => 'delivered',
      ),
      new Promise((r) => setTimeout(() => r('still waiting on the exec'), 2000)),
    ]);
    finish();
    expect(outcome).toBe('delivered');
    expect(engine.callsTo('stop')).toEqual([]);
  });
});

describe('deliverCredentials over a streamed stdin', () => {
  it('lands the values through the real receiver and opens the gate', async () => {
    const { engine, id } = engineWithBox();
    streamingReceiver(engine);
    await deliverCredentials(engine, { boxId: id, uid: 1, gid: 1, values }, FAST);
    expect(existsSync(path.join(dir, 'env', 'API_KEY'))).toBe(true);
    expect(existsSync(path.join(dir, 'ready'))).toBe(true);
    expect(engine.callsTo('exec')).toEqual([]);
    expect(engine.callsTo('stop')).toEqual([]);
  });
});
