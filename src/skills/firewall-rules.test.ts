// The bundled network postures' netns hooks, run for real (bash, as in their
// helper; a process per stub call, hence the longer timeouts) against stubs
// that record what they were asked. byre-firewall (adr/0063): the one
// nftables ruleset it writes for an allowlist (both chains, both families,
// each ending in a refusal, adr/0061; inbound only on published ports,
// adr/0049; the DNS redirect and the resolver's exemption), the resolver's
// config (which names go upstream and which allow sets their answers fill),
// the event lines it prints, and the deny probe on loopback, whose every
// outcome but "refused at once" stops the launch before the gate opens
// (adr/0061). firewall-open runs the same hook (BYRE_WALL_POSTURE): its
// closures' sets, filled by the resolver. The engine tier proves
// the rules on real bridges; IPv6, which no bridge here has, only here.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { putFile, testTempDir } from '../../test/support/temp.js';

const HOOKS = {
  firewall: path.resolve(import.meta.dirname, '../../skills/firewall/firewall.sh'),
  open: path.resolve(import.meta.dirname, '../../skills/firewall-open/firewall-open.sh'),
};

/**
 * How the probe's connects go (STUB_PROBE), judged by whether the wall is up
 * in the log (a REJECT rule added and not deleted since; for byre-firewall,
 * the ruleset loaded and the probe port not yet handed back).
 */
type ProbeMode = 'refused' | 'through' | 'silent' | 'unreachable' | 'nolistener';

/** The namespace's /proc/net/dev with loopback only: the box's network is gone. */
const NET_DEV_LO = [
  'Inter-|   Receive                                                |  Transmit',
  ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
  '    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0',
  '',
].join('\n');

/** The same while the box's network is up (the engine's veth, named as docker names it inside). */
const NET_DEV_ETH0 = `${NET_DEV_LO}  eth0:    1296      16    0    0    0     0          0         0      0       0    0    0    0     0       0          0\n`;

const STUBS: Record<string, string> = {
  // `-L OUTPUT` answers, so the namespace counts as having IPv6.
  iptables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  ip6tables: 'echo "$(basename "$0") $*" >> "$STUB_LOG"',
  nft: [
    'echo "nft $*" >> "$STUB_LOG"',
    '[ "$1" = -f ] && sed "s/^/nft-f|/" "$2" >> "$STUB_LOG"',
    '[ "$1 $2 $5" = "list set refused4" ] && printf "%s\\n" "$STUB_REFUSED"',
    'exit 0',
  ].join('\n'),
  // The resolver: says what it was asked, prints its log lines, and exits.
  // With STUB_RESOLVER_STAYS it then runs on for that many seconds as nobody,
  // as the real one runs as its own user.
  dnsmasq: [
    'echo "dnsmasq $*" >> "$STUB_LOG"',
    'printf "%s\\n" "$STUB_RESOLVER_LOG" >&2',
    '[ -z "$STUB_RESOLVER_STAYS" ] || exec setpriv --reuid=65534 --regid=65534 --clear-groups /bin/sleep "$STUB_RESOLVER_STAYS"',
  ].join('\n'),
  id: '[ "$1 $2" = "-u dnsmasq" ] && echo "${STUB_DNS_UID:-101}"',
  // The box's network goes on the first wait of the event loop, unless the
  // wait is to last (STUB_WAITS).
  sleep: `[ -z "$STUB_WAITS" ] || exec /bin/sleep 60\nprintf '%s' '${NET_DEV_LO}' > "$STUB_NET"`,
  getent: 'echo "203.0.113.5    STREAM $2"',
  // The probe's listener, started in the background.
  nc: 'echo "nc $*" >> "$STUB_LOG"',
  timeout: [
    'echo "timeout $*" >> "$STUB_LOG"',
    '[ "$2" = nc ] && [ -n "$STUB_GATE_WAITS" ] && exec /bin/sleep 60', // no box yet
    '[ "$2" = nc ] && exit 0', // the gate: the box connected
    'case "$*" in */53) exit 0 ;; esac', // the resolver answers
    '[ "$1" = 2 ] || exit 0', // the allow probe connects
    'up=$(( $(grep -c -- " -A .*REJECT" "$STUB_LOG") - $(grep -c -- " -D .*REJECT" "$STUB_LOG") ))',
    'up=$(( up + $(grep -c "^nft -f" "$STUB_LOG") - $(grep -c "^nft delete element" "$STUB_LOG") ))',
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
  stdout: string;
  stderr: string;
  log: string[];
  /** The resolver's config as the hook wrote it. */
  conf: string[];
}

/** A directory of stubs and the hook's environment over it. */
function hookSetup(
  env: Record<string, string>,
  probe: ProbeMode,
): { dir: string; log: string; env: Record<string, string> } {
  const dir = testTempDir('firewall-hook');
  for (const [name, body] of Object.entries(STUBS)) {
    putFile(dir, `bin/${name}`, `#!/bin/sh\n${body}\n`, 0o755);
  }
  const log = putFile(dir, 'calls.log', '');
  putFile(dir, 'net-dev', NET_DEV_ETH0);
  return {
    dir,
    log,
    env: {
      PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`,
      STUB_LOG: log,
      STUB_PROBE: probe,
      STUB_NET: path.join(dir, 'net-dev'),
      BYRE_WALL_NET_FILE: path.join(dir, 'net-dev'),
      BYRE_WALL_DIR: path.join(dir, 'run'),
      BYRE_WALL_UPSTREAM: '192.0.2.53',
      STUB_RESOLVER_LOG: '',
      STUB_RESOLVER_STAYS: '',
      STUB_REFUSED: '',
      STUB_WAITS: '',
      STUB_GATE_WAITS: '',
      BYRE_LAUNCH_GATE_FILE: putFile(dir, 'gate', '7227\n'),
      ...env,
    },
  };
}

function runHook(
  hook: string,
  env: Record<string, string>,
  probe: ProbeMode = 'refused',
  wrap: readonly string[] = [],
): HookRun {
  const { dir, log, env: hookEnv } = hookSetup(env, probe);
  const [command = 'bash', ...args] = [...wrap, 'bash', hook];
  const r = spawnSync(command, args, { encoding: 'utf8', env: hookEnv });
  let conf: string[] = [];
  try {
    conf = readFileSync(path.join(dir, 'run/dnsmasq.conf'), 'utf8').split('\n').filter(Boolean);
  } catch {
    // never written
  }
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    log: readFileSync(log, 'utf8').split('\n').filter(Boolean),
    conf,
  };
}

const runWall = (
  egress: string,
  inbound = '',
  probe?: ProbeMode,
  env: Record<string, string> = {},
): HookRun =>
  runHook(HOOKS.firewall, { BYRE_EGRESS: egress, BYRE_INBOUND: inbound, ...env }, probe);

/** The ruleset the hook loaded, tabs dropped. */
const ruleset = (log: readonly string[]): string[] =>
  log.filter((l) => l.startsWith('nft-f|')).map((l) => l.slice('nft-f|'.length).trim());

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

/** The ruleset's fixed parts, around what an allowlist adds. */
const UPSTREAM = [
  'meta skuid 101 ip daddr 192.0.2.53 meta l4proto { tcp, udp } th dport 53 accept',
];
const REFUSE_CHAIN = [
  'chain refuse {',
  'oifname != "lo" meta l4proto { tcp, udp } update @refused4 { ip daddr . meta l4proto . th dport }',
  'oifname != "lo" meta l4proto { tcp, udp } update @refused6 { ip6 daddr . meta l4proto . th dport }',
  'meta l4proto tcp reject with tcp reset',
  'reject with icmpx admin-prohibited',
  '}',
];
const wall = (
  p: string,
  sets: string[],
  allow: string[],
  inbound: string[] = [],
  upstream: string[] = UPSTREAM,
  closures: string[] = [],
): string[] => [
  'table inet byre',
  'delete table inet byre',
  'table inet byre {',
  `set probe { type inet_service; elements = { ${p} } }`,
  ...sets,
  'set refused4 { type ipv4_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }',
  'set refused6 { type ipv6_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }',
  'chain dns {',
  'type nat hook output priority -101; policy accept;',
  'meta skuid 101 return',
  'meta l4proto { tcp, udp } th dport 53 redirect to :53',
  '}',
  ...(closures.length === 0 ? [] : REFUSE_CHAIN),
  'chain output {',
  'type filter hook output priority 0; policy drop;',
  'oifname "lo" tcp dport != @probe accept',
  'oifname "lo" meta l4proto != tcp accept',
  'ct state established,related accept',
  ...upstream,
  'ip daddr 127.0.0.1 meta l4proto { tcp, udp } th dport 53 accept',
  'ip6 daddr ::1 meta l4proto { tcp, udp } th dport 53 accept',
  ...closures,
  ...allow,
  'ct state invalid drop',
  'oifname != "lo" meta l4proto { tcp, udp } update @refused4 { ip daddr . meta l4proto . th dport }',
  'oifname != "lo" meta l4proto { tcp, udp } update @refused6 { ip6 daddr . meta l4proto . th dport }',
  'meta l4proto tcp reject with tcp reset',
  'reject with icmpx admin-prohibited',
  '}',
  'chain input {',
  'type filter hook input priority 0; policy drop;',
  'iifname "lo" accept',
  'ct state established,related accept',
  ...inbound,
  'ct state invalid drop',
  'meta l4proto tcp reject with tcp reset',
  'reject with icmpx admin-prohibited',
  '}',
  '}',
];

const sets = (...ports: number[]): string[] =>
  ports.flatMap((p) => [
    `set allow4_${p} { type ipv4_addr; }`,
    `set allow6_${p} { type ipv6_addr; }`,
  ]);
const setRules = (...ports: number[]): string[] =>
  ports.flatMap((p) => [
    `ip daddr @allow4_${p} tcp dport ${p} accept`,
    `ip6 daddr @allow6_${p} tcp dport ${p} accept`,
  ]);
const RESOLVER_BASE = [
  'keep-in-foreground',
  'log-facility=-',
  'log-queries',
  'no-resolv',
  'no-hosts',
  'no-poll',
  'interface=lo',
  'bind-interfaces',
  'user=dnsmasq',
  'pid-file=',
];
const nftset = (name: string, ...ports: number[]): string =>
  `nftset=/${name}/${ports.map((p) => `4#inet#byre#allow4_${p},6#inet#byre#allow6_${p}`).join(',')}`;

describe('byre-firewall: one ruleset and one resolver config per allowlist (adr/0063)', () => {
  it.each([
    ['an empty allowlist: loopback, replies and the resolver only', '', '', [], [], []],
    [
      'a name: its answers fill the allow sets of its port; nothing resolved now',
      'api.example.test:443',
      '',
      sets(443),
      setRules(443),
      ['server=/api.example.test/192.0.2.53', nftset('api.example.test', 443)],
    ],
    [
      'a name on two ports, a name under it, addresses of both families',
      'example.test:443 example.test:22 git.example.test:9418 192.0.2.7:80 [2001:db8::7]:8443',
      '',
      sets(22, 443, 9418),
      [
        'ip daddr 192.0.2.7 tcp dport 80 accept',
        'ip6 daddr 2001:db8::7 tcp dport 8443 accept',
        ...setRules(22, 443, 9418),
      ],
      [
        'server=/example.test/192.0.2.53',
        nftset('example.test', 22, 443),
        // A name under an entry is covered by it too: its answers fill both entries' sets.
        'server=/git.example.test/192.0.2.53',
        nftset('git.example.test', 22, 443, 9418),
      ],
    ],
    [
      'comma-separated, upper case, the default port',
      'Api.Example.Test,registry.npmjs.org:443',
      '',
      sets(443),
      setRules(443),
      [
        'server=/api.example.test/192.0.2.53',
        nftset('api.example.test', 443),
        'server=/registry.npmjs.org/192.0.2.53',
        nftset('registry.npmjs.org', 443),
      ],
    ],
  ])(
    '%s',
    (_label, egress, inbound, setLines, allow, conf) => {
      const r = runWall(egress, inbound);
      expect(r.status, r.stderr).toBe(0);
      expect(ruleset(r.log)).toEqual(wall(probePort(r.log), setLines, allow));
      expect(r.conf).toEqual([...RESOLVER_BASE, ...conf]);
      // Nothing is looked up at launch (adr/0063).
      expect(r.log.some((l) => l.startsWith('getent'))).toBe(false);
    },
    30_000,
  );

  it.each([
    [
      'a closed name below an allowed one is refused, never forwarded, and fills no set',
      'github.com',
      'api.github.com',
      ['server=/api.github.com/', 'server=/github.com/192.0.2.53', nftset('github.com', 443)],
    ],
    [
      "a closure on one of the name's ports keeps it resolving: its answers open the other ports only",
      'example.test:443 example.test:22',
      'git.example.test:22',
      [
        'server=/example.test/192.0.2.53',
        nftset('example.test', 22, 443),
        'server=/git.example.test/192.0.2.53',
        nftset('git.example.test', 443),
      ],
    ],
    [
      'closures on every port it had refuse it; a closure on a port it never had changes nothing',
      'example.test:443 example.test:22',
      'a.example.test:443 a.example.test:22 b.example.test:8080',
      [
        'server=/a.example.test/',
        'server=/b.example.test/192.0.2.53',
        nftset('b.example.test', 22, 443),
        'server=/example.test/192.0.2.53',
        nftset('example.test', 22, 443),
      ],
    ],
    [
      'a closure outside the allowlist, or of an address, is nothing the resolver is told; an address is refused ahead of every accept, so an allowed answer cannot open it',
      'example.test',
      'other.test 192.0.2.9 [2001:db8::9]:22',
      ['server=/example.test/192.0.2.53', nftset('example.test', 443)],
      [
        'ip daddr 192.0.2.9 goto refuse',
        'ip6 daddr 2001:db8::9 meta l4proto { tcp, udp } th dport 22 goto refuse',
      ],
    ],
  ])(
    '%s (adr/0063)',
    (_label, egress, deny, conf, closures: string[] = []) => {
      const r = runWall(egress, '', 'refused', { BYRE_EGRESS_DENY: deny });
      expect(r.status, r.stderr).toBe(0);
      expect(r.conf).toEqual([...RESOLVER_BASE, ...conf]);
      // The allow sets and rules are the allowlist's alone.
      const ports = [...new Set(egress.split(' ').map((e) => Number(e.split(':')[1] ?? 443)))];
      ports.sort((a, b) => a - b);
      expect(ruleset(r.log)).toEqual(
        wall(probePort(r.log), sets(...ports), setRules(...ports), [], UPSTREAM, closures),
      );
    },
    30_000,
  );

  it.each([
    ['no published port', '', []],
    ['two published ports', '3000 8080', ['tcp dport { 3000,8080 } accept']],
    ['one, with stray spaces', '  443 ', ['tcp dport { 443 } accept']],
  ])(
    '%s: INPUT lets new connections in only on them, then refuses',
    (_label, inbound, rules) => {
      const r = runWall('', inbound);
      expect(r.status, r.stderr).toBe(0);
      expect(ruleset(r.log)).toEqual(wall(probePort(r.log), [], [], rules));
    },
    30_000,
  );

  it("only the resolver's user reaches its upstreams, on their ports, in their family", () => {
    const r = runWall('a.test', '', 'refused', {
      BYRE_WALL_UPSTREAM: '192.0.2.53#5353,2001:db8::53',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(ruleset(r.log)).toEqual(
      wall(
        probePort(r.log),
        sets(443),
        setRules(443),
        [],
        [
          'meta skuid 101 ip daddr 192.0.2.53 meta l4proto { tcp, udp } th dport 5353 accept',
          'meta skuid 101 ip6 daddr 2001:db8::53 meta l4proto { tcp, udp } th dport 53 accept',
        ],
      ),
    );
    expect(r.conf.filter((l) => l.startsWith('server='))).toEqual([
      'server=/a.test/192.0.2.53#5353',
      'server=/a.test/2001:db8::53',
    ]);
  }, 30_000);

  it('every resolver the engine gave goes upstream when no BYRE_WALL_UPSTREAM is set, the resolver itself never', () => {
    const r = runWall('a.test', '', 'refused', { BYRE_WALL_UPSTREAM: '' });
    expect(r.status, r.stderr).toBe(0);
    const servers = r.conf.filter((l) => l.startsWith('server='));
    const expected = readFileSync('/etc/resolv.conf', 'utf8')
      .split('\n')
      .flatMap((l) => /^nameserver\s+(\S+)/.exec(l)?.slice(1) ?? [])
      .filter((ns) => ns !== '127.0.0.1' && ns !== '::1')
      .map((ns) => `server=/a.test/${ns}`);
    expect(servers).toEqual(expected);
  }, 30_000);

  it.each([
    ['BYRE_EGRESS', 'a.test:0', 'not an entry'],
    ['BYRE_EGRESS', 'a.test:70000', 'not an entry'],
    ['BYRE_EGRESS', 'a.test/x', 'not an entry'],
    ['BYRE_EGRESS', 'a;reboot', 'not an entry'],
    ['BYRE_EGRESS', '[2001:db8::1;x]:22', 'not an entry'],
    ['BYRE_INBOUND', '22;id', 'not a port'],
    ['BYRE_INBOUND', '08', 'not a port'],
    ['BYRE_INBOUND', '0', 'not a port'],
    ['BYRE_WALL_UPSTREAM', '1.2.3.4;x', 'not ip[#port]'],
    ['BYRE_BOX_UID', '101', "the resolver's user"],
  ])(
    '%s %j touches no rule, starts no resolver and never opens the gate',
    (key, value, message) => {
      const r = runWall('a.test', '', 'refused', { [key]: value });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(message);
      expect(r.log.filter((l) => /^(nft|dnsmasq|timeout 60)/.test(l))).toEqual([]);
    },
    30_000,
  );
});

describe("byre-firewall: the edge's hosts, reached by the edge's user alone (adr/0070)", () => {
  const EDGE = { BYRE_EDGE_UID: '65534', BYRE_BOX_UID: '1000' };
  const edgeSets = (...ports: number[]): string[] =>
    ports.flatMap((p) => [
      `set edge4_${p} { type ipv4_addr; }`,
      `set edge6_${p} { type ipv6_addr; }`,
    ]);
  const edgeRules = (...ports: number[]): string[] =>
    ports.flatMap((p) => [
      `meta skuid 65534 ip daddr @edge4_${p} tcp dport ${p} accept`,
      `meta skuid 65534 ip6 daddr @edge6_${p} tcp dport ${p} accept`,
    ]);
  const edgeNftset = (name: string, allow: number[], edge: number[]): string =>
    `nftset=/${name}/${[
      ...allow.map((p) => `4#inet#byre#allow4_${p},6#inet#byre#allow6_${p}`),
      ...edge.map((p) => `4#inet#byre#edge4_${p},6#inet#byre#edge6_${p}`),
    ].join(',')}`;

  it('an injected name off the allowlist: forwarded, its answers only in the edge sets, which only the edge user may use', () => {
    const r = runWall('registry.npmjs.org', '', 'refused', {
      ...EDGE,
      BYRE_EDGE_HOSTS: 'api.fixture.test:8443 api.example.test',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(ruleset(r.log)).toEqual(
      wall(
        probePort(r.log),
        [...sets(443), ...edgeSets(443, 8443)],
        [...setRules(443), ...edgeRules(443, 8443)],
      ),
    );
    expect(r.conf).toEqual([
      ...RESOLVER_BASE,
      'server=/api.example.test/192.0.2.53',
      edgeNftset('api.example.test', [], [443]),
      'server=/api.fixture.test/192.0.2.53',
      edgeNftset('api.fixture.test', [], [8443]),
      'server=/registry.npmjs.org/192.0.2.53',
      nftset('registry.npmjs.org', 443),
    ]);
  }, 30_000);

  it('an injected name under an allowed one fills both; a closure closes it to the edge as to the box', () => {
    const r = runWall('github.com', '', 'refused', {
      ...EDGE,
      BYRE_EGRESS_DENY: 'uploads.github.com',
      BYRE_EDGE_HOSTS: 'api.github.com,uploads.github.com',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.conf.slice(RESOLVER_BASE.length)).toEqual([
      'server=/api.github.com/192.0.2.53',
      edgeNftset('api.github.com', [443], [443]),
      'server=/github.com/192.0.2.53',
      nftset('github.com', 443),
      'server=/uploads.github.com/',
    ]);
  }, 30_000);

  it("an answer for the edge alone is no event of the box's; a query for it is no refused name", () => {
    const r = runWall('example.test', '', 'refused', {
      ...EDGE,
      BYRE_EDGE_HOSTS: 'api.fixture.test:8443',
      STUB_RESOLVER_LOG: [
        'dnsmasq: query[A] api.fixture.test from 127.0.0.1',
        'dnsmasq: reply api.fixture.test is 192.0.2.20',
        'dnsmasq: query[A] www.example.test from 172.17.0.2',
        'dnsmasq: reply www.example.test is 192.0.2.10',
      ].join('\n'),
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/ \d{10} /, ' T '));
    expect(events).toEqual(['byre-wall 1 resolved T www.example.test 192.0.2.10 0']);
  }, 30_000);

  it('under open-denylist the edge is as open as the box: no edge set, no edge rule', () => {
    const r = runHook(HOOKS.open, {
      ...EDGE,
      BYRE_WALL_POSTURE: 'open-denylist',
      BYRE_EGRESS_DENY: 'closed.test',
      BYRE_EDGE_HOSTS: 'api.fixture.test:8443',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(ruleset(r.log).some((l) => l.includes('edge'))).toBe(false);
    expect(r.conf.some((l) => l.includes('fixture'))).toBe(false);
  }, 30_000);

  it.each([
    [{ BYRE_EDGE_UID: '' }, 'not a uid'],
    [{ BYRE_EDGE_UID: '0' }, 'not a uid'],
    [{ BYRE_EDGE_UID: '65534;x' }, 'not a uid'],
    [{ BYRE_BOX_UID: '65534' }, "the edge's user"],
    [{ BYRE_EDGE_UID: '101' }, "the resolver's user"],
    [{ BYRE_EDGE_HOSTS: '192.0.2.9:443' }, 'names only'],
    [{ BYRE_EDGE_HOSTS: 'a;b.test' }, 'not an entry'],
  ])(
    '%j touches no rule, starts no resolver and never opens the gate',
    (env, message) => {
      const r = runWall('a.test', '', 'refused', {
        ...EDGE,
        BYRE_EDGE_HOSTS: 'api.fixture.test',
        ...env,
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(message);
      expect(r.log.filter((l) => /^(nft|dnsmasq|timeout 60)/.test(l))).toEqual([]);
    },
    30_000,
  );
});

/**
 * The hook run until `stage` says it is waiting, then sent TERM, as its
 * engine stops it; how it ended. Its process group goes after (the stubs'
 * sleeps).
 */
async function termHook(
  env: Record<string, string>,
  stage: (stderr: string, log: string) => boolean,
): Promise<{ status: number | null; signal: string | null; stderr: string }> {
  const setup = hookSetup({ BYRE_EGRESS: 'a.test', ...env }, 'refused');
  const child = spawn('bash', [HOOKS.firewall], { env: setup.env, detached: true });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const ended = new Promise<{ status: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (status, signal) => resolve({ status, signal })),
  );
  try {
    while (!stage(stderr, readFileSync(setup.log, 'utf8'))) {
      if (child.exitCode !== null) throw new Error(`the hook ended first:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGTERM');
    return { ...(await ended), stderr };
  } finally {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // all gone
    }
  }
}

describe('byre-firewall: stopped by its engine (TERM)', () => {
  // As PID 1 in its helper, bash ignores a TERM it has no trap for, and
  // podman's `rm -f` waited out the stop grace at every session's end. Here
  // (not PID 1) an untrapped TERM kills it by the signal instead: 143 is the
  // trap's. A wait the trap cannot interrupt would hold it the stub's 60 s.
  it('ends at once by its trap while the gate waits for the box, the gate never opened', async () => {
    const r = await termHook({ STUB_GATE_WAITS: '1' }, (_e, log) =>
      log.includes('timeout 60 nc -l'),
    );
    expect(r).toMatchObject({ status: 143, signal: null });
    expect(r.stderr).not.toContain('gate opened');
  }, 20_000);

  it('ends at once by its trap while it reports the session', async () => {
    const r = await termHook({ STUB_WAITS: '1' }, (stderr) => stderr.includes('gate opened'));
    expect(r).toMatchObject({ status: 143, signal: null });
  }, 20_000);
});

describe('byre-firewall: the event lines (adr/0063)', () => {
  it('prints resolved, refused-name and refused-connect lines; other resolver chatter goes to stderr; the resolver exiting is said', () => {
    const r = runWall('example.test:443', '', 'refused', {
      STUB_RESOLVER_LOG: [
        'dnsmasq: started, version 2.90 cachesize 150',
        'dnsmasq: query[A] www.example.test from 172.17.0.2',
        'dnsmasq: forwarded www.example.test to 192.0.2.53',
        'dnsmasq: reply www.example.test is 192.0.2.10',
        'dnsmasq: reply www.example.test is 2001:db8::10',
        'dnsmasq: reply www.example.test is <CNAME>',
        'dnsmasq: query[TXT] aGVsbG8.Off-List.test from 172.17.0.2',
        'dnsmasq: query[type=65] x y.off-list.test from 172.17.0.2',
        'dnsmasq: query[AAAA] notexample.test from 172.17.0.2',
      ].join('\n'),
      STUB_REFUSED:
        'elements = { 192.0.2.99 . tcp . 8080 counter packets 3 bytes 180,\n 192.0.2.98 . udp . 53 counter packets 1 bytes 60 }',
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^(byre-wall 1 [a-z-]+) \d+ /, '$1 T '));
    expect(events.sort()).toEqual(
      [
        'byre-wall 1 resolved T www.example.test 192.0.2.10 0',
        'byre-wall 1 resolved T www.example.test 2001:db8::10 0',
        'byre-wall 1 refused-name T agvsbg8.off-list.test TXT',
        'byre-wall 1 refused-name T x\\032y.off-list.test TYPE65',
        'byre-wall 1 refused-name T notexample.test AAAA',
        'byre-wall 1 refused-connect T tcp 192.0.2.99 8080 count=3',
        'byre-wall 1 refused-connect T udp 192.0.2.98 53 count=1',
      ].sort(),
    );
    expect(r.stdout).toMatch(/^byre-wall 1 resolved \d{10} /m);
    expect(r.stderr).toContain('dnsmasq: started, version 2.90');
    expect(r.stderr).toContain('the resolver exited: no DNS and no new address');
    expect(r.stderr).toContain('gate opened');
  }, 30_000);

  // firewall-open's packages pull no netbase: without /etc/protocols nft
  // prints a protocol's number, and the refused connects were never read.
  it('reads the refused set when nft prints protocols as numbers (no /etc/protocols)', () => {
    const r = runWall('example.test:443', '', 'refused', {
      STUB_REFUSED:
        'elements = { 172.18.0.1 . 6 . 42767 counter packets 2 bytes 120,\n 192.0.2.2 . 17 . 53 counter packets 1 bytes 60 }',
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.includes('refused-connect'))
      .map((l) => l.replace(/^(byre-wall 1 [a-z-]+) \d+ /, '$1 T '));
    expect(events.sort()).toEqual([
      'byre-wall 1 refused-connect T tcp 172.18.0.1 42767 count=2',
      'byre-wall 1 refused-connect T udp 192.0.2.2 53 count=1',
    ]);
  }, 30_000);

  // The helper holds no CAP_KILL (adr/0050) and the resolver runs as its own
  // user: a `kill -0` to it is refused while it runs, which said "exited".
  it.skipIf(process.getuid?.() !== 0 || !existsSync('/usr/bin/setpriv'))(
    'a resolver running as its own user, beyond the reach of a helper without CAP_KILL, is not said to have exited',
    () => {
      const r = runHook(
        HOOKS.firewall,
        { BYRE_EGRESS: 'example.test', BYRE_INBOUND: '', STUB_RESOLVER_STAYS: '4' },
        'refused',
        ['setpriv', '--bounding-set=-kill', '--inh-caps=-kill', '--'],
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain('gate opened');
      expect(r.stderr).not.toContain('the resolver exited');
      expect(r.stderr).not.toContain('the resolver did not start');
    },
    30_000,
  );

  it('a query for a closed name below an allowed one is a refused name; the allowed names around it are not', () => {
    const r = runWall('github.com', '', 'refused', {
      BYRE_EGRESS_DENY: 'api.github.com',
      STUB_RESOLVER_LOG: [
        'dnsmasq: query[A] api.github.com from 172.17.0.2',
        'dnsmasq: config api.github.com is NXDOMAIN',
        'dnsmasq: query[A] x.api.github.com from 172.17.0.2',
        'dnsmasq: query[A] codeload.github.com from 172.17.0.2',
        'dnsmasq: query[A] github.com from 172.17.0.2',
      ].join('\n'),
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^(byre-wall 1 [a-z-]+) \d+ /, '$1 T '));
    expect(events).toEqual([
      'byre-wall 1 refused-name T api.github.com A',
      'byre-wall 1 refused-name T x.api.github.com A',
    ]);
  }, 30_000);

  it('a name too long for an event line keeps its last labels', () => {
    const long = `${'a'.repeat(60)}.`.repeat(12) + 'off-list.test';
    const r = runWall('', '', 'refused', {
      STUB_RESOLVER_LOG: `dnsmasq: query[A] ${long} from 172.17.0.2`,
    });
    expect(r.status, r.stderr).toBe(0);
    const line = r.stdout.trim();
    expect(line.length).toBeLessThanOrEqual(600);
    expect(line).toMatch(/ a{60}\.(a{60}\.)+off-list\.test A$/);
  }, 30_000);
});

describe('byre-firewall: the deny probe on loopback (adr/0061)', () => {
  it('connects before the wall, is refused after it, and only then is the probe port handed back, the resolver asked, and the gate opened', () => {
    const r = runWall('a.test');
    expect(r.status, r.stderr).toBe(0);
    const p = probePort(r.log);
    const targets = LOOPBACK6 ? ['127.0.0.1', '::1'] : ['127.0.0.1'];
    for (const ip of targets) {
      expect(r.log).toContain(`timeout 2 bash -c exec 3<>/dev/tcp/${ip}/${p}`);
      expect(r.stderr).toContain(`deny probe to ${ip}:${p} refused by the wall`);
    }
    if (LOOPBACK6) expect(r.log).toContain(`nc -6 -dlk ::1 ${p}`);
    const at = (prefix: string): number => r.log.findIndex((l) => l.startsWith(prefix));
    const probes = r.log.flatMap((l, i) => (l.startsWith('probe ') ? [[i, l] as const] : []));
    expect(probes.map(([, l]) => l)).toEqual([
      ...targets.map(() => 'probe open'),
      ...targets.map(() => 'probe walled'),
    ]);
    expect(probes[targets.length - 1]?.[0]).toBeLessThan(at('nft -f'));
    expect(probes[targets.length]?.[0]).toBeGreaterThan(at('nft -f'));
    const handBack = at(`nft delete element inet byre probe { ${p} }`);
    expect(Math.max(...probes.map(([i]) => i))).toBeLessThan(handBack);
    expect(at('dnsmasq --conf-file=')).toBeGreaterThan(at('nft -f'));
    // The whole line: a probe port such as 5321 starts with 53.
    const askResolver = r.log.indexOf('timeout 2 bash -c exec 3<>/dev/tcp/127.0.0.1/53');
    expect(askResolver).toBeGreaterThan(handBack);
    expect(at('timeout 60 nc -l')).toBeGreaterThan(askResolver);
  }, 30_000);

  it.each([
    ['gets through the wall', 'through', 'got through the wall'],
    ['is not answered within its bound', 'silent', 'was not refused within 2 s'],
    ['fails some other way than a refusal', 'unreachable', 'No route to host'],
    ['finds its own listener not answering', 'nolistener', 'never answered; cannot prove'],
  ] as const)(
    'a probe that %s stops everything before the gate opens',
    (_label, mode, message) => {
      const r = runWall('a.test', '3000', mode);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.log.some((l) => l.startsWith('timeout 60 nc -l'))).toBe(false);
      expect(r.log.some((l) => l.startsWith('nft delete element'))).toBe(false);
      if (mode === 'nolistener') {
        // The control failed: no rule was ever written, no resolver started.
        expect(r.log.filter((l) => /^(nft|dnsmasq)/.test(l))).toEqual([]);
      }
    },
    30_000,
  );
});

describe('byre-firewall-open: the same hook, closures refused through the resolver (adr/0063)', () => {
  const runOpen = (deny: string, probe?: ProbeMode, env: Record<string, string> = {}): HookRun =>
    runHook(
      HOOKS.open,
      { BYRE_WALL_POSTURE: 'open-denylist', BYRE_EGRESS: '', BYRE_EGRESS_DENY: deny, ...env },
      probe,
    );

  it('is byre-firewall byte for byte (a package ships only its own files)', () => {
    expect(readFileSync(HOOKS.open, 'utf8')).toBe(readFileSync(HOOKS.firewall, 'utf8'));
  });

  const denySets = (...ports: string[]): string[] =>
    ports.flatMap((p) => [
      `set deny4_${p} { type ipv4_addr; }`,
      `set deny6_${p} { type ipv6_addr; }`,
    ]);
  const openWall = (p: string, setLines: string[], closures: string[]): string[] => [
    'table inet byre',
    'delete table inet byre',
    'table inet byre {',
    `set probe { type inet_service; elements = { ${p} } }`,
    ...setLines,
    'set refused4 { type ipv4_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }',
    'set refused6 { type ipv6_addr . inet_proto . inet_service; size 4096; flags dynamic; counter; }',
    'chain dns {',
    'type nat hook output priority -101; policy accept;',
    'meta skuid 101 return',
    'meta l4proto { tcp, udp } th dport 53 redirect to :53',
    '}',
    ...REFUSE_CHAIN,
    'chain output {',
    'type filter hook output priority 0; policy accept;',
    'oifname "lo" tcp dport @probe goto refuse',
    'oifname "lo" accept',
    'ct state established,related accept',
    ...closures,
    '}',
    '}',
  ];
  const denyset = (name: string, ...ports: string[]): string =>
    `nftset=/${name}/${ports.map((p) => `4#inet#byre#deny4_${p},6#inet#byre#deny6_${p}`).join(',')}`;

  it.each([
    ['nothing closed: open, every name forwarded', '', [], [], []],
    [
      'a host: every port and protocol of every address the resolver hands out for it',
      'telemetry.example',
      denySets('all'),
      ['ip daddr @deny4_all goto refuse', 'ip6 daddr @deny6_all goto refuse'],
      [denyset('telemetry.example', 'all')],
    ],
    [
      'a host:port, a name under a closed one, addresses of both families',
      'telemetry.example:8443 example.test x.example.test:22 192.0.2.7 192.0.2.8:80 [2001:db8::7]:22',
      denySets('all', '22', '8443'),
      [
        'ip daddr 192.0.2.7 goto refuse',
        'ip daddr 192.0.2.8 meta l4proto { tcp, udp } th dport 80 goto refuse',
        'ip6 daddr 2001:db8::7 meta l4proto { tcp, udp } th dport 22 goto refuse',
        'ip daddr @deny4_all goto refuse',
        'ip6 daddr @deny6_all goto refuse',
        'ip daddr @deny4_22 meta l4proto { tcp, udp } th dport 22 goto refuse',
        'ip6 daddr @deny6_22 meta l4proto { tcp, udp } th dport 22 goto refuse',
        'ip daddr @deny4_8443 meta l4proto { tcp, udp } th dport 8443 goto refuse',
        'ip6 daddr @deny6_8443 meta l4proto { tcp, udp } th dport 8443 goto refuse',
      ],
      [
        denyset('example.test', 'all'),
        denyset('telemetry.example', '8443'),
        denyset('x.example.test', 'all', '22'),
      ],
    ],
  ])(
    '%s',
    (_label, deny, setLines, closures, conf) => {
      const r = runOpen(deny);
      expect(r.status, r.stderr).toBe(0);
      expect(ruleset(r.log)).toEqual(openWall(probePort(r.log), setLines, closures));
      expect(r.conf).toEqual([...RESOLVER_BASE, 'server=192.0.2.53', ...conf]);
      // Nothing is looked up at launch (adr/0063): a closure that does not resolve blocks nothing.
      expect(r.log.some((l) => /^(getent|iptables|ip6tables)/.test(l))).toBe(false);
      expect(r.stderr).toContain('egress open-denylist applied');
      expect(r.stderr).toContain('gate opened');
    },
    30_000,
  );

  it('BYRE_EGRESS (an allowlist) means nothing to it; a port of "all" only in a closure; an unknown posture stops it', () => {
    const allow = runOpen('', 'refused', { BYRE_EGRESS: 'a.test:443' });
    expect(allow.status, allow.stderr).toBe(0);
    expect(allow.conf).toEqual([...RESOLVER_BASE, 'server=192.0.2.53']);
    const all = runWall('a.test:all');
    expect(all.status).not.toBe(0);
    expect(all.stderr).toContain('BYRE_EGRESS holds "a.test:all", not an entry');
    const odd = runOpen('a.test', 'refused', { BYRE_WALL_POSTURE: 'open' });
    expect(odd.status).not.toBe(0);
    expect(odd.stderr).toContain('BYRE_WALL_POSTURE holds "open"');
    expect(odd.log.filter((l) => /^(nft|dnsmasq|timeout 60)/.test(l))).toEqual([]);
  }, 30_000);

  it("prints a closed name's answers and the refused connects, never the open network's own lookups, and refuses no name", () => {
    const r = runOpen('telemetry.example:443', 'refused', {
      STUB_RESOLVER_LOG: [
        'dnsmasq: started, version 2.90 cachesize 150',
        'dnsmasq: query[A] api.telemetry.example from 172.17.0.2',
        'dnsmasq: forwarded api.telemetry.example to 192.0.2.53',
        'dnsmasq: reply api.telemetry.example is 192.0.2.10',
        'dnsmasq: query[A] deb.debian.org from 172.17.0.2',
        'dnsmasq: forwarded deb.debian.org to 192.0.2.53',
        'dnsmasq: reply deb.debian.org is 192.0.2.20',
        'dnsmasq: cached deb.debian.org is 192.0.2.20',
        'dnsmasq: reply nothing.example is NXDOMAIN',
      ].join('\n'),
      STUB_REFUSED: 'elements = { 192.0.2.10 . tcp . 443 counter packets 2 bytes 120 }',
    });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^(byre-wall 1 [a-z-]+) \d+ /, '$1 T '));
    expect(events.sort()).toEqual([
      'byre-wall 1 refused-connect T tcp 192.0.2.10 443 count=2',
      'byre-wall 1 resolved T api.telemetry.example 192.0.2.10 0',
    ]);
    expect(r.stderr).toContain('dnsmasq: started, version 2.90');
    expect(r.stderr).not.toContain('deb.debian.org');
  }, 30_000);

  it('connects before the wall, is refused after it, and only then is the probe port handed back and the gate opened', () => {
    const r = runOpen('telemetry.example');
    expect(r.status, r.stderr).toBe(0);
    const p = probePort(r.log);
    expect(r.stderr).toContain(`deny probe to 127.0.0.1:${p} refused by the wall`);
    const at = (prefix: string): number => r.log.findIndex((l) => l.startsWith(prefix));
    expect(r.log.filter((l) => l.startsWith('probe ')).slice(-1)).toEqual(['probe walled']);
    expect(at('nft delete element')).toBeGreaterThan(at('nft -f'));
    expect(at('timeout 60 nc -l')).toBeGreaterThan(at('nft delete element'));
  }, 30_000);

  it.each([
    ['through', 'got through the wall'],
    ['silent', 'was not refused within 2 s'],
    ['nolistener', 'never answered; cannot prove'],
  ] as const)(
    'a probe that is %s stops everything before the gate',
    (mode, message) => {
      const r = runOpen('telemetry.example', mode);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.log.some((l) => l.startsWith('timeout 60 nc -l'))).toBe(false);
    },
    30_000,
  );
});
