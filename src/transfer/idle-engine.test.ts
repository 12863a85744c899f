import { describe, expect, it } from 'vitest';

import { podmanProvablyIdle, type PodmanActivityFacts } from './idle-engine.js';

const idle: PodmanActivityFacts = {
  platform: 'linux',
  env: { HOME: '/home/u' },
  clientPath: '/usr/bin/podman',
  processNames: ['systemd\n', 'bash\n', 'dockerd\n'],
  containersConf: ['[engine]\n#remote = false\ncgroup_manager = "systemd"\n'],
};

describe('podmanProvablyIdle', () => {
  it('is idle on a local Linux podman with no conmon process', () => {
    expect(podmanProvablyIdle(idle)).toBe(true);
  });

  it.each<[string, Partial<PodmanActivityFacts>]>([
    ['a conmon process is visible', { processNames: ['bash\n', 'conmon\n'] }],
    ['/proc could not be read', { processNames: null }],
    ['/proc listed nothing', { processNames: [] }],
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

  it('ignores empty remote variables and other processes named like conmon', () => {
    expect(podmanProvablyIdle({ ...idle, env: { CONTAINER_HOST: '' } })).toBe(true);
    expect(podmanProvablyIdle({ ...idle, processNames: ['conmon-rs\n', 'xconmon\n'] })).toBe(true);
  });
});
