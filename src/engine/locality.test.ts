import { describe, expect, it } from 'vitest';
import { engineElsewhere } from './locality.js';

type LocalityFacts = Parameters<typeof engineElsewhere>[0];

const local: LocalityFacts = {
  platform: 'linux',
  engine: 'docker',
  client: 'docker',
  env: {},
  dockerContext: null,
};

describe('engineElsewhere', () => {
  it.each<[string, Partial<LocalityFacts>, string | null]>([
    ['docker on this kernel', {}, null],
    ['podman on this kernel', { engine: 'podman', client: 'podman' }, null],
    [
      'a local unix DOCKER_HOST',
      { env: { DOCKER_HOST: 'unix:///run/user/1000/docker.sock' } },
      null,
    ],
    ['a loopback tcp DOCKER_HOST', { env: { DOCKER_HOST: 'tcp://127.0.0.1:2375' } }, null],
    ['localhost over tcp', { env: { DOCKER_HOST: 'tcp://localhost:2376' } }, null],
    ['IPv6 loopback over tcp', { env: { DOCKER_HOST: 'tcp://[::1]:2375' } }, null],
    [
      'a remote tcp DOCKER_HOST',
      { env: { DOCKER_HOST: 'tcp://10.0.0.5:2376' } },
      "DOCKER_HOST names tcp://…, another machine's engine",
    ],
    [
      'an ssh DOCKER_HOST',
      { env: { DOCKER_HOST: 'ssh://me@localhost' } },
      "DOCKER_HOST names ssh://…, another machine's engine",
    ],
    [
      'a DOCKER_HOST with no scheme',
      { env: { DOCKER_HOST: 'somewhere:2375' } },
      "DOCKER_HOST is not a local socket, another machine's engine",
    ],
    [
      "Docker Desktop's socket",
      { env: { DOCKER_HOST: 'unix:///home/u/.docker/desktop/docker.sock' } },
      "DOCKER_HOST is Docker Desktop's socket, and its engine runs in a VM",
    ],
    [
      'a named context on a local socket',
      { dockerContext: { name: 'rootless', host: 'unix:///run/user/1000/docker.sock' } },
      null,
    ],
    [
      'a named context over ssh',
      { dockerContext: { name: 'prod', host: 'ssh://me@prod' } },
      'the docker context "prod" names ssh://…, another machine\'s engine',
    ],
    [
      "Docker Desktop's context",
      {
        dockerContext: {
          name: 'desktop-linux',
          host: 'unix:///home/u/.docker/desktop/docker.sock',
        },
      },
      'the docker context "desktop-linux" is Docker Desktop\'s socket, and its engine runs in a VM',
    ],
    [
      'a context byre could not read (the proof runs, failing closed)',
      { dockerContext: { name: 'x', host: null } },
      null,
    ],
    [
      'DOCKER_HOST beats the context',
      {
        env: { DOCKER_HOST: 'unix:///var/run/docker.sock' },
        dockerContext: { name: 'prod', host: 'ssh://prod' },
      },
      null,
    ],
    ['macOS', { platform: 'darwin' }, 'byre runs on darwin, where the engine runs in a VM'],
    ['Windows', { platform: 'win32' }, 'byre runs on win32, where the engine runs in a VM'],
    [
      'podman-remote',
      { engine: 'podman', client: 'podman-remote' },
      'the podman client is podman-remote',
    ],
    [
      'a podman service over ssh',
      {
        engine: 'podman',
        client: 'podman',
        env: { CONTAINER_HOST: 'ssh://core@vm:22/run/podman.sock' },
      },
      "CONTAINER_HOST names ssh://…, another machine's engine",
    ],
    [
      'a local podman socket',
      {
        engine: 'podman',
        client: 'podman',
        env: { CONTAINER_HOST: 'unix:///run/podman/podman.sock' },
      },
      null,
    ],
    [
      'a podman connection',
      { engine: 'podman', client: 'podman', env: { CONTAINER_CONNECTION: 'machine' } },
      'CONTAINER_CONNECTION names a podman connection (another machine or a VM)',
    ],
    [
      'DOCKER_HOST does not steer podman',
      { engine: 'podman', client: 'podman', env: { DOCKER_HOST: 'ssh://x' } },
      null,
    ],
    ['the user says so', { env: { BYRE_REMOTE_ENGINE: '1' } }, 'BYRE_REMOTE_ENGINE is set'],
  ])('%s', (_what, facts, why) => {
    expect(engineElsewhere({ ...local, ...facts })).toBe(why);
  });
});
