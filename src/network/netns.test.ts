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
  boxId: 'b0'.repeat(32),
  box: 'byre-p-1a2b3c',
  project: 'p-1a2b3c',
  hook: '/usr/local/bin/byre-firewall',
  image: 'byre-p-1a2b3c-u1000-g1000',
  env: { BYRE_EGRESS: 'api.example.com:443', A: '1', BYRE_EGRESS_DENY: '' },
  joinUserns: false,
};

/** The container of that name, if the fake holds one. */
const named = (engine: FakeEngine, name: string) =>
  [...engine.containers.values()].find((c) => c.name === name);

/** The box this plan names by its id, with a network mode, created or running. */
function boxOf(engine: FakeEngine, networkMode: string, running: boolean) {
  return engine.addContainer({ id: plan.boxId, name: 'box', networkMode, running });
}

describe('netnsHelperArgv', () => {
  it("shares only the box network namespace, created to be started attached, as root with only the wall's and its resolver's capabilities and no new privileges, a one-second stop grace, env sorted", () => {
    expect(netnsHelperArgv({ ...plan, boxId: 'box123' }, 'byre-netns-0123456789abcdef')).toEqual([
      'create',
      '--pull=never',
      '--name',
      'byre-netns-0123456789abcdef',
      // The image's project label emptied: a census never counts a helper as a box.
      '--label',
      'byre.project=',
      // Its project named where forget, reset and doctor look for helpers.
      '--label',
      'byre.helper=p-1a2b3c',
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
    const argv = netnsHelperArgv({ ...plan, boxId: 'box123', joinUserns: true }, 'n');
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
  const fast = { findMs: 50, startPollMs: 5, helperMs: 1000 };

  it('fails closed when the box is gone', async () => {
    const engine = new FakeEngine();
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow();
    expect(engine.callsTo('runStream')).toEqual([]);
    expect(named(engine, wallHelperName(plan.box))).toBeUndefined();
  });

  it('stops a box whose network namespace is shared, without running the hook', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'host', true);
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(
      /shares a network namespace \(host\)/,
    );
    const methods = engine.calls.map((c) => c.method);
    expect(methods).toContain('stop');
    // Its helper, made meanwhile, is never started, and goes.
    expect(methods).not.toContain('runStream');
    expect(named(engine, wallHelperName(plan.box))).toBeUndefined();
    expect(engine.containers.get(box.id)?.running).toBe(false);
  });

  it('checks the box’s network and creates the helper while it starts; starts the helper only once it runs, attached', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'bridge', false);
    engine.onRunStream = async () => ({ exitCode: 0, stdout: '', stderr: `${GATE_OPENED}\n` });
    // A deadline far past any load: the box starts only once the test says so.
    const walling = enforcePosture(engine, plan, { ...fast, findMs: 60_000 });
    // Until the helper was created (the box still not running); no fixed sleep, which load outlasts.
    await vi.waitFor(() => expect(engine.calls.map((c) => c.method)).toContain('create'), {
      timeout: 10_000,
    });
    const before = engine.calls.map((c) => c.method);
    // No stale helper: nothing removed before the create.
    expect(before).toEqual(['create', 'networkMode']);
    expect(before).not.toContain('runStream');
    // The box byre created, by its id: nothing searched for it.
    expect(before).not.toContain('ps');
    box.running = true;
    await walling;
    const create = engine.calls.find((c) => c.method === 'create');
    expect(create?.args[0]).toEqual(expect.arrayContaining(['--net', `container:${box.id}`]));
    expect(engine.callsTo('runStream')).toEqual([
      [['start', '--attach', wallHelperName(plan.box)]],
    ]);
    // Nothing polled the helper: its gate line was read as it came.
    expect(engine.calls.map((c) => c.method)).not.toContain('logs');
  });

  it('a shared network namespace is refused before the box runs', async () => {
    const engine = new FakeEngine();
    boxOf(engine, 'container:other', false);
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(/shares a network namespace/);
    expect(engine.calls.map((c) => c.method)).not.toContain('runStream');
  });

  it('fails closed when the created box goes without ever running', async () => {
    const engine = new FakeEngine();
    const box = boxOf(engine, 'bridge', false);
    const walling = enforcePosture(engine, plan, fast);
    await new Promise((r) => setTimeout(r, 20));
    await engine.remove(box.id);
    await expect(walling).rejects.toThrow(/never started/);
    expect(engine.calls.map((c) => c.method)).not.toContain('runStream');
    // The helper made while it was starting goes too.
    expect(named(engine, wallHelperName(plan.box))).toBeUndefined();
  });

  it('runs the hook in the box’s network, and stops the box when its helper cannot be made', async () => {
    const engine = new FakeEngine();
    boxOf(engine, 'bridge', true);
    // Refused twice: once as if the name were taken, once after the removal.
    engine.failNext('create', undefined, 2);
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow();
    const create = engine.calls.find((c) => c.method === 'create');
    expect(create?.args[0]).toEqual(expect.arrayContaining(['--entrypoint', plan.hook]));
    expect(engine.calls.map((c) => c.method)).toContain('stop');
    expect(engine.calls.map((c) => c.method)).not.toContain('runStream');
  });
});

describe('the wall helper for the session (adr/0063)', () => {
  const fast = { findMs: 50, pollMs: 5, startPollMs: 5, helperMs: 1000 };
  const box = (engine: FakeEngine) => boxOf(engine, 'bridge', true);

  it('names one helper per box, stable, in the netns helper shape', () => {
    expect(wallHelperName('byre-p-1a2b3c')).toMatch(/^byre-netns-[0-9a-f]{16}$/);
    expect(wallHelperName('byre-p-1a2b3c')).toBe(wallHelperName('byre-p-1a2b3c'));
    expect(wallHelperName('byre-p-1a2b3d')).not.toBe(wallHelperName('byre-p-1a2b3c'));
  });

  it('removes a stale helper of the box when its name is taken, resolves once the hook says the gate opened, and leaves the helper for endWall', async () => {
    const engine = new FakeEngine();
    box(engine);
    const name = wallHelperName(plan.box);
    engine.addContainer({ name, running: false, labels: { stale: '1' } });
    engine.onRunStream = async () => ({
      exitCode: 0,
      stdout: 'byre-wall 1 resolved 1 a.test 192.0.2.1 0\n',
      stderr: `byre-firewall: deny probe refused\n${GATE_OPENED}\n`,
    });
    await enforcePosture(engine, plan, fast);
    const methods = engine.calls.map((c) => c.method);
    // Refused (the name taken), the stale one removed, then made.
    expect(methods.slice(0, 4)).toEqual(['create', 'networkMode', 'remove', 'create']);
    expect(methods).not.toContain('stop');
    expect(named(engine, name)?.labels['stale']).toBeUndefined();
    expect(await endWall(engine, plan.box)).toBe(true);
    expect(named(engine, name)).toBeUndefined();
    expect(await endWall(engine, plan.box)).toBe(false);
  });

  it('a helper that exits before its gate fails closed with its own last words, removed, the box stopped', async () => {
    const engine = new FakeEngine();
    const b = box(engine);
    const name = wallHelperName(plan.box);
    engine.onRunStream = async () => ({
      exitCode: 1,
      stdout: '',
      stderr: 'byre-firewall: FATAL: nftables refused the wall\n',
    });
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(
      /exited:\nbyre-firewall: FATAL: nftables refused the wall/,
    );
    expect(named(engine, name)).toBeUndefined();
    expect(engine.containers.get(b.id)?.running).toBe(false);
  });

  it('an engine that cannot start the helper fails closed the same way', async () => {
    const engine = new FakeEngine();
    const b = box(engine);
    engine.failNext('runStream');
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(
      /the wall's helper could not be started: /,
    );
    expect(named(engine, wallHelperName(plan.box))).toBeUndefined();
    expect(engine.containers.get(b.id)?.running).toBe(false);
  });

  it('a helper that never opens the gate fails closed at the deadline', async () => {
    const engine = new FakeEngine();
    const b = box(engine);
    engine.onRunStream = () => new Promise(() => undefined);
    await expect(enforcePosture(engine, plan, { ...fast, helperMs: 50 })).rejects.toThrow(
      /never opened the gate/,
    );
    expect(named(engine, wallHelperName(plan.box))).toBeUndefined();
    expect(engine.containers.get(b.id)?.running).toBe(false);
  });
});
