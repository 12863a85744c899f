import { describe, expect, it } from 'vitest';

import { ByreError } from '../errors.js';
import {
  buildRunArgv,
  edgeNetworkFlags,
  expandHost,
  hostBinds,
  runEnv,
  type RunParams,
} from './run-argv.js';

const base: RunParams = {
  engine: 'docker',
  worktreeId: 'app-1a2b3c',
  projectId: 'app-1a2b3c',
  uid: 1000,
  gid: 1000,
  skillEnv: {},
  hostEnv: {},
  workspaceDir: '/home/u/app',
  home: '/home/u',
  configMounts: [],
  skillMounts: [],
  extraBinds: [],
  configVolumes: [],
  skillVolumes: [],
  ports: [],
  caps: [],
  groupAdd: [],
  keepId: false,
  skillRunArgs: [],
  projectRunArgs: [],
  labels: { client: 4242 },
  image: 'byre-app-1a2b3c-u1000-g1000',
};

const minimalTail = [
  '-e',
  'BYRE_GID=1000',
  '-e',
  'BYRE_PROJECT=app-1a2b3c',
  '-e',
  'BYRE_UID=1000',
  '-e',
  'BYRE_WORKTREE=app-1a2b3c',
  '--mount',
  'type=bind,source=/home/u/app,target=/workspace',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
  '--label',
  'byre.project=app-1a2b3c',
  '--label',
  'byre.workdir=app-1a2b3c',
  '--label',
  'byre.client=4242',
  '--label',
  'byre.uid=1000',
  '--label',
  'byre.gid=1000',
  'byre-app-1a2b3c-u1000-g1000',
];

describe('buildRunArgv', () => {
  it('builds the minimal argv, no -t without a TTY', () => {
    expect(buildRunArgv(base, 'run', false)).toEqual([
      'run',
      '--rm',
      '-i',
      '--name',
      'byre-app-1a2b3c',
      ...minimalTail,
    ]);
  });

  it('adds -t only when stdin is a TTY; create never pulls, the printed run is the reference line', () => {
    expect(buildRunArgv(base, 'create', true)).toEqual([
      'create',
      '--rm',
      '--pull=never',
      '-i',
      '-t',
      '--name',
      'byre-app-1a2b3c',
      ...minimalTail,
    ]);
  });

  it('a box byre removes itself (the wall joins it) is created without --rm; the printed run keeps it', () => {
    const walled: RunParams = { ...base, removedBy: 'byre' };
    expect(buildRunArgv(walled, 'create', false).slice(0, 4)).toEqual([
      'create',
      '--pull=never',
      '-i',
      '--name',
    ]);
    expect(buildRunArgv(base, 'run', false).slice(0, 3)).toEqual(['run', '--rm', '-i']);
    expect(buildRunArgv(base, 'create', false).slice(0, 2)).toEqual(['create', '--rm']);
  });

  it('a printed run whose user removes the box (podman beside an ejected wall) has no --rm', () => {
    const ejected: RunParams = { ...base, removedBy: 'user' };
    expect(buildRunArgv(ejected, 'run', false).slice(0, 3)).toEqual(['run', '-i', '--name']);
  });

  it('places every section in its fixed order, 1-13', () => {
    const full: RunParams = {
      ...base,
      engine: 'podman',
      worktreeId: 'app-1a2b3c-wt-feat',
      skillEnv: { ZED: 'skill', SHARED: 'from-skill', BYRE_PORT_8080: 'spoof' },
      hostEnv: { SHARED: 'from-host', GH_TOKEN: 't' },
      egress: 'api.example.com:443 github.com:443',
      configMounts: [
        { host: '~/notes', target: '/notes', mode: 'ro', disabled: false },
        { host: '/srv/off', target: '/off', mode: 'rw', disabled: true },
      ],
      skillMounts: [{ host: '/var/run/sock/', target: '/run/sock', mode: 'rw' }],
      extraBinds: [{ host: '/home/u/app/.git', target: '/home/u/app/.git', mode: 'rw' }],
      configVolumes: [{ name: 'byre-app-1a2b3c-cache', target: '/cache' }],
      skillVolumes: [{ name: 'byre-machine-u1000-.claude', target: '/home/dev/.claude' }],
      ports: [
        { container: 3000, host: 0, interface: '127.0.0.1' },
        { container: 8080, host: 18080, interface: '0.0.0.0' },
      ],
      caps: ['NET_ADMIN', 'SYS_PTRACE', 'NET_ADMIN'],
      groupAdd: ['999', 12, '100'],
      keepId: true,
      skillRunArgs: ['--hostname', 'byre'],
      projectRunArgs: ['--cap-add=SYS_PTRACE', '--label', 'byre.project=spoof'],
      labels: { client: 7, run: 'f'.repeat(32), launch: 'a'.repeat(64) },
    };
    expect(buildRunArgv(full, 'create', true)).toEqual([
      'create',
      '--rm',
      '--pull=never',
      '-i',
      '-t',
      '--name',
      'byre-app-1a2b3c-wt-feat',
      '-e',
      'BYRE_EGRESS=api.example.com:443 github.com:443',
      '-e',
      'BYRE_GID=1000',
      '-e',
      'BYRE_PORT_3000=3000',
      '-e',
      'BYRE_PORT_8080=18080',
      '-e',
      'BYRE_PROJECT=app-1a2b3c',
      '-e',
      'BYRE_UID=1000',
      '-e',
      'BYRE_WORKTREE=app-1a2b3c-wt-feat',
      '-e',
      'GH_TOKEN=t',
      '-e',
      'SHARED=from-host',
      '-e',
      'ZED=skill',
      '--mount',
      'type=bind,source=/home/u/app,target=/workspace',
      '--mount',
      'type=bind,source=/home/u/notes,target=/notes,readonly',
      '--mount',
      'type=bind,source=/var/run/sock,target=/run/sock',
      '--mount',
      'type=bind,source=/home/u/app/.git,target=/home/u/app/.git',
      '--mount',
      'type=volume,source=byre-app-1a2b3c-cache,target=/cache',
      '--mount',
      'type=volume,source=byre-machine-u1000-.claude,target=/home/dev/.claude',
      '-p',
      '127.0.0.1:3000:3000',
      '-p',
      '0.0.0.0:18080:8080',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--cap-add',
      'NET_ADMIN',
      '--cap-add',
      'SYS_PTRACE',
      '--group-add',
      '12',
      '--group-add',
      '100',
      '--group-add',
      '999',
      '--userns=keep-id:uid=1000,gid=1000',
      '--no-healthcheck',
      '--hostname',
      'byre',
      '--cap-add=SYS_PTRACE',
      '--label',
      'byre.project=spoof',
      '--label',
      'byre.project=app-1a2b3c',
      '--label',
      'byre.workdir=app-1a2b3c-wt-feat',
      '--label',
      'byre.client=7',
      '--label',
      'byre.uid=1000',
      '--label',
      'byre.gid=1000',
      '--label',
      `byre.run=${'f'.repeat(32)}`,
      '--label',
      `byre.launch=${'a'.repeat(64)}`,
      'byre-app-1a2b3c-u1000-g1000',
    ]);
  });

  it.each([
    ['docker, keepId set', 'docker', true, false],
    ['podman, keepId set', 'podman', true, true],
    ['podman, rootful', 'podman', false, false],
  ] as const)('keep-id userns: %s', (_label, engine, keepId, expected) => {
    const argv = buildRunArgv({ ...base, engine, keepId }, 'run', false);
    expect(argv.includes('--userns=keep-id:uid=1000,gid=1000')).toBe(expected);
  });

  it.each([
    ['docker', 'run', false, []],
    ['docker', 'create', false, ['SYS_PTRACE']],
    ['podman', 'create', false, []],
    ['podman', 'create', true, ['NET_RAW', 'NET_RAW']],
    ['podman', 'run', true, []],
  ] as const)(
    'drops every capability with no new privileges (%s %s, keep-id %s), then adds back only skill caps %j',
    (engine, mode, keepId, caps) => {
      // adr/0050: the box runs as the baked user and needs none itself.
      const argv = buildRunArgv({ ...base, engine, keepId, caps }, mode, false);
      const at = argv.indexOf('--cap-drop');
      expect(argv.slice(at, at + 4)).toEqual([
        '--cap-drop',
        'ALL',
        '--security-opt',
        'no-new-privileges',
      ]);
      expect(argv.filter((a) => a === '--cap-drop' || a === '--security-opt')).toHaveLength(2);
      const added = argv.flatMap((a, i) => (a === '--cap-add' ? [argv[i + 1]] : []));
      expect(added).toEqual([...new Set(caps)]);
      if (added.length > 0) expect(argv.indexOf('--cap-add')).toBeGreaterThan(at);
    },
  );

  it.each([
    ['docker', false],
    ['podman', true],
  ] as const)('asks %s for no healthcheck timer: %s', (engine, expected) => {
    // Reported: podman asks systemd for a timer unless told not to, and logs ERRO without one.
    expect(buildRunArgv({ ...base, engine }, 'create', false).includes('--no-healthcheck')).toBe(
      expected,
    );
  });

  it.each([
    ['ro', '/data', 'type=bind,source=/data,target=/t,readonly'],
    ['rw', '/data', 'type=bind,source=/data,target=/t'],
    ['ro', '~', 'type=bind,source=/home/u,target=/t,readonly'],
    ['ro', '~/a/../b/', 'type=bind,source=/home/u/b,target=/t,readonly'],
    ['rw', '/x//y/./z', 'type=bind,source=/x/y/z,target=/t'],
  ] as const)('bind mode %s of %s', (mode, host, expected) => {
    const argv = buildRunArgv(
      { ...base, configMounts: [{ host, target: '/t', mode, disabled: false }] },
      'run',
      false,
    );
    expect(argv).toContain(expected);
  });

  it('skips disabled mounts everywhere', () => {
    const off = { host: '/x', target: '/x', mode: 'rw' as const, disabled: true };
    const argv = buildRunArgv(
      { ...base, configMounts: [off], skillMounts: [off], extraBinds: [off] },
      'run',
      false,
    );
    expect(argv.filter((a) => a.startsWith('type=bind'))).toHaveLength(1);
  });

  it.each([
    [{ container: 3000, host: 0, interface: '127.0.0.1' }, '127.0.0.1:3000:3000'],
    [{ container: 3000, host: 3001, interface: '127.0.0.1' }, '127.0.0.1:3001:3000'],
    [{ container: 53, host: 5353, interface: '0.0.0.0' }, '0.0.0.0:5353:53'],
    [{ container: 80, host: 0, interface: '::1' }, '[::1]:80:80'],
  ])('port %o', (port, expected) => {
    const argv = buildRunArgv({ ...base, ports: [port] }, 'run', false);
    expect(argv.slice(argv.indexOf('-p'), argv.indexOf('-p') + 2)).toEqual(['-p', expected]);
  });

  it.each([
    { container: 0, host: 0, interface: '127.0.0.1' },
    { container: 70000, host: 0, interface: '127.0.0.1' },
    { container: 80, host: -1, interface: '127.0.0.1' },
    { container: 1.5, host: 0, interface: '127.0.0.1' },
  ])('rejects port %o', (port) => {
    expect(() => buildRunArgv({ ...base, ports: [port] }, 'run', false)).toThrow(RangeError);
  });

  it.each(['/a,b', '/a"b', '/a\nb', ''])(
    'refuses a mount path %j that --mount would mis-split',
    (bad) => {
      const run = (): string[] =>
        buildRunArgv(
          { ...base, configMounts: [{ host: '/ok', target: bad, mode: 'ro', disabled: false }] },
          'run',
          false,
        );
      expect(run).toThrow(ByreError);
      try {
        run();
      } catch (e) {
        expect((e as ByreError).rule).toBe('mount.unsafe-path');
      }
    },
  );

  it('refuses an unsafe workspace or volume name too', () => {
    expect(() => buildRunArgv({ ...base, workspaceDir: '/a,b' }, 'run', false)).toThrow(ByreError);
    expect(() =>
      buildRunArgv({ ...base, skillVolumes: [{ name: 'v,x', target: '/v' }] }, 'run', false),
    ).toThrow(ByreError);
  });

  it('emits the in-box ids, and byre.run and byre.launch only when set', () => {
    const labels = (p: RunParams): string[] => {
      const argv = buildRunArgv(p, 'run', false);
      return argv.filter((_, i) => argv[i - 1] === '--label');
    };
    expect(labels(base)).toEqual([
      'byre.project=app-1a2b3c',
      'byre.workdir=app-1a2b3c',
      'byre.client=4242',
      'byre.uid=1000',
      'byre.gid=1000',
    ]);
    expect(labels({ ...base, uid: 501, gid: 20, labels: { client: 1, launch: 'abc' } })).toEqual([
      'byre.project=app-1a2b3c',
      'byre.workdir=app-1a2b3c',
      'byre.client=1',
      'byre.uid=501',
      'byre.gid=20',
      'byre.launch=abc',
    ]);
    // A printed command (dockerrun) names no byre process: nothing for status to call orphaned.
    expect(labels({ ...base, labels: {} })).toEqual([
      'byre.project=app-1a2b3c',
      'byre.workdir=app-1a2b3c',
      'byre.uid=1000',
      'byre.gid=1000',
    ]);
    // The store label (adr/0015) comes after run_args too, so a raw one cannot claim another store.
    const stamped = buildRunArgv(
      {
        ...base,
        projectRunArgs: ['--label', 'byre.store=0000000000000000'],
        labels: { client: 1, store: 'ab'.repeat(8) },
      },
      'run',
      false,
    );
    expect(labels({ ...base, labels: { client: 1, store: 'ab'.repeat(8) } }).at(-1)).toBe(
      `byre.store=${'ab'.repeat(8)}`,
    );
    expect(stamped.lastIndexOf(`byre.store=${'ab'.repeat(8)}`)).toBeGreaterThan(
      stamped.indexOf('byre.store=0000000000000000'),
    );
  });

  it('emits none of the flags it leaves to skills and raw run_args', () => {
    const argv = buildRunArgv(base, 'run', true);
    for (const flag of ['--init', '--tmpfs', '--read-only', '--network', '--hostname', '-w']) {
      expect(argv).not.toContain(flag);
    }
  });
});

describe('runEnv', () => {
  it('lets delivered env beat skill env, sorted by key', () => {
    expect(
      runEnv({ ...base, skillEnv: { B: 'skill', A: 'skill' }, hostEnv: { B: 'host' } }),
    ).toEqual([
      ['A', 'skill'],
      ['B', 'host'],
      ['BYRE_GID', '1000'],
      ['BYRE_PROJECT', 'app-1a2b3c'],
      ['BYRE_UID', '1000'],
      ['BYRE_WORKTREE', 'app-1a2b3c'],
    ]);
  });

  it("re-asserts byre's own keys over skill and delivered env, BYRE_EGRESS last", () => {
    const env = new Map(
      runEnv({
        ...base,
        skillEnv: { BYRE_UID: '0', BYRE_EGRESS: 'evil:1' },
        hostEnv: { BYRE_PROJECT: 'other', BYRE_EGRESS: 'evil:2' },
        egress: 'good:443',
      }),
    );
    expect(env.get('BYRE_UID')).toBe('1000');
    expect(env.get('BYRE_PROJECT')).toBe('app-1a2b3c');
    expect(env.get('BYRE_EGRESS')).toBe('good:443');
  });

  it('passes BYRE_EGRESS only when set', () => {
    expect(new Map(runEnv(base)).has('BYRE_EGRESS')).toBe(false);
  });

  it('sets the bind proof over any skill or delivered value, and only when develop gives one', () => {
    const forged = {
      skillEnv: { BYRE_BIND_PROOF: '1:2:/x' },
      hostEnv: { BYRE_BIND_PROOF: '3:4:/y' },
    };
    expect(
      new Map(runEnv({ ...base, ...forged, bindProof: '5:6:/workspace' })).get('BYRE_BIND_PROOF'),
    ).toBe('5:6:/workspace');
    expect(new Map(runEnv(base)).has('BYRE_BIND_PROOF')).toBe(false);
    expect(buildRunArgv({ ...base, bindProof: '5:6:/workspace' }, 'create', false)).toContain(
      'BYRE_BIND_PROOF=5:6:/workspace',
    );
  });

  it.each(['', 'A=B', 'NUL\0'])('refuses env name %j', (key) => {
    expect(() => runEnv({ ...base, skillEnv: { [key]: 'v' } })).toThrow(ByreError);
  });

  it('keeps values verbatim, = and newlines included', () => {
    expect(new Map(runEnv({ ...base, hostEnv: { K: 'a=b\nc' } })).get('K')).toBe('a=b\nc');
  });
});

describe('hostBinds', () => {
  it('lists every bind as the engine gets it, in argv order, disabled ones left out', () => {
    expect(
      hostBinds({
        ...base,
        configMounts: [
          { host: '~/data/../d', target: '/d', mode: 'ro' },
          { host: '~/off', target: '/off', mode: 'rw', disabled: true },
        ],
        skillMounts: [{ host: '/var/run/docker.sock', target: '/var/run/docker.sock', mode: 'rw' }],
        extraBinds: [{ host: '/home/u/app/.git', target: '/home/u/app/.git', mode: 'rw' }],
      }),
    ).toEqual([
      { source: '/home/u/app', target: '/workspace', readonly: false, host: '/home/u/app' },
      { source: '/home/u/d', target: '/d', readonly: true, host: '~/data/../d' },
      {
        source: '/var/run/docker.sock',
        target: '/var/run/docker.sock',
        readonly: false,
        host: '/var/run/docker.sock',
      },
      {
        source: '/home/u/app/.git',
        target: '/home/u/app/.git',
        readonly: false,
        host: '/home/u/app/.git',
      },
    ]);
  });
});

describe('expandHost', () => {
  it.each([
    ['~', '/home/u'],
    ['~/', '/home/u'],
    ['~/x/y', '/home/u/x/y'],
    ['/a/b/../c', '/a/c'],
    ['/', '/'],
  ])('%s -> %s', (input, expected) => {
    expect(expandHost(input, '/home/u')).toBe(expected);
  });

  it.each(['relative', './x', '~other/x', ''])('refuses %j', (input) => {
    expect(() => expandHost(input, '/home/u')).toThrow(ByreError);
  });
});

describe('credential channel', () => {
  it.each([
    ['docker', 'uid=1000,gid=1000'],
    ['podman', 'U'],
  ] as const)('mounts the session tmpfs on %s, and passes no credential as -e', (engine, owner) => {
    const argv = buildRunArgv(
      { ...base, engine, configVolumes: [{ name: 'v', target: '/v' }], credentialKeys: ['API'] },
      'create',
      false,
    );
    const at = argv.indexOf('--tmpfs');
    expect(argv[at + 1]).toBe(
      `/run/byre/credentials:rw,nosuid,nodev,noexec,size=4m,mode=0700,${owner}`,
    );
    // After the volumes, before raw run_args and labels.
    expect(at).toBeGreaterThan(argv.indexOf('type=volume,source=v,target=/v'));
    expect(argv.filter((a) => a.startsWith('API'))).toEqual([]);
  });

  it('adds nothing without credential keys', () => {
    expect(buildRunArgv({ ...base, credentialKeys: [] }, 'create', false)).not.toContain('--tmpfs');
  });

  it('an injecting box: its names point at the edge, its keys are named for the launcher, and nothing is delivered', () => {
    const argv = buildRunArgv(
      {
        ...base,
        edgeHosts: ['api.a.test:127.31.0.1', 'api.b.test:127.31.0.1'],
        edgeKeys: ['GH', 'OPENAI_API_KEY'],
      },
      'create',
      false,
    );
    expect(argv.filter((a, i) => argv[i - 1] === '--add-host')).toEqual([
      'api.a.test:127.31.0.1',
      'api.b.test:127.31.0.1',
    ]);
    // Names only (adr/0084): the launcher sets each to the sentinel once its edge gate opened.
    expect(argv.filter((a, i) => argv[i - 1] === '-e' && a.startsWith('BYRE_EDGE_'))).toEqual([
      'BYRE_EDGE_SENTINELS=GH,OPENAI_API_KEY',
    ]);
    expect(argv.filter((a) => a.includes('sentinel'))).toEqual([]);
    // No session tmpfs: nothing travels over the credential channel.
    expect(argv).not.toContain('--tmpfs');
    const plain = buildRunArgv({ ...base, edgeHosts: [], edgeKeys: [] }, 'create', false);
    expect(plain).not.toContain('--add-host');
    expect(plain.filter((a) => a.startsWith('BYRE_EDGE_'))).toEqual([]);
  });

  it('a skill cannot rename the injected keys: BYRE_EDGE_SENTINELS is set after skill and delivered env', () => {
    const env = runEnv({
      ...base,
      skillEnv: { BYRE_EDGE_SENTINELS: 'PATH' },
      hostEnv: { BYRE_EDGE_SENTINELS: 'HOME' },
      edgeKeys: ['GH'],
    });
    expect(env.filter(([k]) => k === 'BYRE_EDGE_SENTINELS')).toEqual([
      ['BYRE_EDGE_SENTINELS', 'GH'],
    ]);
  });

  describe('a box that joins its edge (adr/0079)', () => {
    const injecting: RunParams = {
      ...base,
      edgeHosts: ['api.a.test:127.31.0.1'],
      ports: [{ container: 80, host: 8080, interface: '127.0.0.1' }],
      edgeHelper: 'byre-edge-0123456789abcdef',
    };

    it("names the edge's network and carries neither host entries nor ports, which the edge owns", () => {
      const argv = buildRunArgv(injecting, 'create', false);
      expect(argv.slice(argv.indexOf('--network'), argv.indexOf('--network') + 2)).toEqual([
        '--network',
        'container:byre-edge-0123456789abcdef',
      ]);
      expect(argv).not.toContain('--add-host');
      expect(argv).not.toContain('-p');
      expect(edgeNetworkFlags(injecting)).toEqual([
        '--add-host',
        'api.a.test:127.31.0.1',
        '-p',
        '127.0.0.1:8080:80',
      ]);
      // Without an edge the box carries them itself, the same flags.
      const alone: RunParams = { ...injecting };
      delete alone.edgeHelper;
      const own = buildRunArgv(alone, 'create', false);
      expect(own).not.toContain('--network');
      for (const flag of edgeNetworkFlags(injecting)) expect(own).toContain(flag);
    });

    it("under keep-id joins the edge's user namespace, which holds the mapping", () => {
      const rootless: RunParams = { ...injecting, engine: 'podman', keepId: true };
      const argv = buildRunArgv(rootless, 'create', false);
      expect(argv).toContain('--userns=container:byre-edge-0123456789abcdef');
      expect(argv.filter((a) => a.startsWith('--userns'))).toHaveLength(1);
      expect(edgeNetworkFlags(rootless).at(-1)).toBe('--userns=keep-id:uid=1000,gid=1000');
      expect(edgeNetworkFlags({ ...rootless, keepId: false })).not.toContain(
        '--userns=keep-id:uid=1000,gid=1000',
      );
    });
  });
});
