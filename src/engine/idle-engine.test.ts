import { describe, expect, it } from 'vitest';

import {
  podmanCensus,
  podmanIsLocal,
  podmanProvablyIdle,
  processNameState,
  type ProcessView,
} from './idle-engine.js';

/** A `/proc/<pid>/stat` line as the kernel writes it (fields after the state trimmed). */
const stat = (name: string, state = 'S', pid = 42): string =>
  `${pid} (${name}) ${state} 1 42 42 0\n`;

type PodmanActivityFacts = Parameters<typeof podmanProvablyIdle>[0];

/** The census of a trusted client: the monitors `uid` runs, by the process views. */
const monitoredIds = (views: readonly ProcessView[], uid: number): string[] | null =>
  podmanCensus({ clientTrusted: true, uid, views });

const idle: PodmanActivityFacts = {
  platform: 'linux',
  env: { HOME: '/home/u' },
  clientPath: '/usr/bin/podman',
  processStats: [stat('systemd'), stat('bash'), stat('dockerd')],
  containersConf: ['[engine]\n#remote = false\ncgroup_manager = "systemd"\n'],
};

describe('podmanProvablyIdle', () => {
  it('is idle on a local Linux podman with no conmon process', () => {
    expect(podmanProvablyIdle(idle)).toBe(true);
  });

  it.each<[string, Partial<PodmanActivityFacts>]>([
    ['a conmon process is visible', { processStats: [stat('bash'), stat('conmon')] }],
    ['a conmon process is running', { processStats: [stat('conmon', 'R')] }],
    ['a conmon process is in disk sleep', { processStats: [stat('conmon', 'D')] }],
    ['a conmon process is stopped', { processStats: [stat('conmon', 'T')] }],
    [
      'a live conmon sits beside an exited one',
      { processStats: [stat('conmon', 'Z'), stat('conmon')] },
    ],
    ['a stat line does not parse', { processStats: [stat('bash'), 'garbage\n'] }],
    ['a stat line has no state', { processStats: ['42 (bash)\n'] }],
    ['/proc could not be read', { processStats: null }],
    ['/proc listed nothing', { processStats: [] }],
    ['not Linux (podman runs in a machine)', { platform: 'darwin' }],
    ['CONTAINER_HOST is set', { env: { CONTAINER_HOST: 'unix:///run/podman.sock' } }],
    ['CONTAINER_CONNECTION is set', { env: { CONTAINER_CONNECTION: 'vm' } }],
    ['CONTAINERS_CONF names another file', { env: { CONTAINERS_CONF: '/x.conf' } }],
    ['CONTAINERS_CONF_OVERRIDE is set', { env: { CONTAINERS_CONF_OVERRIDE: '/x.conf' } }],
    ['a containers.conf sets remote', { containersConf: ['[engine]\nremote = true\n'] }],
    ['a drop-in sets remote, even false', { containersConf: ['', '  remote=false\n'] }],
    [
      'a containers.conf names its own monitor (conmon_path)',
      { containersConf: ['[engine]\nconmon_path = ["/opt/mon/monitor"]\n'] },
    ],
    ['a containers.conf could not be read', { containersConf: null }],
    ['the client is podman-remote', { clientPath: '/usr/bin/podman-remote' }],
    ['the client path is unknown', { clientPath: null }],
  ])('asks podman when %s', (_why, change) => {
    expect(podmanProvablyIdle({ ...idle, ...change })).toBe(false);
  });

  it.each<[string, Partial<PodmanActivityFacts>]>([
    ['a remote variable is empty', { env: { CONTAINER_HOST: '' } }],
    [
      'other processes are named like conmon',
      { processStats: [stat('conmon-rs'), stat('xconmon'), stat('conmon) R (x')] },
    ],
    [
      'the only conmon has exited (a zombie)',
      { processStats: [stat('bash'), stat('conmon', 'Z')] },
    ],
    ['the only conmon is dead', { processStats: [stat('conmon', 'X'), stat('conmon', 'x')] }],
  ])('is idle when %s', (_why, change) => {
    expect(podmanProvablyIdle({ ...idle, ...change })).toBe(true);
  });
});

describe('processNameState', () => {
  it.each<[string, { name: string; state: string } | null]>([
    ['1 (systemd) S 0 1 1 0', { name: 'systemd', state: 'S' }],
    ['77 (conmon) Z 1 77 77 0', { name: 'conmon', state: 'Z' }],
    ['9 (a b) R 1', { name: 'a b', state: 'R' }],
    ['9 (x) S (y) R 1', { name: 'x) S (y', state: 'R' }],
    ['9 () S 1', { name: '', state: 'S' }],
    ['9 conmon S 1', null],
    ['9 (conmon)S 1', null],
    ['9 (conmon) 1 2', null],
    ['9 (conmon', null],
    ['', null],
  ])('reads %j', (line, want) => {
    expect(processNameState(line)).toEqual(want);
  });
});

describe('podmanIsLocal and monitoredIds', () => {
  it('holds for a local Linux podman whatever runs, and not for a remote one', () => {
    expect(podmanIsLocal(idle)).toBe(true);
    expect(podmanIsLocal({ ...idle, env: { CONTAINER_HOST: 'unix:///x' } })).toBe(false);
    expect(podmanIsLocal({ ...idle, containersConf: ['conmon_path = ["/opt/m"]\n'] })).toBe(false);
    expect(podmanIsLocal({ ...idle, containersConf: null })).toBe(false);
  });

  const id = (c: string): string => c.repeat(64);
  const monitor = (cid: string, owner = 1000, state = 'S'): ProcessView => ({
    stat: stat('conmon', state),
    owner,
    argv: ['/usr/bin/conmon', '--api-version', '1', '-c', cid, '-u', cid, '-n', 'byre-p', ''],
  });

  it("lists each container this user's live monitors watch, once, sorted", () => {
    const views = [
      monitor(id('b')),
      monitor(id('a')),
      // An exec's monitor names the same container.
      { ...monitor(id('b')), argv: ['/usr/bin/conmon', '-c', id('b'), '-e', '--exec-attach'] },
    ];
    expect(monitoredIds(views, 1000)).toEqual([id('a'), id('b')]);
  });

  it("skips exited monitors, other users' monitors, and processes that are not monitors", () => {
    const views = [
      monitor(id('a'), 1000, 'Z'),
      monitor(id('b'), 0),
      { stat: stat('bash'), owner: 1000, argv: ['bash', '-c', id('c')] },
      // Every podman client runs `conmon --version` first.
      { stat: stat('conmon', 'R'), owner: 1000, argv: ['/usr/bin/conmon', '--version', ''] },
      // A monitor on its way out has no argv left.
      { stat: stat('conmon', 'R'), owner: 1000, argv: [''] },
    ];
    expect(monitoredIds(views, 1000)).toEqual([]);
  });

  // A version probe and an exiting monitor watch nothing; an argv read as neither gives up.
  it.each<[string, string[], string[] | null]>([
    ['-c', ['conmon', '-c', id('a'), '-u', id('b'), ''], [id('a')]],
    ['--cid', ['conmon', '--cid', id('a'), ''], [id('a')]],
    ['--cid=', ['conmon', '--cid=' + id('a'), ''], [id('a')]],
    ['the version probe', ['/usr/libexec/podman/conmon', '--version', ''], []],
    ['an empty argv', [''], []],
    ['a zeroed argv', ['', '', ''], []],
    ['a bad id', ['conmon', '-c', 'x', ''], null],
    ['no id', ['conmon', '-n', 'name', ''], null],
  ])('reads a monitor argv with %s', (_what, argv, said) => {
    expect(monitoredIds([{ ...monitor(id('a')), argv }], 1000)).toEqual(said);
  });

  it.each<[string, ProcessView]>([
    ['its argv could not be read', { ...monitor(id('a')), argv: null }],
    ['it has no -c', { ...monitor(id('a')), argv: ['/usr/bin/conmon', '-n', 'byre-p', ''] }],
    [
      'it is a version probe with more words',
      { ...monitor(id('a')), argv: ['conmon', '--version', '-c'] },
    ],
    ['its -c is not a full id', monitor('abc123')],
    ['-c is its last word', { ...monitor(id('a')), argv: ['conmon', '-c'] }],
    ['its stat line does not parse', { stat: 'garbage', owner: 1000, argv: ['sh'] }],
  ])('gives up (podman must be asked) when a monitor of this user: %s', (_why, view) => {
    expect(monitoredIds([monitor(id('a')), view], 1000)).toBeNull();
  });
});

describe('podmanCensus', () => {
  const cid = 'c'.repeat(64);
  const views: ProcessView[] = [
    { stat: stat('conmon'), owner: 1000, argv: ['conmon', '-c', cid, ''] },
    { stat: stat('conmon'), owner: 0, argv: ['conmon', '-c', 'd'.repeat(64), ''] },
  ];

  it("lists the caller's monitors when the client is the real podman binary", () => {
    expect(podmanCensus({ clientTrusted: true, uid: 1000, views })).toEqual([cid]);
  });

  it('vouches for nothing when the client is not a system executable (it may run podman as another user)', () => {
    expect(podmanCensus({ clientTrusted: false, uid: 1000, views })).toBeNull();
  });

  it('gives up when the owner of a monitor could not be read', () => {
    const unknown = { stat: stat('conmon'), owner: null, argv: ['conmon', '-c', cid, ''] };
    expect(podmanCensus({ clientTrusted: true, uid: 1000, views: [...views, unknown] })).toBeNull();
  });
});
