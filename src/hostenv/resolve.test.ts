import { describe, expect, it } from 'vitest';
import type { LayerRef, Sourced } from '../config/types.js';
import {
  canonicalGitKey,
  deliveredHostEnv,
  parseGitConfigList,
  resolveHostEnv,
  zoneFromLocaltimeTarget,
  type HostReaders,
} from './resolve.js';

const core: LayerRef = { kind: 'core', name: 'core', path: null };
const project: LayerRef = { kind: 'project', name: 'project', path: '/s/byre.config' };
const s = (value: string, from: LayerRef = core): Sourced<string> => ({ value, from });

const readers: HostReaders = {
  git: (k) => ({ 'user.name': 'Ada', 'user.email': 'ada@example.org' })[k] ?? null,
  env: (n) => ({ TERM: 'xterm-256color', EMPTY: '' })[n] ?? null,
  tz: () => 'Europe/London',
};

describe('resolveHostEnv', () => {
  it.each([
    ['git delivered', 'GIT_AUTHOR_NAME', 'git:user.name', 'delivered', 'Ada'],
    ['env delivered', 'TERM', 'env:TERM', 'delivered', 'xterm-256color'],
    ['tz delivered', 'TZ', 'tz:', 'delivered', 'Europe/London'],
    ['disabled', 'TZ', '', 'disabled', undefined],
    ['missing git key is empty', 'X', 'git:user.signingkey', 'empty', undefined],
    ['absent env var is empty', 'X', 'env:NOPE', 'empty', undefined],
    ['empty env var is empty', 'X', 'env:EMPTY', 'empty', undefined],
  ])('%s', (_name, key, source, state, value) => {
    const [entry] = resolveHostEnv({ [key]: s(source) }, new Set(), readers);
    expect(entry?.state).toBe(state);
    expect(entry?.value).toBe(value);
  });

  it('an explicit [env] key overrides the passthrough and reads nothing', () => {
    const spy: HostReaders = {
      ...readers,
      env: () => {
        throw new Error('must not read');
      },
    };
    const [entry] = resolveHostEnv({ TERM: s('env:TERM') }, new Set(['TERM']), spy);
    expect(entry).toMatchObject({ key: 'TERM', state: 'overridden' });
    expect(entry).not.toHaveProperty('value');
  });

  it('keeps attribution and sorts by key', () => {
    const entries = resolveHostEnv({ Z: s('env:TERM', project), A: s('tz:') }, new Set(), readers);
    expect(entries.map((e) => [e.key, e.from.kind])).toEqual([
      ['A', 'core'],
      ['Z', 'project'],
    ]);
  });

  it('leaves encrypted rows to the credential channel: never read, never -e', () => {
    const entries = resolveHostEnv(
      {
        API_KEY: s('encrypted:0123456789abcdef:YWdl', project),
        CERT: s('encrypted-file:0123456789abcdef:YWdl', project),
        TERM: s('env:TERM'),
      },
      new Set(),
      readers,
    );
    expect(entries.map((e) => e.key)).toEqual(['TERM']);
  });

  it('leaves injected rows to the edge (adr/0070): not a host value, never -e', () => {
    const entries = resolveHostEnv(
      { GH: s('injected:0123456789abcdef:YWdl', project), TERM: s('env:TERM') },
      new Set(),
      readers,
    );
    expect(entries.map((e) => e.key)).toEqual(['TERM']);
  });

  it('deliveredHostEnv keeps only delivered values', () => {
    const entries = resolveHostEnv({ A: s('tz:'), B: s(''), C: s('env:NOPE') }, new Set(), readers);
    expect(deliveredHostEnv(entries)).toEqual({ A: 'Europe/London' });
  });
});

describe('zoneFromLocaltimeTarget', () => {
  it.each([
    ['/usr/share/zoneinfo/Europe/London', 'Europe/London'],
    ['../usr/share/zoneinfo/UTC', 'UTC'],
    ['/var/db/timezone/zoneinfo/America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['/etc/somewhere', null],
    ['/usr/share/zoneinfo/../../etc/passwd', null],
  ])('%s -> %s', (target, zone) => {
    expect(zoneFromLocaltimeTarget(target)).toBe(zone);
  });
});

describe('canonicalGitKey', () => {
  it.each([
    ['user.name', 'user.name'],
    ['User.Name', 'user.name'],
    ['branch.Main.Remote', 'branch.Main.remote'],
    ['url.https://Example.org/.insteadOf', 'url.https://Example.org/.insteadof'],
    ['user', null],
    ['.name', null],
    ['user.', null],
  ])('%s -> %s', (key, want) => {
    expect(canonicalGitKey(key)).toBe(want);
  });
});

describe('parseGitConfigList', () => {
  it('reads key/value entries, valueless keys as "", and keeps the last of a repeated key', () => {
    const map = parseGitConfigList(
      'user.name\nAda\0core.bare\0user.name\nAda L.\0alias.x\nline1\nline2\0',
    );
    expect(Object.fromEntries(map)).toEqual({
      'user.name': 'Ada L.',
      'core.bare': '',
      'alias.x': 'line1\nline2',
    });
  });

  it('reads nothing from nothing', () => {
    expect(parseGitConfigList('').size).toBe(0);
  });
});
