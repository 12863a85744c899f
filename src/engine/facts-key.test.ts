import { describe, expect, it } from 'vitest';

import {
  decodeEntry,
  dockerConfigFile,
  dockerEndpoint,
  encodeEntry,
  engineEnv,
  probeKey,
  validAnswer,
  type DockerConfigText,
  type FileId,
} from './facts-key.js';

type KeyParts = Parameters<typeof probeKey>[0];

/** Docker's documented default daemon socket. */
const DOCKER_DEFAULT_SOCKET = '/var/run/docker.sock';

const missing: DockerConfigText = { kind: 'missing' };
const config = (text: string): DockerConfigText => ({ kind: 'ok', text });
const unix = (path: string) => ({ kind: 'unix', path });
const unkeyed = { kind: 'unkeyed' };

describe('dockerEndpoint', () => {
  it.each<[string, Record<string, string>, DockerConfigText, object]>([
    ['nothing set: the default socket', {}, missing, unix(DOCKER_DEFAULT_SOCKET)],
    [
      'a unix DOCKER_HOST',
      { DOCKER_HOST: 'unix:///run/user/1000/docker.sock' },
      missing,
      unix('/run/user/1000/docker.sock'),
    ],
    [
      'DOCKER_HOST wins over a context',
      { DOCKER_HOST: 'unix:///x.sock', DOCKER_CONTEXT: 'remote' },
      missing,
      unix('/x.sock'),
    ],
    ['a tcp DOCKER_HOST', { DOCKER_HOST: 'tcp://10.0.0.1:2376' }, missing, unkeyed],
    ['an ssh DOCKER_HOST', { DOCKER_HOST: 'ssh://me@box' }, missing, unkeyed],
    ['a relative unix DOCKER_HOST', { DOCKER_HOST: 'unix://docker.sock' }, missing, unkeyed],
    ['a named DOCKER_CONTEXT', { DOCKER_CONTEXT: 'rootless' }, missing, unkeyed],
    [
      'DOCKER_CONTEXT=default',
      { DOCKER_CONTEXT: 'default' },
      config('{"currentContext":"x"}'),
      unix(DOCKER_DEFAULT_SOCKET),
    ],
    ['config without a context', {}, config('{"auths":{}}'), unix(DOCKER_DEFAULT_SOCKET)],
    [
      'config on the default context',
      {},
      config('{"currentContext":"default"}'),
      unix(DOCKER_DEFAULT_SOCKET),
    ],
    ['config on a named context', {}, config('{"currentContext":"colima"}'), unkeyed],
    ['config with a non-string context', {}, config('{"currentContext":3}'), unkeyed],
    ['config that is not JSON', {}, config('{'), unkeyed],
    ['config that is an array', {}, config('[]'), unkeyed],
    ['config unreadable (a FIFO, too large…)', {}, { kind: 'unreadable' }, unkeyed],
  ])('%s', (_what, env, cfg, want) => {
    expect(dockerEndpoint(env, cfg)).toMatchObject(want);
  });
});

describe('dockerConfigFile', () => {
  it.each<[Record<string, string>, string | null]>([
    [{ HOME: '/home/u' }, '/home/u/.docker/config.json'],
    [{ HOME: '/home/u/', DOCKER_CONFIG: '/etc/dk/' }, '/etc/dk/config.json'],
    [{}, null],
    [{ HOME: '' }, null],
  ])('%j -> %s', (env, want) => {
    expect(dockerConfigFile(env)).toBe(want);
  });
});

describe('engineEnv', () => {
  it('keeps the docker/podman client variables and the homes, verbatim and sorted', () => {
    expect(
      engineEnv({
        PATH: '/bin',
        DOCKER_HOST: 'unix:///a',
        CONTAINER_HOST: 'unix:///b',
        CONTAINERS_CONF: '/c',
        HOME: '/h',
        XDG_RUNTIME_DIR: '/run/user/1',
        TERM: 'x',
        UNSET: undefined,
      }),
    ).toEqual({
      CONTAINERS_CONF: '/c',
      CONTAINER_HOST: 'unix:///b',
      DOCKER_HOST: 'unix:///a',
      HOME: '/h',
      XDG_RUNTIME_DIR: '/run/user/1',
    });
  });
});

const id: FileId = { dev: '1', ino: '2', size: '3', mtimeNs: '4', ctimeNs: '5', birthtimeNs: '6' };
const base: KeyParts = {
  probe: 'docker-info',
  uid: 0,
  engine: { path: '/usr/bin/docker', id },
  socket: { path: '/var/run/docker.sock', id },
  env: { HOME: '/root' },
};

describe('probeKey', () => {
  it('is a sha256 that any single change in its parts moves', () => {
    const key = probeKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(probeKey({ ...base })).toBe(key);
    const variants: KeyParts[] = [
      { ...base, probe: 'podman-version' },
      { ...base, uid: 1000 },
      { ...base, engine: { path: '/usr/local/bin/docker', id } },
      ...(Object.keys(id) as (keyof FileId)[]).flatMap((k) => [
        { ...base, engine: { path: '/usr/bin/docker', id: { ...id, [k]: '9' } } },
        { ...base, socket: { path: '/var/run/docker.sock', id: { ...id, [k]: '9' } } },
      ]),
      { ...base, socket: { path: '/run/docker.sock', id } },
      { probe: base.probe, uid: base.uid, engine: base.engine, env: { HOME: '/root' } },
      { ...base, env: { HOME: '/root', DOCKER_CONFIG: '/x' } },
      { ...base, env: { HOME: '/home' } },
      {
        probe: base.probe,
        uid: base.uid,
        engine: base.engine,
        socket: { path: '/var/run/docker.sock', id },
      },
    ];
    const keys = variants.map(probeKey);
    expect(new Set([key, ...keys]).size).toBe(variants.length + 1);
  });
});

describe('entries', () => {
  const key = 'a'.repeat(64);
  it('round-trips an answer under its key only', () => {
    const text = encodeEntry(key, 'rootless=false');
    expect(decodeEntry(text, key)).toBe('rootless=false');
    expect(decodeEntry(text, 'b'.repeat(64))).toBeNull();
  });
  it.each([
    '',
    'byre-engine-facts 2\nk\nv\n',
    `byre-engine-facts 1\n${key}\nv`,
    `byre-engine-facts 1\n${key}\nv\nextra\n`,
  ])('a malformed file is no answer: %j', (text) => {
    expect(decodeEntry(text, key)).toBeNull();
  });
  it.each<[Parameters<typeof validAnswer>[0], string, boolean]>([
    ['docker-info', 'rootless=true', true],
    ['docker-info', 'rootless=false', true],
    ['docker-info', 'rootless=yes', false],
    ['docker-info', '4.3.1', false],
    ['podman-version', '4.3.1', true],
    ['podman-version', '4.3', false],
    ['podman-version', 'rootless=true', false],
  ])('validAnswer(%s, %j) = %s', (probe, answer, want) => {
    expect(validAnswer(probe, answer)).toBe(want);
  });
});
