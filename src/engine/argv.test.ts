import { describe, expect, it } from 'vitest';

import {
  buildArgv,
  DROP_PRIVILEGES,
  execArgv,
  helperUsernsArgs,
  rootShellHelperArgv,
  imageIdArgv,
  imageLabelsArgv,
  inspectContainersArgv,
  inspectEnvArgv,
  inspectLabelsArgv,
  logsArgv,
  networkModeArgv,
  psArgv,
  psLabelsArgv,
  removeArgv,
  removeImageArgv,
  rootlessProbeArgv,
  startAttachedArgv,
  stopArgv,
  versionArgv,
  volumeCreateArgv,
  volumeListArgv,
  volumeRemoveArgv,
} from './argv.js';
import {
  bakedIds,
  containerName,
  helperName,
  imageTag,
  machineVolumeName,
  volumeEngineName,
  worktreeAddHelperName,
} from '../gen/names.js';
import type { BuildSpec } from './types.js';

const spec: BuildSpec = {
  tag: 'byre-app-1a2b3c-u501-g20',
  contextDir: '/tmp/ctx',
  noCache: false,
  uid: 501,
  gid: 20,
};

describe('buildArgv', () => {
  it.each([
    [
      'docker, cached',
      'docker',
      spec,
      [
        'build',
        '-t',
        'byre-app-1a2b3c-u501-g20',
        '-f',
        '/tmp/ctx/Dockerfile.generated',
        '--force-rm',
        '--build-arg',
        'BYRE_UID=501',
        '--build-arg',
        'BYRE_GID=20',
        '/tmp/ctx',
      ],
    ],
    [
      'docker, --no-cache',
      'docker',
      { ...spec, noCache: true },
      [
        'build',
        '-t',
        'byre-app-1a2b3c-u501-g20',
        '-f',
        '/tmp/ctx/Dockerfile.generated',
        '--no-cache',
        '--force-rm',
        '--build-arg',
        'BYRE_UID=501',
        '--build-arg',
        'BYRE_GID=20',
        '/tmp/ctx',
      ],
    ],
    [
      'podman keeps HEALTHCHECK with --format docker',
      'podman',
      { ...spec, noCache: true, uid: 1000, gid: 1000 },
      [
        'build',
        '-t',
        'byre-app-1a2b3c-u501-g20',
        '-f',
        '/tmp/ctx/Dockerfile.generated',
        '--no-cache',
        '--force-rm',
        '--format',
        'docker',
        '--build-arg',
        'BYRE_UID=1000',
        '--build-arg',
        'BYRE_GID=1000',
        '/tmp/ctx',
      ],
    ],
    [
      'labels already in the Dockerfile: no --label flags (adr/0069)',
      'podman',
      {
        ...spec,
        dockerfile: '/tmp/ctx/Dockerfile.labelled',
        labels: { 'byre.project': 'p' },
        labelsInDockerfile: true,
      },
      [
        'build',
        '-t',
        'byre-app-1a2b3c-u501-g20',
        '-f',
        '/tmp/ctx/Dockerfile.labelled',
        '--force-rm',
        '--format',
        'docker',
        '--build-arg',
        'BYRE_UID=501',
        '--build-arg',
        'BYRE_GID=20',
        '/tmp/ctx',
      ],
    ],
    [
      'extra build args and labels, sorted; BYRE_UID/GID cannot be overridden',
      'docker',
      {
        ...spec,
        dockerfile: '/tmp/other/Dockerfile',
        buildArgs: { ZED: '1', ALPHA: 'a b', BYRE_UID: '0' },
        labels: { 'byre.test': '1', 'a.b': 'c=d' },
      },
      [
        'build',
        '-t',
        'byre-app-1a2b3c-u501-g20',
        '-f',
        '/tmp/other/Dockerfile',
        '--force-rm',
        '--build-arg',
        'BYRE_UID=501',
        '--build-arg',
        'BYRE_GID=20',
        '--build-arg',
        'ALPHA=a b',
        '--build-arg',
        'ZED=1',
        '--label',
        'a.b=c=d',
        '--label',
        'byre.test=1',
        '/tmp/ctx',
      ],
    ],
  ] as const)('%s', (_label, engine, s, expected) => {
    expect(buildArgv(engine, s)).toEqual(expected);
  });
});

/** A volume helper: no network, only the capabilities a root copy and chown take (adr/0050), root's sh. */
const VOLUME_HELPER_LOCKDOWN = [
  '--network',
  'none',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
  '--cap-add',
  'CHOWN',
  '--cap-add',
  'DAC_OVERRIDE',
  '--cap-add',
  'FOWNER',
  '--cap-add',
  'FSETID',
  '--entrypoint',
  'sh',
  '-u',
  '0:0',
];

describe('query argv', () => {
  it.each([
    ['version', versionArgv(), ['--version']],
    [
      'docker rootless probe',
      rootlessProbeArgv('docker'),
      ['info', '--format', '{{json .SecurityOptions}}'],
    ],
    [
      'podman rootless probe',
      rootlessProbeArgv('podman'),
      ['info', '--format', '{{.Host.Security.Rootless}}'],
    ],
    [
      "doctor's podman probe, through the runtime",
      rootlessProbeArgv('podman', true),
      ['info', '--format', '{{.Host.Security.Rootless}}{{with .Host.OCIRuntime.Name}}{{end}}'],
    ],
    [
      "doctor's docker probe",
      rootlessProbeArgv('docker', true),
      ['info', '--format', '{{json .SecurityOptions}}'],
    ],
    ['image id', imageIdArgv('t'), ['image', 'inspect', '-f', '{{.Id}}', 't']],
    [
      'image labels',
      imageLabelsArgv('t'),
      ['image', 'inspect', '-f', '{{json .Config.Labels}}', 't'],
    ],
    ['image rm', removeImageArgv('t'), ['image', 'rm', 't']],
    [
      'start attached',
      startAttachedArgv('byre-x'),
      ['start', '--attach', '--interactive', 'byre-x'],
    ],
    ['ps running', psArgv({ labels: {}, all: false }), ['ps', '-q', '--no-trunc']],
    [
      'ps running boxes mounting a volume',
      psArgv({ labels: {}, hasLabels: ['byre.project'], all: false, volume: 'byre-machine-u0-v' }),
      [
        'ps',
        '-q',
        '--no-trunc',
        '--filter',
        'label=byre.project',
        '--filter',
        'volume=byre-machine-u0-v',
      ],
    ],
    [
      'ps all by labels, sorted',
      psArgv({ labels: { 'byre.workdir': 'w', 'byre.project': 'p' }, all: true }),
      [
        'ps',
        '-q',
        '--no-trunc',
        '-a',
        '--filter',
        'label=byre.project=p',
        '--filter',
        'label=byre.workdir=w',
      ],
    ],
    [
      'ps with labels, docker',
      psLabelsArgv('docker', { labels: {}, hasLabels: ['byre.project'], all: false }, [
        'byre.project',
        'byre.uid',
      ]),
      [
        'ps',
        '--no-trunc',
        '--filter',
        'label=byre.project',
        '--format',
        '[{{json .ID}},{{json (.Label "byre.project")}},{{json (.Label "byre.uid")}}]',
      ],
    ],
    [
      'ps with labels, podman',
      psLabelsArgv('podman', { labels: {}, all: true }, ['byre.workdir']),
      [
        'ps',
        '--no-trunc',
        '-a',
        '--format',
        '[{{json .ID}},{{json (index .Labels "byre.workdir")}}]',
      ],
    ],
    [
      'container facts',
      inspectContainersArgv(['a', 'b']),
      [
        'container',
        'inspect',
        '-f',
        '[{{json .ID}},{{json .State.Running}},{{json .Config.Labels}},{{json .Config.Env}}]',
        'a',
        'b',
      ],
    ],
    ['labels', inspectLabelsArgv('c'), ['inspect', '-f', '{{json .Config.Labels}}', 'c']],
    ['env', inspectEnvArgv('c'), ['inspect', '-f', '{{json .Config.Env}}', 'c']],
    ['network mode', networkModeArgv('c'), ['inspect', '-f', '{{.HostConfig.NetworkMode}}', 'c']],
    ['logs', logsArgv('c'), ['logs', 'c']],
    ['logs, the tail', logsArgv('c', 5000), ['logs', '--tail', '5000', 'c']],
    ['stop', stopArgv('c', 2), ['stop', '-t', '2', 'c']],
    ['rm', removeArgv('c'), ['rm', '-f', 'c']],
    ['volume create', volumeCreateArgv('v', {}), ['volume', 'create', 'v']],
    [
      'volume create labelled',
      volumeCreateArgv('v', { z: '1', 'byre.project': 'p' }),
      ['volume', 'create', '--label', 'byre.project=p', '--label', 'z=1', 'v'],
    ],
    ['volume rm (no -f)', volumeRemoveArgv('v'), ['volume', 'rm', 'v']],
    ['volume ls', volumeListArgv({}), ['volume', 'ls', '-q']],
    [
      'volume ls filtered',
      volumeListArgv({ name: 'byre-x', labels: { 'byre.test': '1' } }),
      ['volume', 'ls', '-q', '--filter', 'name=byre-x', '--filter', 'label=byre.test=1'],
    ],
    ['exec bare', execArgv({ id: 'c', command: ['ls', '-la'] }, false), ['exec', 'c', 'ls', '-la']],
    [
      'exec full',
      execArgv(
        { id: 'c', command: ['sh'], user: '0:0', workdir: '/w', env: { B: '2', A: '1' } },
        true,
      ),
      ['exec', '-i', '-u', '0:0', '-w', '/w', '-e', 'A=1', '-e', 'B=2', 'c', 'sh'],
    ],
    [
      'exec interactive',
      execArgv({ id: 'c', command: ['sh'], interactive: true }, false),
      ['exec', '-i', 'c', 'sh'],
    ],
    [
      'every capability dropped, no new privileges: docker 20.10 and podman 4.3 spell it so',
      [...DROP_PRIVILEGES],
      ['--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'],
    ],
    ['helper userns under keep-id', helperUsernsArgs(true), ['--userns=keep-id:uid=1000,gid=1000']],
    ['helper userns rootful', helperUsernsArgs(false), []],
    [
      'root sh helper head',
      rootShellHelperArgv(false),
      ['run', '--rm', '--pull=never', ...VOLUME_HELPER_LOCKDOWN],
    ],
    [
      'root sh helper head, stdin open, keep-id',
      rootShellHelperArgv(true, true),
      [
        'run',
        '--rm',
        '--pull=never',
        '-i',
        ...VOLUME_HELPER_LOCKDOWN,
        '--userns=keep-id:uid=1000,gid=1000',
      ],
    ],
  ])('%s', (_label, actual, expected) => {
    expect(actual).toEqual(expected);
  });

  it.each([-1, 1.5, Number.NaN])('refuses stop grace %d', (s) => {
    expect(() => stopArgv('c', s)).toThrow(RangeError);
  });
});

describe('names', () => {
  it.each([
    ['image tag', imageTag('x-1a2b3c', 501, 20), 'byre-x-1a2b3c-u501-g20'],
    ['container', containerName('x-1a2b3c'), 'byre-x-1a2b3c'],
    [
      'project volume',
      volumeEngineName('x-1a2b3c', 501, {
        name: '.claude',
        role: 'state',
        target: '/home/dev/.claude',
        scope: 'project',
        sharing: 'shared',
      }),
      'byre-x-1a2b3c-.claude',
    ],
    ['machine volume', machineVolumeName(501, 'npm'), 'byre-machine-u501-npm'],
    ['netns helper', helperName('netns', '0123456789abcdef'), 'byre-netns-0123456789abcdef'],
    [
      'sockprobe helper',
      helperName('sockprobe', 'ffffffffffffffff'),
      'byre-sockprobe-ffffffffffffffff',
    ],
    ['worktree helper', worktreeAddHelperName('x-1a2b3c-wt'), 'byre-wtadd-x-1a2b3c-wt'],
  ])('%s', (_label, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it.each(['0123', 'ABCDEF0123456789', '0123456789abcdefg'])('refuses helper suffix %j', (hex) => {
    expect(() => helperName('netns', hex)).toThrow(RangeError);
  });

  it('bakes 1000:1000 under keep-id and the host ids otherwise', () => {
    expect(bakedIds(true, 501, 20)).toEqual({ uid: 1000, gid: 1000 });
    expect(bakedIds(false, 501, 20)).toEqual({ uid: 501, gid: 20 });
  });
});

describe('psLabelsArgv', () => {
  it('refuses a key that could break out of the template', () => {
    expect(() => psLabelsArgv('docker', { labels: {}, all: false }, ['x") }}{{ .ID'])).toThrow(
      RangeError,
    );
  });
});
