// The raw run_args scanner against the engines' flag grammar: every spelling
// docker and podman accept for a flag that widens the box, the flags that do
// not, the ones byre does not know, and the bare word that replaces the image.

import { describe, expect, it } from 'vitest';

import { edgeOwnedRunArgs, scanRunArgs } from './run-args-scan.js';

type RawArgEffect = ReturnType<typeof scanRunArgs>[number]['effect'];
type Row = [argv: string[], effect: RawArgEffect];

/** `args` scans to exactly `rows` (each entry's tokens and effect). */
function scan(args: string[]): Row[] {
  return scanRunArgs(args).map((a) => [a.argv, a.effect]);
}

const one = (args: string[], effect: RawArgEffect): [string[], Row[]] => [args, [[args, effect]]];

describe('scanRunArgs: what each flag gives the box', () => {
  it.each([
    // Privilege and confinement
    one(['--privileged'], 'hole'),
    one(['--privileged=true'], 'hole'),
    one(['--privileged=false'], 'inert'),
    one(['--cap-add', 'SYS_ADMIN'], 'hole'),
    one(['--cap-add=sys_ptrace'], 'hole'),
    one(['--cap-add=CAP_NET_RAW,NET_ADMIN'], 'hole'),
    one(['--cap-add=ALL'], 'hole'),
    one(['--cap-drop', 'ALL'], 'inert'),
    one(['--security-opt', 'seccomp=unconfined'], 'hole'),
    one(['--security-opt=seccomp:unconfined'], 'hole'),
    one(['--security-opt', 'apparmor=unconfined'], 'hole'),
    one(['--security-opt', 'label=disable'], 'hole'),
    one(['--security-opt', 'label:disable'], 'hole'),
    one(['--security-opt', 'systempaths=unconfined'], 'hole'),
    one(['--security-opt', 'no-new-privileges=false'], 'hole'),
    one(['--security-opt', 'no-new-privileges:false'], 'hole'),
    one(['--security-opt', 'unmask=ALL'], 'hole'),
    one(['--security-opt', 'seccomp=/etc/profile.json'], 'hole'),
    one(['--security-opt', 'apparmor=my-profile'], 'hole'),
    one(['--security-opt', 'label=type:spc_t'], 'hole'),
    one(['--security-opt', 'something=new'], 'hole'),
    one(['--security-opt', 'no-new-privileges'], 'inert'),
    one(['--security-opt', 'no-new-privileges=true'], 'inert'),
    one(['--security-opt=no-new-privileges:true'], 'inert'),
    one(['--security-opt', 'mask=/proc/acpi'], 'inert'),
    one(['--seccomp-policy=image'], 'hole'),
    one(['--seccomp-policy', 'default'], 'inert'),
    one(['--device', '/dev/kvm'], 'hole'),
    one(['--device=/dev/fuse:/dev/fuse:rwm'], 'hole'),
    one(['--device-cgroup-rule', 'c 1:3 rwm'], 'hole'),
    one(['--gpus', 'all'], 'hole'),
    one(['--device-read-bps', '/dev/sda:1mb'], 'inert'),
    one(['--device-write-iops=/dev/sda:10'], 'inert'),
    one(['--entrypoint', 'sh'], 'hole'),
    one(['--entrypoint='], 'hole'),
    one(['--use-api-socket'], 'hole'),
    one(['--use-api-socket=false'], 'inert'),
    one(['--env-host'], 'hole'),
    one(['--rootfs'], 'hole'),
    // Namespaces
    one(['--pid=host'], 'hole'),
    one(['--pid', 'host'], 'hole'),
    one(['--pid=container:db'], 'hole'),
    one(['--pid', 'private'], 'inert'),
    one(['--ipc=host'], 'hole'),
    one(['--ipc', 'shareable'], 'inert'),
    one(['--uts=host'], 'hole'),
    one(['--cgroupns=host'], 'hole'),
    one(['--cgroupns', 'private'], 'inert'),
    one(['--userns=host'], 'hole'),
    one(['--userns', 'keep-id'], 'grant'),
    one(['--pod', 'mypod'], 'hole'),
    // Network
    one(['--network=host'], 'hole'),
    one(['--network', 'host'], 'hole'),
    one(['--net=host'], 'hole'),
    one(['--net', 'HOST'], 'hole'),
    one(['--network=container:other'], 'hole'),
    one(['--network', 'ns:/proc/1/ns/net'], 'hole'),
    one(['--network=none'], 'inert'),
    one(['--network', 'bridge'], 'inert'),
    one(['--network=slirp4netns:allow_host_loopback=true'], 'inert'),
    one(['--network', 'backend'], 'grant'),
    one(['--link', 'db:db'], 'grant'),
    // Host paths
    one(['-v', '/srv:/srv'], 'mount'),
    one(['-v/srv:/srv:ro'], 'mount'),
    one(['-v=/srv:/srv'], 'mount'),
    one(['--volume', '/srv:/srv:ro,z'], 'mount'),
    one(['--volume=~/notes:/notes'], 'mount'),
    one(['-v', './rel:/x'], 'mount'),
    one(['-v', 'cache:/cache'], 'grant'),
    one(['-v', '/anonymous'], 'inert'),
    one(['--mount', 'type=bind,source=/srv,target=/srv'], 'mount'),
    one(['--mount', 'type=bind,src=/srv,dst=/s,readonly'], 'mount'),
    one(['--mount=type=bind,source=/srv,destination=/s,ro=true'], 'mount'),
    one(['--mount', 'type=glob,src=/usr/lib/*,dst=/x'], 'mount'),
    one(['--mount', 'type=volume,source=v,target=/v'], 'grant'),
    one(['--mount', 'source=v,target=/v'], 'grant'),
    one(['--mount', 'type=volume,target=/v'], 'inert'),
    one(
      [
        '--mount',
        'type=volume,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/etc,target=/e',
      ],
      'mount',
    ),
    one(['--mount', 'type=tmpfs,target=/t'], 'inert'),
    one(['--tmpfs', '/t'], 'inert'),
    one(['--volumes-from', 'other'], 'grant'),
    // The engine socket, even read-only, or a directory holding it
    one(['-v', '/var/run/docker.sock:/var/run/docker.sock:ro'], 'hole'),
    one(['--mount', 'type=bind,source=/run/docker.sock,target=/s,readonly'], 'hole'),
    one(['-v', '/run:/hostrun:ro'], 'hole'),
    one(['-v', '/:/host:ro'], 'hole'),
    one(['-v', '/var:/v'], 'hole'),
    one(['-v', '/var/run/:/x'], 'hole'),
    one(['-v', '/run/user/1000:/x'], 'hole'),
    one(['-v', '/run/user/1000/podman/podman.sock:/s'], 'hole'),
    one(['-v', '/home/u/.docker/run/docker.sock:/s'], 'hole'),
    one(['-v', '/run/user/1000/bus:/bus'], 'mount'),
    one(['-v', '/var/lib/data:/x'], 'mount'),
    // Ports
    one(['-p', '8080:80'], 'port'),
    one(['-p=8080:80'], 'port'),
    one(['-p8080:80'], 'port'),
    one(['--publish', '127.0.0.1:80:80/udp'], 'port'),
    one(['-P'], 'port'),
    one(['--publish-all'], 'port'),
    one(['--publish-all=false'], 'inert'),
    one(['--expose', '80'], 'inert'),
    // Environment
    one(['-e', 'K=V'], 'inert'),
    one(['-eK=V'], 'inert'),
    one(['-e', 'HOME_TOKEN'], 'env'),
    one(['--env=HOME_TOKEN'], 'env'),
    one(['-e', 'BYRE_EGRESS=example.com:443'], 'hole'),
    one(['--env', 'BYRE_UID'], 'hole'),
    one(['--env-file', '~/.secrets'], 'env'),
    one(['--secret', 'token,type=env'], 'env'),
    // Other widenings
    one(['--group-add', '999'], 'grant'),
    one(['-u', '0'], 'grant'),
    one(['--user=root'], 'grant'),
    one(['--uidmap', '0:1:1'], 'grant'),
    one(['--runtime', 'runsc'], 'grant'),
    one(['--cgroup-parent', 'x'], 'grant'),
    one(['--preserve-fds', '3'], 'grant'),
    // Known, and widening nothing
    one(['--hostname', 'byre'], 'inert'),
    one(['-h', 'byre'], 'inert'),
    one(['--rm'], 'inert'),
    one(['-it'], 'inert'),
    one(['--init'], 'inert'),
    one(['--memory', '1g'], 'inert'),
    one(['-m1g'], 'inert'),
    one(['--label', 'a=b'], 'inert'),
    one(['-l', 'a=b'], 'inert'),
    one(['--read-only'], 'inert'),
    one(['--name', 'x'], 'inert'),
    one(['--add-host', 'a:1.2.3.4'], 'inert'),
    one(['--dns', '1.1.1.1'], 'inert'),
    one(['--dns-opt', 'ndots:1'], 'inert'),
    one(['--sysctl', 'net.ipv4.ip_forward=1'], 'inert'),
    one(['--shm-size=1g'], 'inert'),
    one(['-w', '/x'], 'inert'),
    one(['--pull=always'], 'inert'),
    // pflag takes the next token as a value, whatever it looks like
    one(['--name', '--privileged'], 'inert'),
    one(['-v', '--privileged'], 'inert'),
    // Unknown to both engines: passed through as written, never guessed
    one(['--frobnicate'], 'unknown'),
    one(['--frobnicate=x'], 'unknown'),
    one(['--frobnicate', 'x'], 'unknown'),
    one(['-Z'], 'unknown'),
    one(['--volume'], 'unknown'),
    // A bare word: the image, and the rest its command
    one(['alpine'], 'hole'),
    one(['alpine', 'sh', '-c', 'id'], 'hole'),
    one(['--'], 'hole'),
    one(['-'], 'hole'),
  ])('%j', (args, rows) => {
    expect(scan(args)).toEqual(rows);
  });

  it('reads a list as the engine does: each flag with its value, a bare word taking the rest', () => {
    expect(
      scan([
        '--rm',
        '--pid',
        'host',
        '-itv',
        '/srv:/srv',
        '-Pv/a:/b',
        '--frob',
        'x',
        'img',
        '--privileged',
      ]),
    ).toEqual([
      [['--rm'], 'inert'],
      [['--pid', 'host'], 'hole'],
      [['-itv', '/srv:/srv'], 'mount'],
      [['-Pv/a:/b'], 'port'],
      [['-Pv/a:/b'], 'mount'],
      [['--frob', 'x'], 'unknown'],
      [['img', '--privileged'], 'hole'],
    ]);
    expect(scanRunArgs(['--rm', '--pid', 'host']).map((a) => a.start)).toEqual([0, 1]);
  });

  it('names what a bind gives: host, target, mode; the socket as a hole that is still a mount', () => {
    expect(scanRunArgs(['-v', '/srv:/data:ro'])[0]).toEqual({
      argv: ['-v', '/srv:/data:ro'],
      start: 0,
      effect: 'mount',
      what: 'binds host /srv at /data (ro; -v)',
      mount: { host: '/srv', target: '/data', mode: 'ro' },
      port: null,
      flags: ['volume'],
    });
    expect(
      scanRunArgs(['--mount', 'type=bind,source=/var/run/docker.sock,target=/s,readonly'])[0],
    ).toMatchObject({
      effect: 'hole',
      what: 'binds the engine socket (/var/run/docker.sock): root on the host, read-only or not',
      mount: { host: '/var/run/docker.sock', target: '/s', mode: 'ro' },
    });
  });

  it.each([
    [['--privileged'], 'every capability and host device, confinement off'],
    [['--pid=host'], "shares the host's PID namespace (it sees and signals their processes)"],
    [
      ['--network', 'host'],
      "shares the host's network stack (every host port and interface, localhost services included)",
    ],
    [
      ['--cap-add', 'sys_ptrace,CAP_NET_ADMIN'],
      'adds capabilities SYS_PTRACE, NET_ADMIN (byre gives the box none of its own)',
    ],
    [['--security-opt', 'seccomp=unconfined'], 'turns off the seccomp filter'],
    [
      ['--security-opt', 'no-new-privileges=false'],
      'turns off no-new-privileges (a setuid binary can raise privilege)',
    ],
    [['--device', '/dev/kvm:/dev/kvm'], 'host device /dev/kvm'],
    [['-p', '8080:80'], 'publishes 8080:80'],
    [['-e', 'TOKEN'], "passes the host's TOKEN"],
    [['--entrypoint', 'sh'], "replaces byre's launcher (its gates do not run)"],
  ])('%j says %s', (args, what) => {
    expect(scanRunArgs(args)[0]?.what).toBe(what);
  });
});

describe('scanRunArgs: a bind that reaches an engine socket is a hole', () => {
  it.each([
    ['/var/run/docker.sock', true],
    ['/run/docker.sock', true],
    ['/run/podman/podman.sock', true],
    ['/run/user/1000/podman/podman.sock', true],
    ['/run/user/1000/docker.sock', true],
    ['/run/user/1000', true],
    ['/run/user', true],
    ['/home/u/.docker/run/docker.sock', true],
    ['~/.docker/run/docker.sock', true],
    ['/run/containerd/containerd.sock', true],
    ['/', true],
    ['/var', true],
    ['/var/run/', true],
    ['/var/./run/../run', true],
    ['/run', true],
    ['/run/user/1000/bus', false],
    ['/var/lib', false],
    ['/srv/docker.socket-notes', false],
    ['/home/u/project', false],
    ['relative/docker.sock', true],
  ])('%s: %s', (path, reaches) => {
    const [bind] = scanRunArgs(['--mount', `type=bind,source=${path},target=/x`]);
    expect(bind?.effect).toBe(reaches ? 'hole' : 'mount');
  });
});

describe('edgeOwnedRunArgs: what an injecting box takes from its edge (adr/0079)', () => {
  it.each([
    [['--network', 'mynet']],
    [['--net=host']],
    [['-p', '8080:80']],
    [['-p8080:80']],
    [['-itp', '8080:80']],
    [['-P']],
    [['--publish-all']],
    [['--add-host', 'db:10.0.0.2']],
    [['--dns', '1.1.1.1']],
    [['--dns-opt', 'ndots:1']],
    [['--dns-search', 'corp']],
    [['-h', 'box']],
    [['--hostname=box']],
    [['--ip', '10.0.0.9']],
    [['--mac-address', '02:42:ac:11:00:02']],
    [['--net-alias', 'x']],
    [['--link', 'db']],
    [['--expose', '80']],
    [['--no-hosts']],
    [['--userns', 'host']],
    [['--uts=host']],
  ])('%j is the edge’s', (args) => {
    const owned = edgeOwnedRunArgs(['--memory', '1g', ...args, '-e', 'A=1']);
    expect(owned.map((a) => a.argv)).toEqual([args]);
  });

  it('nothing else is: env, mounts, limits, caps, labels, an unknown flag', () => {
    expect(
      edgeOwnedRunArgs([
        '-e',
        'A=1',
        '-v',
        '/a:/b',
        '--memory=1g',
        '--cap-add',
        'SYS_PTRACE',
        '-l',
        'x=y',
        '--it-is-new',
        '-it',
      ]),
    ).toEqual([]);
  });
});
