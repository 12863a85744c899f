import { describe, expect, it } from 'vitest';
import { fakeConfig, fakeSkill, sourced } from '../../test/support/config.js';
import type { ResolvedSkill } from '../skills/types.js';
import { helperEnv, networkRestrictions, postureFacts } from './posture.js';

function postureSkill(
  id: string,
  posture: string,
  hook: string,
  egress: string[] = [],
): ResolvedSkill {
  const base = fakeSkill(id, 'bundled');
  return {
    ...base,
    runtime: { ...base.runtime, networkPosture: posture, netnsInit: hook, egress },
  };
}

const agent = (() => {
  const base = fakeSkill('byre/agent', 'bundled');
  return { ...base, runtime: { ...base.runtime, egress: ['api.agent.example'] } };
})();

describe('postureFacts', () => {
  it('is open without a posture skill: no allowlist, no hook', () => {
    const facts = postureFacts(
      fakeConfig({ egress: [sourced({ host: 'x.example', port: 443 })] }),
      [agent],
    );
    expect(facts).toMatchObject({ posture: 'open', skill: null, hook: null, allowlist: null });
  });

  it('deny-by-default enforces skill ∪ config egress minus closures, in one string', () => {
    const config = fakeConfig({
      egress: [
        sourced({ host: 'pkg.example', port: 443 }),
        sourced({ host: 'db.example', port: 5432 }),
      ],
      egressClosed: [sourced({ host: 'db.example', port: null })],
    });
    const facts = postureFacts(config, [
      postureSkill('byre/firewall', 'deny-by-default', '/fw'),
      agent,
    ]);
    expect(facts.hook).toBe('/fw');
    expect(facts.allowlist).toBe('api.agent.example:443 pkg.example:443');
    expect(facts.deny).toBe('db.example');
  });

  it('an empty allowlist is legal and stays an empty string', () => {
    const facts = postureFacts(fakeConfig(), [
      postureSkill('byre/firewall', 'deny-by-default', '/fw'),
    ]);
    expect(facts.allowlist).toBe('');
  });

  it('open-denylist carries closures for the helper and no allowlist', () => {
    const config = fakeConfig({
      egressClosed: [sourced({ host: 'telemetry.example', port: 443 })],
    });
    const facts = postureFacts(config, [
      postureSkill('byre/firewall-open', 'open-denylist', '/fwo'),
    ]);
    expect(facts).toMatchObject({
      posture: 'open-denylist',
      allowlist: null,
      deny: 'telemetry.example:443',
    });
  });
});

describe('helperEnv', () => {
  const facts = postureFacts(fakeConfig(), [
    postureSkill('byre/firewall', 'deny-by-default', '/fw'),
  ]);

  it("adds the wall inputs and the box's uid to the box env, and nothing else", () => {
    const env = helperEnv({ BYRE_UID: '1000' }, facts, 1000);
    expect(env).toEqual({
      BYRE_UID: '1000',
      BYRE_BOX_UID: '1000',
      BYRE_WALL_POSTURE: 'deny-by-default',
      BYRE_EGRESS: '',
      BYRE_EGRESS_DENY: '',
      BYRE_INBOUND: '',
    });
  });

  it('the wall inputs beat the same keys in the box env', () => {
    const env = helperEnv(
      {
        BYRE_EGRESS: 'evil:1',
        BYRE_EGRESS_DENY: 'x',
        BYRE_INBOUND: '22',
        BYRE_BOX_UID: '7',
        BYRE_WALL_POSTURE: 'open-denylist',
      },
      facts,
      0,
    );
    expect(env).toEqual({
      BYRE_WALL_POSTURE: 'deny-by-default',
      BYRE_EGRESS: '',
      BYRE_EGRESS_DENY: '',
      BYRE_INBOUND: '',
      BYRE_BOX_UID: '0',
    });
  });
});

describe("the edge's hosts behind the wall (adr/0070)", () => {
  const facts = postureFacts(fakeConfig(), [
    postureSkill('byre/firewall', 'deny-by-default', '/fw'),
  ]);
  it("names the injected name:ports and the edge's user, never the box env's", () => {
    const env = helperEnv(
      { BYRE_EDGE_HOSTS: 'evil.test:443', BYRE_EDGE_UID: '1000' },
      facts,
      1000,
      undefined,
      ['api.example.com:443', 'git.example.com:8443'],
    );
    expect(env['BYRE_EDGE_HOSTS']).toBe('api.example.com:443 git.example.com:8443');
    expect(env['BYRE_EDGE_UID']).toBe('65534');
  });

  it('sets neither when nothing is injected, whatever the box env says', () => {
    const env = helperEnv({ BYRE_EDGE_HOSTS: 'evil.test:443', BYRE_EDGE_UID: '1000' }, facts, 0);
    expect(env['BYRE_EDGE_HOSTS']).toBeUndefined();
    expect(env['BYRE_EDGE_UID']).toBeUndefined();
  });
});

describe("the wall resolver's upstream (adr/0063)", () => {
  const facts = postureFacts(fakeConfig(), [
    postureSkill('byre/firewall', 'deny-by-default', '/fw'),
  ]);
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['192.0.2.53#5353', '192.0.2.53#5353'],
  ])("the host names %j: the helper gets %j, never the box env's", (upstream, expected) => {
    const env = helperEnv({ BYRE_WALL_UPSTREAM: '6.6.6.6' }, facts, 0, upstream);
    expect(env['BYRE_WALL_UPSTREAM']).toBe(expected);
  });
});

describe('the published ports the wall lets in (adr/0049)', () => {
  const port = (container: number, host = 0) =>
    sourced({ container, host, interface: '127.0.0.1' });
  it.each([
    ['no ports', [], ''],
    ['one port', [port(3000)], '3000'],
    ['container ports, not host ports', [port(8080, 18080)], '8080'],
    ['sorted numerically, each once', [port(8080), port(443, 8443), port(8080, 9090)], '443 8080'],
  ])('%s', (_label, ports, expected) => {
    for (const skill of [
      postureSkill('byre/firewall', 'deny-by-default', '/fw'),
      postureSkill('byre/firewall-open', 'open-denylist', '/fwo'),
    ]) {
      const facts = postureFacts(fakeConfig({ ports }), [skill]);
      expect(facts.inbound).toBe(expected);
      expect(helperEnv({}, facts, 0)['BYRE_INBOUND']).toBe(expected);
    }
  });
});

describe('networkRestrictions (adr/0047)', () => {
  const closed = fakeConfig({ egressClosed: [sourced({ host: 'db.example', port: null })] });
  it.each([
    ['an open box restricts nothing, closures included', closed, [agent], []],
    [
      'deny-by-default and its closures',
      closed,
      [postureSkill('byre/firewall', 'deny-by-default', '/fw'), agent],
      ['network deny-by-default (byre/firewall)', 'egress closure !db.example'],
    ],
    [
      'an open denylist',
      fakeConfig(),
      [postureSkill('byre/firewall-open', 'open-denylist', '/fwo')],
      ['network open-denylist (byre/firewall-open)'],
    ],
  ])('%s', (_what, config, skills, want) => {
    expect(networkRestrictions(config, skills)).toEqual(want);
  });
});
