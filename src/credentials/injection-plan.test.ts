// The launch plan for injected credentials (adr/0070): routes, sentinels,
// host entries, ports and trust variables, and the ejection's words.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import type { Injection } from '../config/inject.js';
import type { LayerRef } from '../config/types.js';
import { EDGE_CA_PATH } from '../gen/box-layout.js';
import { ejectedInjectionLines, INJECTION_SENTINEL, planInjection } from './injection-plan.js';

/** Debian's system bundle, which update-ca-certificates rewrites. */
const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/**
 * Where the edge listens when byre passes no `--address`, read from its
 * script: the box's host entries must send injected names there.
 */
const EDGE_ADDRESS = /address: '([^']+)'/.exec(
  readFileSync(new URL('../gen/chassis/byre-edge.cjs', import.meta.url), 'utf8'),
)?.[1];
const from: LayerRef = { kind: 'project', name: 'project', path: '/p' };

const claude: Injection = {
  key: 'ANTHROPIC_API_KEY',
  from,
  rules: [
    {
      hosts: [{ name: 'api.anthropic.com', port: 443 }],
      presentation: { kind: 'header', name: 'x-api-key' },
    },
  ],
};
const github: Injection = {
  key: 'GITHUB_TOKEN',
  from,
  rules: [
    { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' } },
    {
      hosts: [
        { name: 'github.com', port: 443 },
        { name: 'github.com', port: 8443 },
      ],
      presentation: { kind: 'basic', user: 'x-access-token' },
    },
  ],
};

describe('planInjection', () => {
  it('is empty for no injection: no env, no CA, no ports', () => {
    expect(planInjection([])).toEqual({
      routes: [],
      boxEnv: {},
      hostEntries: [],
      listenPorts: [],
      upstreams: [],
      trustEnv: {},
    });
  });

  it('routes each host, sorted, and gives the box only sentinels', () => {
    const plan = planInjection([github, claude]);
    expect(plan.routes.map((r) => [r.host.name, r.host.port, r.key, r.presentation.kind])).toEqual([
      ['api.anthropic.com', 443, 'ANTHROPIC_API_KEY', 'header'],
      ['api.github.com', 443, 'GITHUB_TOKEN', 'bearer'],
      ['github.com', 443, 'GITHUB_TOKEN', 'basic'],
      ['github.com', 8443, 'GITHUB_TOKEN', 'basic'],
    ]);
    expect(plan.boxEnv).toEqual({
      GITHUB_TOKEN: INJECTION_SENTINEL,
      ANTHROPIC_API_KEY: INJECTION_SENTINEL,
    });
    // A loopback address of its own, clear of whatever the box serves on 127.0.0.1.
    expect(EDGE_ADDRESS).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(EDGE_ADDRESS).not.toBe('127.0.0.1');
    expect(plan.hostEntries).toEqual([
      `api.anthropic.com:${EDGE_ADDRESS}`,
      `api.github.com:${EDGE_ADDRESS}`,
      `github.com:${EDGE_ADDRESS}`,
    ]);
    expect(plan.listenPorts).toEqual([80, 443, 8443]);
    // Where the edge itself connects: every route's own name and port, never :80.
    expect(plan.upstreams).toEqual([
      'api.anthropic.com:443',
      'api.github.com:443',
      'github.com:443',
      'github.com:8443',
    ]);
    expect(plan.trustEnv).toEqual({
      GIT_SSL_CAINFO: SYSTEM_BUNDLE,
      NODE_EXTRA_CA_CERTS: EDGE_CA_PATH,
      REQUESTS_CA_BUNDLE: SYSTEM_BUNDLE,
      SSL_CERT_FILE: SYSTEM_BUNDLE,
    });
  });

  it('never puts anything but the sentinel in the box env', () => {
    const plan = planInjection([claude, github]);
    expect(new Set(Object.values(plan.boxEnv))).toEqual(new Set([INJECTION_SENTINEL]));
  });

  it('a key whose rules were all dropped still holds a sentinel and routes nothing', () => {
    const plan = planInjection([{ key: 'K', rules: [] }]);
    expect(plan.boxEnv).toEqual({ K: INJECTION_SENTINEL });
    expect(plan.routes).toEqual([]);
    expect(plan.listenPorts).toEqual([]);
    expect(plan.trustEnv).toEqual({});
  });
});

describe('ejectedInjectionLines', () => {
  it('says the edge is not carried and what the box gets instead', () => {
    expect(ejectedInjectionLines([claude, github])).toEqual([
      '# ANTHROPIC_API_KEY: injected at the edge for api.anthropic.com by byre develop; not carried here — this box gets no ANTHROPIC_API_KEY (add -e ANTHROPIC_API_KEY yourself to hand the box the secret)',
      '# GITHUB_TOKEN: injected at the edge for api.github.com, github.com, github.com:8443 by byre develop; not carried here — this box gets no GITHUB_TOKEN (add -e GITHUB_TOKEN yourself to hand the box the secret)',
    ]);
    expect(ejectedInjectionLines([])).toEqual([]);
  });
});
