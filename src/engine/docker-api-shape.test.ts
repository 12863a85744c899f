import { describe, expect, it } from 'vitest';

import {
  apiRoute,
  containerFactsOf,
  containerInspectPath,
  containerListPath,
  idsOf,
  labelRowsOf,
  parseContainerList,
  securityOptionsOf,
} from './docker-api-shape.js';
import type { DockerConfigText } from './facts-key.js';
import { parseContainerFacts, parseLabelRows } from './output.js';

const SOCK = '/var/run/docker.sock';
const isSock = (p: string): boolean => p === SOCK || p === '/run/user/1000/docker.sock';
const none: DockerConfigText = { kind: 'missing' };
const ok = (text: string): DockerConfigText => ({ kind: 'ok', text });

describe('apiRoute: the API only where the CLI would ask the same socket', () => {
  it.each<[string, Record<string, string>, DockerConfigText, boolean, string | null]>([
    ['defaults', {}, none, true, SOCK],
    ['a config with no context', {}, ok('{"auths":{}}'), true, SOCK],
    ['the default context named', {}, ok('{"currentContext":"default"}'), true, SOCK],
    ['DOCKER_CONTEXT=default', { DOCKER_CONTEXT: 'default' }, none, true, SOCK],
    [
      'a unix DOCKER_HOST',
      { DOCKER_HOST: 'unix:///run/user/1000/docker.sock' },
      none,
      true,
      '/run/user/1000/docker.sock',
    ],
    ['DOCKER_BUILDKIT does not matter', { DOCKER_BUILDKIT: '1' }, none, true, SOCK],
    ['an empty TLS variable is unset', { DOCKER_TLS_VERIFY: '' }, none, true, SOCK],
    ['a script CLI (podman-docker shim)', {}, none, false, null],
    ['a tcp DOCKER_HOST', { DOCKER_HOST: 'tcp://127.0.0.1:2375' }, none, true, null],
    ['an ssh DOCKER_HOST', { DOCKER_HOST: 'ssh://me@host' }, none, true, null],
    ['a named DOCKER_CONTEXT', { DOCKER_CONTEXT: 'remote' }, none, true, null],
    ['a named currentContext', {}, ok('{"currentContext":"colima"}'), true, null],
    ['DOCKER_TLS_VERIFY', { DOCKER_TLS_VERIFY: '1' }, none, true, null],
    ['DOCKER_TLS', { DOCKER_TLS: '1' }, none, true, null],
    ['DOCKER_CERT_PATH', { DOCKER_CERT_PATH: '/certs' }, none, true, null],
    ['DOCKER_API_VERSION', { DOCKER_API_VERSION: '1.41' }, none, true, null],
    ['DOCKER_CUSTOM_HEADERS', { DOCKER_CUSTOM_HEADERS: 'X-A=b' }, none, true, null],
    ['config HttpHeaders', {}, ok('{"HttpHeaders":{"X-A":"b"}}'), true, null],
    ['config httpheaders in another case', {}, ok('{"httpHeaders":{}}'), true, null],
    ['an unparseable config', {}, ok('{'), true, null],
    ['a config that is not an object', {}, ok('[]'), true, null],
    ['an unreadable config', {}, { kind: 'unreadable' }, true, null],
    ['a unix host that is not a socket', { DOCKER_HOST: 'unix:///tmp/nothing' }, none, true, null],
  ])('%s', (_what, env, config, native, want) => {
    const route = apiRoute(env, config, native, isSock);
    expect(route.kind === 'socket' ? route.path : null).toBe(want);
  });
});

describe('request paths', () => {
  it('ps filters as the CLI sends them', () => {
    expect(containerListPath({ labels: {}, all: false })).toBe('/containers/json');
    const path = containerListPath({
      labels: { 'byre.project': 'p-1' },
      hasLabels: ['byre.workdir'],
      all: true,
    });
    const url = new URL(path, 'http://docker');
    expect(url.pathname).toBe('/containers/json');
    expect(url.searchParams.get('all')).toBe('1');
    expect(JSON.parse(url.searchParams.get('filters') ?? '')).toEqual({
      label: { 'byre.project=p-1': true, 'byre.workdir': true },
    });
    const byVolume = new URL(
      containerListPath({ labels: {}, all: false, volume: 'v-1' }),
      'http://d',
    );
    expect(JSON.parse(byVolume.searchParams.get('filters') ?? '')).toEqual({
      volume: { 'v-1': true },
    });
  });

  it.each([
    ['a'.repeat(64), true],
    ['abc123', true],
    ['my_box.1-x', true],
    ['', false],
    ['../x', false],
    ['a/b', false],
    ['-x', false],
    ['a?b', false],
    ['a b', false],
    ['a%2f', false],
  ])('inspect path for %j: %s', (ref, plain) => {
    expect(containerInspectPath(ref) !== null).toBe(plain);
  });
});

const ID = 'a'.repeat(64);
const ID2 = 'b'.repeat(64);
const KEYS = ['byre.workdir', 'byre.client', 'byre.launch'];

/** A Go-style encoding: <, >, & and U+2028/9 escaped as the daemon and CLI write them. */
const goJson = (v: unknown): string =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const ODD = [
  'plain',
  '',
  'tab\there',
  'new\nline',
  '\u001b[31mred\u001b[0m',
  '<b>&amp;</b>',
  'line\u2028sep',
  'ünï 🚀',
  '"quoted" \\ back',
  '\u0000nul',
];

describe('ps over the API: rows as the CLI path makes them', () => {
  it.each(ODD)('label value %j', (value) => {
    const labels = { 'byre.workdir': value, 'byre.launch': 'L', other: 'x' };
    const body = goJson([{ Id: ID, Names: ['/b'], Labels: labels }]);
    const cli = `${goJson([ID, value, '', 'L'])}\n`;
    const list = parseContainerList(body);
    expect(list).not.toBeNull();
    expect(labelRowsOf(list ?? [], KEYS)).toEqual(parseLabelRows(cli, KEYS));
  });

  it('absent and null labels are no labels; order is kept', () => {
    const list = parseContainerList(goJson([{ Id: ID }, { Id: ID2, Labels: null }]));
    expect(labelRowsOf(list ?? [], KEYS)).toEqual([
      { id: ID, labels: {} },
      { id: ID2, labels: {} },
    ]);
    expect(idsOf(list ?? [])).toEqual([ID, ID2]);
  });

  it('a label key on the object prototype is not a label', () => {
    const list = parseContainerList(goJson([{ Id: ID, Labels: { other: 'x' } }]));
    expect(labelRowsOf(list ?? [], ['constructor', 'toString'])).toEqual([{ id: ID, labels: {} }]);
  });

  it('an empty list is no rows', () => {
    expect(parseContainerList('[]')).toEqual([]);
  });

  it.each([
    ['not JSON', '[{'],
    ['an object', '{}'],
    ['null', 'null'],
    ['a non-object item', '["x"]'],
    ['no Id', '[{"Labels":{}}]'],
    ['a numeric Id', '[{"Id":1}]'],
    ['a label value that is not a string', `[{"Id":"${ID}","Labels":{"a":1}}]`],
    ['labels that are an array', `[{"Id":"${ID}","Labels":[]}]`],
    ['a second Id in another case', `[{"Id":"${ID}","id":"${ID2}"}]`],
    ['a second Labels in another case', `[{"Id":"${ID}","Labels":{},"labels":{"a":"b"}}]`],
    ['Labels spelled with a long s', `[{"Id":"${ID}","Label\u017f":{"a":"b"}}]`],
    ['an escaped lone surrogate', `[{"Id":"${ID}","Labels":{"a":"\\ud800"}}]`],
    ['an escaped surrogate pair', `[{"Id":"${ID}","Labels":{"a":"\\ud83d\\ude80"}}]`],
  ])('%s: the CLI answers instead', (_what, body) => {
    expect(parseContainerList(body)).toBeNull();
  });

  it('ids that are not full hex ids leave `ps -q` to the CLI', () => {
    expect(idsOf([{ id: 'abc', labels: {} }])).toBeNull();
    expect(idsOf([{ id: `${ID}\n${ID2}`, labels: {} }])).toBeNull();
    expect(idsOf([])).toEqual([]);
  });
});

describe('container inspect over the API', () => {
  /** One ref's 200 reply through containerFactsOf: its facts, or null (ask the CLI). */
  const inspected = (body: string) => containerFactsOf([{ status: 200, body }]);
  const inspect = (extra: Record<string, unknown> = {}): string =>
    goJson({
      Id: ID,
      Name: '/box',
      State: { Status: 'running', Running: true },
      Config: { Labels: { 'byre.project': 'p<&>', x: 'y\nz' }, Env: ['A=1', 'B=x=y', 'C', '=d'] },
      ...extra,
    });

  it('the facts the CLI path reads, through the same env and label readers', () => {
    const cli = `${goJson([ID, true, { 'byre.project': 'p<&>', x: 'y\nz' }, ['A=1', 'B=x=y', 'C', '=d']])}\n`;
    expect(inspected(inspect())).toEqual(parseContainerFacts(cli));
  });

  it('null labels and env are empty', () => {
    const body = goJson({ Id: ID, State: { Running: false }, Config: { Labels: null, Env: null } });
    expect(inspected(body)).toEqual([{ id: ID, running: false, labels: {}, env: {} }]);
  });

  it.each([
    ['no State', goJson({ Id: ID, Config: {} })],
    ['no Config', goJson({ Id: ID, State: { Running: true } })],
    ['Running not a boolean', goJson({ Id: ID, State: { Running: 'true' }, Config: {} })],
    [
      'an env item not a string',
      goJson({ Id: ID, State: { Running: true }, Config: { Env: [1] } }),
    ],
    ['env not an array', goJson({ Id: ID, State: { Running: true }, Config: { Env: 'A=1' } })],
    ['a second state', inspect({ state: { Running: false } })],
    ['garbage', 'not json'],
  ])('%s: the CLI answers instead', (_what, body) => {
    expect(inspected(body)).toBeNull();
  });

  it('replies in ref order; "No such container" left out as the CLI leaves it out', () => {
    const gone = { status: 404, body: '{"message":"No such container: x"}' };
    const facts = inspected(inspect());
    expect(facts).toHaveLength(1);
    expect(containerFactsOf([{ status: 200, body: inspect() }, gone])).toEqual(facts);
    expect(containerFactsOf([gone, gone])).toEqual([]);
  });

  it.each([
    ['a failed request', null],
    ['a server error', { status: 500, body: '{"message":"boom"}' }],
    ['an ambiguous prefix', { status: 400, body: '{"message":"multiple IDs found"}' }],
    ["a 404 that is not the daemon's", { status: 404, body: '404 page not found' }],
    ['a 200 with garbage', { status: 200, body: '<html>' }],
  ])('%s: the CLI answers instead', (_what, reply) => {
    expect(containerFactsOf([{ status: 200, body: inspect() }, reply])).toBeNull();
  });

  it("leaves out only a 404 with the daemon's message", () => {
    /** Left out (as not found), where any other failure sends the whole answer to the CLI. */
    const isNoSuchContainer = (status: number, body: string): boolean =>
      containerFactsOf([{ status, body }])?.length === 0;
    expect(isNoSuchContainer(404, '{"message":"No such container: abc"}')).toBe(true);
    expect(isNoSuchContainer(500, '{"message":"No such container: abc"}')).toBe(false);
    expect(isNoSuchContainer(404, '{"message":"page not found"}')).toBe(false);
    expect(isNoSuchContainer(404, '')).toBe(false);
  });
});

describe("securityOptionsOf: `info`'s SecurityOptions as the CLI prints them, else ask the CLI", () => {
  it.each<[string, number, string, string | null]>([
    [
      'a plain list',
      200,
      '{"ID":"x","SecurityOptions":["name=seccomp,profile=default","name=rootless"]}',
      '["name=seccomp,profile=default","name=rootless"]',
    ],
    ['an empty list', 200, '{"SecurityOptions":[]}', '[]'],
    ['a failure status', 500, '{"SecurityOptions":[]}', null],
    ['absent', 200, '{"ID":"x"}', null],
    ['null', 200, '{"SecurityOptions":null}', null],
    ['not a list', 200, '{"SecurityOptions":"name=rootless"}', null],
    ['a non-string entry', 200, '{"SecurityOptions":["a",1]}', null],
    [
      'a case-folded twin key',
      200,
      '{"SecurityOptions":[],"securityoptions":["name=rootless"]}',
      null,
    ],
    ['an escaped surrogate', 200, '{"SecurityOptions":["\\ud800"]}', null],
    ['not JSON', 200, '{', null],
    ['not an object', 200, '[]', null],
  ])('%s', (_name, status, body, want) => {
    expect(securityOptionsOf(status, body)).toBe(want);
  });
});
