// The bundled firewall's netns hook, run for real (bash, as in its helper;
// a process per stub call, hence the longer timeouts)
// against stub iptables, ip6tables, getent and timeout that record what they
// were asked: the inbound half of the wall (adr/0049) in both families, before
// the launch gate opens, and a BYRE_INBOUND that is not a port stopping
// everything. The engine tier proves the rules on real bridges; IPv6, which
// no bridge here has, is proven only here.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { putFile, testTempDir } from '../../test/support/temp.js';

const HOOK = path.resolve(import.meta.dirname, '../../skills/firewall/firewall.sh');

const STUBS: Record<string, string> = {
  // `-L OUTPUT` answers, so the namespace counts as having IPv6.
  iptables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  ip6tables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  getent: 'echo "203.0.113.5    STREAM $2"',
  // The gate's `nc -l` succeeds; every probe connection is blocked.
  timeout: 'echo "timeout $*" >> "$STUB_LOG"; [ "$2" = nc ] && exit 0; exit 124',
};

function runHook(inbound: string): { status: number | null; stderr: string; log: string[] } {
  const dir = testTempDir('firewall-hook');
  for (const [name, body] of Object.entries(STUBS)) {
    putFile(dir, `bin/${name}`, `#!/bin/sh\n${body}\n`, 0o755);
  }
  const log = putFile(dir, 'calls.log', '');
  const r = spawnSync('bash', [HOOK], {
    encoding: 'utf8',
    env: {
      PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`,
      STUB_LOG: log,
      BYRE_LAUNCH_GATE_FILE: putFile(dir, 'gate', '7227\n'),
      BYRE_EGRESS: 'api.example.test:443',
      BYRE_INBOUND: inbound,
      BYRE_DENY_PROBE: '192.0.2.1:443',
      BYRE_DENY_PROBE6: '2001:db8::1',
    },
  });
  return {
    status: r.status,
    stderr: r.stderr,
    log: readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** The INPUT calls of one family, in order. */
const input = (log: readonly string[], tool: string): string[] =>
  log.filter((l) => l.startsWith(`${tool} -w`) && / INPUT\b/.test(l));

describe('byre-firewall: new connections come in only on the published ports', () => {
  it.each([
    ['no published port', '', []],
    ['two published ports', '3000 8080', ['3000', '8080']],
    ['one, with stray spaces', '  443 ', ['443']],
  ])(
    '%s, IPv4 and IPv6 alike',
    (_label, inbound, ports) => {
      const r = runHook(inbound);
      expect(r.status, r.stderr).toBe(0);
      for (const tool of ['iptables', 'ip6tables']) {
        expect(input(r.log, tool)).toEqual([
          `${tool} -w -F INPUT`,
          `${tool} -w -A INPUT -i lo -j ACCEPT`,
          `${tool} -w -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT`,
          ...ports.map((p) => `${tool} -w -A INPUT -p tcp --dport ${p} -j ACCEPT`),
          `${tool} -w -P INPUT DROP`,
        ]);
        // The wall is whole before the gate opens.
        const gate = r.log.findIndex((l) => l.startsWith('timeout 60 nc -l'));
        expect(gate).toBeGreaterThan(r.log.lastIndexOf(`${tool} -w -P INPUT DROP`));
        expect(r.log).toContain(`${tool} -w -P OUTPUT DROP`);
      }
      expect(r.stderr).toContain(`inbound only on ${ports.length} published port(s)`);
    },
    30_000,
  );

  it.each(['0', '65536', '08', '22;id', '80-90', 'x'])(
    'a BYRE_INBOUND entry %j that is not a port touches no rule and never opens the gate',
    (bad) => {
      const r = runHook(`3000 ${bad}`);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('not a port');
      expect(r.log.filter((l) => !l.startsWith('ip6tables -w -L'))).toEqual([]);
    },
    30_000,
  );
});
