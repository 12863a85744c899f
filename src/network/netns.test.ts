import { describe, expect, it } from 'vitest';
import { DROP_PRIVILEGES } from '../engine/argv.js';
import { FakeEngine } from '../../test/support/fake-engine.js';
import {
  enforcePosture,
  mintNonce,
  netnsHelperArgv,
  sharedNetworkMode,
  type NetnsPlan,
} from './netns.js';

const plan: NetnsPlan = {
  nonce: 'a'.repeat(32),
  hook: '/usr/local/bin/byre-firewall',
  image: 'byre-p-1a2b3c-u1000-g1000',
  env: { BYRE_EGRESS: 'api.example.com:443', A: '1', BYRE_EGRESS_DENY: '' },
  joinUserns: false,
};

describe('netnsHelperArgv', () => {
  it('shares only the box network namespace, as root with NET_ADMIN alone and no new privileges, env sorted', () => {
    expect(netnsHelperArgv(plan, 'box123', 'byre-netns-0123456789abcdef')).toEqual([
      'run',
      '--rm',
      '--pull=never',
      '--name',
      'byre-netns-0123456789abcdef',
      '-u',
      '0:0',
      '--net',
      'container:box123',
      ...DROP_PRIVILEGES,
      '--cap-add',
      'NET_ADMIN',
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
  const fast = { findMs: 50, pollMs: 5, helperMs: 1000 };

  it('fails closed when the box never appears', async () => {
    const engine = new FakeEngine();
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(/never started/);
  });

  it('stops a box whose network namespace is shared, without running the hook', async () => {
    const engine = new FakeEngine();
    const box = engine.addContainer({
      name: 'box',
      labels: { 'byre.run': plan.nonce },
      networkMode: 'host',
      running: true,
    });
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow(
      /shares a network namespace \(host\)/,
    );
    const methods = engine.calls.map((c) => c.method);
    expect(methods).toContain('stop');
    expect(methods).not.toContain('run');
    expect(engine.containers.get(box.id)?.running).toBe(false);
  });

  it('runs the hook against the box it found by nonce, and stops the box when the hook fails', async () => {
    const engine = new FakeEngine();
    engine.addContainer({
      name: 'box',
      labels: { 'byre.run': plan.nonce },
      networkMode: 'bridge',
      running: true,
    });
    engine.failNext('run');
    await expect(enforcePosture(engine, plan, fast)).rejects.toThrow();
    const run = engine.calls.find((c) => c.method === 'run');
    expect(run?.args[0]).toEqual(expect.arrayContaining(['--entrypoint', plan.hook]));
    expect(engine.calls.map((c) => c.method)).toContain('stop');
  });
});
