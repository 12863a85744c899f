import { describe, expect, it, vi } from 'vitest';
import { DROP_PRIVILEGES } from '../engine/argv.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import {
  GATE_OPENED,
  endWall,
  enforcePosture,
  wallHelperName,
  mintNonce,
  netnsHelperArgv,
  sharedNetworkMode,
  type NetnsPlan,
} from './netns.js';

const plan: NetnsPlan = {
  nonce: 'a'.repeat(32),
  box: 'byre-p-1a2b3c',
  hook: '/usr/local/bin/byre-firewall',
  image: 'byre-p-1a2b3c-u1000-g1000',
  env: { BYRE_EGRESS: 'api.example.com:443', A: '1', BYRE_EGRESS_DENY: '' },
  joinUserns: false,
};

/** The box this plan's run nonce finds, with a network mode, created or running. */
function boxOf(engine: FakeEngine, networkMode: string, running: boolean) {
  return engine.addContainer({
    name: 'box',
    labels: { 'byre.run': plan.nonce },
    networkMode,
    running,
  });
}

describe('netnsHelperArgv', () => {
  it("shares only the box network namespace, detached, as root with only the wall's and its resolver's capabilities and no new privileges, a one-second stop grace, env sorted", () => {
    expect(netnsHelperArgv(plan, 'box123', 'byre-netns-0123456789abcdef')).toEqual([
      'run',
      '-d',
      '--pull=never',
      '--name',
      'byre-netns-0123456789abcdef',
      // The image's project label emptied: a census never counts a helper as a box.
      '--label',
      'byre.project=',
      '-u',
      '0:0',
      '--net',
      'container:box123',
      ...DROP_PRIVILEGES,
      '--cap-add',
      'NET_ADMIN',
      '--cap-add',
      'NET_BIND_SERVICE',
      '--cap-add',
      'SETGID',
      '--cap-add',
      'SETUID',
      '--stop-timeout',
      '1',
      '--entrypoint',
      '/usr/local/bin/byre-firewall',
      '-e',
      'A=1',
      '-e',
      'BYRE_EGRESS=api.example.com:443',
      '-e',
      'BYRE_EGRESS_DENY=',
      'byre-p-1a2b3c-u1000-g1000',
    ]);
  });

  it('joins the box user namespace on rootless podman', () => {
    const argv = netnsHelperArgv({ ...plan, joinUserns: true }, 'box123', 'n');
    expect(argv).toContain('--userns=container:box123');
    expect(argv.indexOf('--userns=container:box123')).toBeLessThan(argv.indexOf(plan.image));
  });
});

describe('sharedNetworkMode', () => {
  it.each([
    ['host', true],
    ['container:abc', true],
    ['ns:/proc/1/ns/net', true],
    ['bridge', false],
    ['default', false],
    ['slirp4netns', false],
    ['', false],
  ])('%j -> %s', (mode, shared) => {
    expect(sharedNetworkMode(mode)).toBe(shared);
  });
});

describe('mintNonce', () => {
  it('is 32 hex and fresh each time', () => {
    const a = mintNonce();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(mintNonce()).not.toBe(a);
  });
});

describe('enforcePosture', () => {
  const fast = { findMs: 50, pollMs: 5, startPollMs: 5, helperMs: 1000, helperPollMs: 5 };

  it('fails closed when the box never appears', async () => {
    const engine = new FakeEngine();
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(/never started/);
  });

  it('stops a box whose network namespace is shared, without running the hook', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'host', true);
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(
      /shares a network namespace \(host\)/,
    );
    const methods = engine.calls.map((c) => c.method);
    expect(methods).toContain('stop');
    expect(methods).not.toContain('run');
    expect(engine.containers.get(box.id)?.running).toBe(false);
  });

  it('finds the box as created and checks its network while it starts; the helper runs only once it runs', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'bridge', false);
    // A deadline far past any load: the box starts only once the test says so.
    const walling = enforcePosture(engine, plan, { ...fast, findMs: 60_000 });
    // Until the network mode was asked (the box still not running); no fixed sleep, which load outlasts.
    await vi.waitFor(() => expect(engine.calls.map((c) => c.method)).toContain('networkMode'), {
      timeout: 10_000,
    });
    const before = engine.calls.map((c) => c.method);
    expect(before).toEqual(expect.arrayContaining(['ps', 'remove', 'networkMode']));
    expect(before).not.toContain('run');
    expect(engine.calls.find((c) => c.method === 'ps')?.args[0]).toMatchObject({ all: true });
    box.running = true;
    engine.logText.set(wallHelperName(plan.box), { stdout: '', stderr: `${GATE_OPENED}\n` });
    await walling;
    const run = engine.calls.find((c) => c.method === 'run');
    expect(run?.args[0]).toEqual(expect.arrayContaining(['--net', `container:${box.id}`]));
  });

  it('a shared network namespace is refused before the box runs', async () => {
    const engine = new FakeEngine();
    boxOf(engine, 'container:other', false);
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(/shares a network namespace/);
    expect(engine.calls.map((c) => c.method)).not.toContain('run');
  });

  it('fails closed when the created box goes without ever running', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'bridge', false);
    const walling = enforcePosture(engine, plan, fast);
    await new Promise((r) => setTimeout(r, 20));
    await engine.remove(box.id);
    await expect(walling).rejects.toThrow(/never started/);
    expect(engine.calls.map((c) => c.method)).not.toContain('run');
  });

  it('runs the hook against the box it found by nonce, and stops the box when the hook fails', async () => {
    const engine = new FakeEngine();
    boxOf(engine, 'bridge', true);
    engine.failNext('run');
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow();
    const run = engine.calls.find((c) => c.method === 'run');
    expect(run?.args[0]).toEqual(expect.arrayContaining(['--entrypoint', plan.hook]));
    expect(engine.calls.map((c) => c.method)).toContain('stop');
  });
});

describe('the wall helper for the session (adr/0063)', () => {
  const fast = { findMs: 50, pollMs: 5, startPollMs: 5, helperMs: 1000, helperPollMs: 5 };
  const box = (engine: FakeEngine) => boxOf(engine, 'bridge', true);

  it('names one helper per box, stable, in the netns helper shape', () => {
    expect(wallHelperName('byre-p-1a2b3c')).toMatch(/^byre-netns-[0-9a-f]{16}$/);
    expect(wallHelperName('byre-p-1a2b3c')).toBe(wallHelperName('byre-p-1a2b3c'));
    expect(wallHelperName('byre-p-1a2b3d')).not.toBe(wallHelperName('byre-p-1a2b3c'));
  });

  it('removes a stale helper of the box first, resolves once the hook says the gate opened, and leaves the helper running', async () => {
    const engine = new FakeEngine();
    box(engine);
    const name = wallHelperName(plan.box);
    engine.addContainer({ name, running: false });
    const walling = enforcePosture(engine, plan, fast);
    await new Promise((r) => setTimeout(r, 30));
    engine.logText.set(name, {
      stdout: 'byre-wall 1 resolved 1 a.test 192.0.2.1 0\n',
      stderr: `${GATE_OPENED}\n`,
    });
    await walling;
    const methods = engine.calls.map((c) => c.method);
    expect(methods.indexOf('remove')).toBeLessThan(methods.indexOf('run'));
    expect(methods).not.toContain('stop');
    expect((await engine.logs(name))?.stdout).toBe('byre-wall 1 resolved 1 a.test 192.0.2.1 0\n');
    expect(await endWall(engine, plan.box)).toBe(true);
    expect(await engine.logs(name)).toBeNull();
    expect(await endWall(engine, plan.box)).toBe(false);
  });

  it('a helper that exits before its gate fails closed with its own last words, removed, the box stopped', async () => {
    const engine = new FakeEngine();
    const b = box(engine);
    const name = wallHelperName(plan.box);
    const walling = enforcePosture(engine, plan, fast);
    await new Promise((r) => setTimeout(r, 30));
    engine.logText.set(name, {
      stdout: '',
      stderr: 'byre-firewall: FATAL: nftables refused the wall\n',
    });
    await engine.stop(name, 0);
    await expect(walling).rejects.toThrow(
      /exited:\nbyre-firewall: FATAL: nftables refused the wall/,
    );
    expect(await engine.logs(name)).toBeNull();
    expect(engine.containers.get(b.id)?.running).toBe(false);
  });

  it('a helper that never opens the gate fails closed at the deadline', async () => {
    const engine = new FakeEngine();
    box(engine);
    await expect(enforcePosture(engine, plan, { ...fast, helperMs: 50 })).rejects.toThrow(
      /never opened the gate/,
    );
    expect(await engine.logs(wallHelperName(plan.box))).toBeNull();
  });
});
