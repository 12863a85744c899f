// The bundled network postures' netns hooks, run for real (bash, as in their
// helper; a process per stub call, hence the longer timeouts) against stub
// iptables, ip6tables, getent, nc and timeout that record what they were
// asked: the rules of both chains in both families, each chain ending in a
// refusal (adr/0061) and the inbound half letting in only published ports
// (adr/0049); the deny probe on loopback, whose every outcome but "refused at
// once" stops the launch before the gate opens (adr/0061); firewall-open's
// closures. The engine tier proves the rules on real bridges; IPv6, which no
// bridge here has, is proven only here.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { putFile, testTempDir } from '../../test/support/temp.js';

const HOOKS = {
  firewall: path.resolve(import.meta.dirname, '../../skills/firewall/firewall.sh'),
  open: path.resolve(import.meta.dirname, '../../skills/firewall-open/firewall-open.sh'),
};

/**
 * How the probe's connects go (STUB_PROBE), judged by whether a REJECT rule
 * is in the log (added and not deleted since): the wall is up or not.
 */
type ProbeMode = 'refused' | 'through' | 'silent' | 'unreachable' | 'nolistener';

const STUBS: Record<string, string> = {
  // `-L OUTPUT` answers, so the namespace counts as having IPv6.
  iptables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  ip6tables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  getent: 'echo "203.0.113.5    STREAM $2"',
  // The probe's listener, started in the background.
  nc: 'echo "nc $*" >> "$STUB_LOG"',
  timeout: [
    'echo "timeout $*" >> "$STUB_LOG"',
    '[ "$2" = nc ] && exit 0', // the gate: the box connected
    '[ "$1" = 2 ] || exit 0', // the allow probe connects
    'up=$(( $(grep -c -- " -A .*REJECT" "$STUB_LOG") - $(grep -c -- " -D .*REJECT" "$STUB_LOG") ))',
    'echo "probe $([ "$up" -gt 0 ] && echo walled || echo open)" >> "$STUB_LOG"',
    'refuse() { echo "bash: connect: Connection refused" >&2; exit 1; }',
    'case "$STUB_PROBE:$up" in',
    '  nolistener:*) refuse ;;',
    '  *:0|through:*) exit 0 ;;',
    '  refused:*) refuse ;;',
    '  silent:*) exit 124 ;;',
    '  unreachable:*) echo "bash: connect: No route to host" >&2; exit 1 ;;',
    'esac',
  ].join('\n'),
};

interface HookRun {
  status: number | null;
  stderr: string;
  log: string[];
}

function runHook(hook: string, env: Record<string, string>, probe: ProbeMode = 'refused'): HookRun {
  const dir = testTempDir('firewall-hook');
  for (const [name, body] of Object.entries(STUBS)) {
    putFile(dir, `bin/${name}`, `#!/bin/sh\n${body}\n`, 0o755);
  }
  const log = putFile(dir, 'calls.log', '');
  const r = spawnSync('bash', [hook], {
    encoding: 'utf8',
    env: {
      PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`,
      STUB_LOG: log,
      STUB_PROBE: probe,
      BYRE_LAUNCH_GATE_FILE: putFile(dir, 'gate', '7227\n'),
      ...env,
    },
  });
  return {
    status: r.status,
    stderr: r.stderr,
    log: readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

const runWall = (inbound: string, probe?: ProbeMode): HookRun =>
  runHook(HOOKS.firewall, { BYRE_EGRESS: 'api.example.test:443', BYRE_INBOUND: inbound }, probe);

/** The calls of one tool on one chain, in order; DNS rules left out (they follow the host's resolv.conf). */
const chain = (log: readonly string[], tool: string, name: string): string[] =>
  log.filter(
    (l) =>
      l.startsWith(`${tool} -w -`) &&
      !l.startsWith(`${tool} -w -L`) &&
      new RegExp(` ${name}\\b`).test(l) &&
      !/--dport 53 /.test(l),
  );

/** The probe's port, as the hook chose it. */
function probePort(log: readonly string[]): string {
  const port = /^nc -dlk 127\.0\.0\.1 (\d+)$/m.exec(log.join('\n'))?.[1];
  if (port === undefined) throw new Error(`no probe listener in:\n${log.join('\n')}`);
  return port;
}

/** The probe's targets: ::1 too where this machine's namespace has it. */
const LOOPBACK6 = /^0{31}1 /m.test(
  (() => {
    try {
      return readFileSync('/proc/net/if_inet6', 'utf8');
    } catch {
      return '';
    }
  })(),
);

const FAMILIES = [
  {
    tool: 'iptables',
    icmp: 'icmp-admin-prohibited',
    allow: ['-A OUTPUT -d 203.0.113.5 -p tcp --dport 443 -j ACCEPT'],
  },
  // The stub getent answers with an IPv4 address only.
  { tool: 'ip6tables', icmp: 'icmp6-adm-prohibited', allow: [] },
] as const;

describe('byre-firewall: every chain ends in a refusal, in both families', () => {
  it.each(FAMILIES)(
    '$tool: OUTPUT admits loopback (less the probe port until the probe ran), replies and the allowlist, then refuses',
    ({ tool, icmp, allow }) => {
      const r = runWall('');
      expect(r.status, r.stderr).toBe(0);
      const p = probePort(r.log);
      const t = `${tool} -w`;
      expect(chain(r.log, tool, 'OUTPUT')).toEqual([
        `${t} -F OUTPUT`,
        `${t} -A OUTPUT -o lo ! -p tcp -j ACCEPT`,
        `${t} -A OUTPUT -o lo -p tcp ! --dport ${p} -j ACCEPT`,
        `${t} -A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT`,
        ...allow.map((rule) => `${t} ${rule}`),
        `${t} -A OUTPUT -m conntrack --ctstate INVALID -j DROP`,
        `${t} -A OUTPUT -p tcp -j REJECT --reject-with tcp-reset`,
        `${t} -A OUTPUT -j REJECT --reject-with ${icmp}`,
        `${t} -P OUTPUT DROP`,
        // After the probe: the whole of loopback again.
        `${t} -I OUTPUT 1 -o lo -j ACCEPT`,
        `${t} -D OUTPUT -o lo ! -p tcp -j ACCEPT`,
        `${t} -D OUTPUT -o lo -p tcp ! --dport ${p} -j ACCEPT`,
      ]);
    },
    30_000,
  );

  it.each([
    ['no published port', '', []],
    ['two published ports', '3000 8080', ['3000', '8080']],
    ['one, with stray spaces', '  443 ', ['443']],
  ])(
    '%s: INPUT lets new connections in only on the published ports, then refuses, IPv4 and IPv6 alike',
    (_label, inbound, ports) => {
      const r = runWall(inbound);
      expect(r.status, r.stderr).toBe(0);
      for (const { tool, icmp } of FAMILIES) {
        const t = `${tool} -w`;
        expect(chain(r.log, tool, 'INPUT')).toEqual([
          `${t} -F INPUT`,
          `${t} -A INPUT -i lo -j ACCEPT`,
          `${t} -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT`,
          ...ports.map((p) => `${t} -A INPUT -p tcp --dport ${p} -j ACCEPT`),
          `${t} -A INPUT -m conntrack --ctstate INVALID -j DROP`,
          `${t} -A INPUT -p tcp -j REJECT --reject-with tcp-reset`,
          `${t} -A INPUT -j REJECT --reject-with ${icmp}`,
          `${t} -P INPUT DROP`,
        ]);
      }
      expect(r.stderr).toContain(`inbound only on ${ports.length} published port(s)`);
    },
    30_000,
  );

  it.each(['0', '65536', '08', '22;id', '80-90', 'x'])(
    'a BYRE_INBOUND entry %j that is not a port touches no rule and never opens the gate',
    (bad) => {
      const r = runWall(`3000 ${bad}`);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('not a port');
      expect(r.log.filter((l) => !l.startsWith('ip6tables -w -L'))).toEqual([]);
    },
    30_000,
  );
});

describe('byre-firewall: the deny probe on loopback (adr/0061)', () => {
  it('connects before the wall, is refused after both families are walled, and only then does loopback reopen and the gate open', () => {
    const r = runWall('');
    expect(r.status, r.stderr).toBe(0);
    const p = probePort(r.log);
    const targets = LOOPBACK6 ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    for (const ip of targets) {
      expect(r.log).toContain(`timeout 2 bash -c exec 3<>/dev/tcp/${ip}/${p}`);
      expect(r.stderr).toContain(`deny probe to ${ip}:${p} refused by the wall`);
    }
    if (LOOPBACK6) expect(r.log).toContain(`nc -6 -dlk ::1 ${p}`);
    const at = (line: string): number => r.log.indexOf(line);
    const probes = r.log.flatMap((l, i) => (l.startsWith('probe ') ? [[i, l] as const] : []));
    // The controls (one per target) before any rule; the proofs after both families' walls.
    expect(probes.map(([, l]) => l)).toEqual([
      ...targets.map(() => 'probe open'),
      ...targets.map(() => 'probe walled'),
    ]);
    const firstRule = r.log.findIndex((l) => / -F OUTPUT$/.test(l));
    expect(probes[targets.length - 1]?.[0]).toBeLessThan(firstRule);
    const proofs = probes.slice(targets.length).map(([i]) => i);
    for (const tool of ['iptables', 'ip6tables']) {
      expect(Math.min(...proofs)).toBeGreaterThan(at(`${tool} -w -P INPUT DROP`));
      expect(Math.max(...proofs)).toBeLessThan(at(`${tool} -w -I OUTPUT 1 -o lo -j ACCEPT`));
    }
    const gate = r.log.findIndex((l) => l.startsWith('timeout 60 nc -l'));
    expect(gate).toBeGreaterThan(at(`ip6tables -w -I OUTPUT 1 -o lo -j ACCEPT`));
  }, 30_000);

  it.each([
    ['gets through the wall', 'through', 'got through the wall'],
    ['is not answered within its bound', 'silent', 'was not refused within 2 s'],
    ['fails some other way than a refusal', 'unreachable', 'No route to host'],
    ['finds its own listener not answering', 'nolistener', 'never answered; cannot prove'],
  ] as const)(
    'a probe that %s stops everything before the gate opens',
    (_label, mode, message) => {
      const r = runWall('3000', mode);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.log.some((l) => l.startsWith('timeout 60 nc -l'))).toBe(false);
      if (mode === 'nolistener') {
        // The control failed: no rule was ever written.
        expect(r.log.filter((l) => / -[FAPID] /.test(l))).toEqual([]);
      }
    },
    30_000,
  );
});

describe('byre-firewall-open: closures refuse at once, proven on loopback first', () => {
  const runOpen = (deny: string, probe?: ProbeMode): HookRun =>
    runHook(HOOKS.open, { BYRE_EGRESS_DENY: deny }, probe);

  it.each([
    [
      'a host: every port',
      'telemetry.example',
      [
        'iptables -w -A OUTPUT -d 203.0.113.5 -p tcp -j REJECT --reject-with tcp-reset',
        'iptables -w -A OUTPUT -d 203.0.113.5 -j REJECT --reject-with icmp-admin-prohibited',
      ],
    ],
    [
      'a host:port: that port, tcp and udp',
      'telemetry.example:8443',
      [
        'iptables -w -A OUTPUT -d 203.0.113.5 -p tcp --dport 8443 -j REJECT --reject-with tcp-reset',
        'iptables -w -A OUTPUT -d 203.0.113.5 -p udp --dport 8443 -j REJECT --reject-with icmp-admin-prohibited',
      ],
    ],
    [
      'an IPv6 address and port',
      '[2001:db8::7]:22',
      [
        'ip6tables -w -A OUTPUT -d 2001:db8::7 -p tcp --dport 22 -j REJECT --reject-with tcp-reset',
        'ip6tables -w -A OUTPUT -d 2001:db8::7 -p udp --dport 22 -j REJECT --reject-with icmp6-adm-prohibited',
      ],
    ],
  ])(
    '%s',
    (_label, deny, rules) => {
      const r = runOpen(deny);
      expect(r.status, r.stderr).toBe(0);
      const p = probePort(r.log);
      const probe = [
        `iptables -w -A OUTPUT -d 127.0.0.1 -p tcp --dport ${p} -j REJECT --reject-with tcp-reset`,
        `iptables -w -A OUTPUT -d 127.0.0.1 -p udp --dport ${p} -j REJECT --reject-with icmp-admin-prohibited`,
      ];
      expect(r.log.filter((l) => / -[AD] OUTPUT /.test(l))).toEqual([
        ...probe,
        ...probe.map((l) => l.replace(' -A ', ' -D ')),
        ...rules,
      ]);
      expect(r.log.filter((l) => l.startsWith('probe '))).toEqual(['probe open', 'probe walled']);
      expect(r.log.at(-1)).toMatch(/^timeout 60 nc -l/);
    },
    30_000,
  );

  it.each([
    ['through', 'got through its closure'],
    ['silent', 'was not refused within 2 s'],
    ['nolistener', 'never answered; cannot prove'],
  ] as const)(
    'a probe that is %s stops everything before any closure or the gate',
    (mode, message) => {
      const r = runOpen('telemetry.example', mode);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.log.some((l) => l.includes('203.0.113.5'))).toBe(false);
      expect(r.log.some((l) => l.startsWith('timeout 60 nc -l'))).toBe(false);
    },
    30_000,
  );
});
