import { describe, expect, it } from 'vitest';

import type { EngineFact, StoreEntry } from './facts.js';
import {
  baseFinding,
  clipboardFinding,
  configFinding,
  DISK_FAIL_BYTES,
  DISK_WARN_BYTES,
  diskFinding,
  engineChoiceFinding,
  engineFinding,
  hostUserFinding,
  isUsable,
  launchRecordFinding,
  leftoverFinding,
  limitFinding,
  selectedEngine,
  storeFinding,
  toolFinding,
  type EngineChoice,
} from './findings.js';

const ok = (name: 'docker' | 'podman', extra: Partial<EngineFact> = {}): EngineFact =>
  ({
    name,
    state: 'ok',
    path: `/usr/bin/${name}`,
    version: '1.2.3',
    rootless: false,
    keepId: false,
    warnings: [],
    ...extra,
  }) as EngineFact;
const absent = (name: 'docker' | 'podman'): EngineFact => ({ name, state: 'absent' });
const declined = (name: 'docker' | 'podman'): EngineFact => ({
  name,
  state: 'declined',
  path: `/p/bin/${name}`,
  root: '/p',
});
const down = (name: 'docker' | 'podman', said = ''): EngineFact => ({
  name,
  state: 'unusable',
  path: `/usr/bin/${name}`,
  rule: 'engine.unreachable',
  message: `${name} is not answering`,
  said,
  fix: `start ${name}`,
});

describe('selectedEngine (the rule detection uses)', () => {
  it.each<[EngineChoice, EngineFact[], string | null]>([
    ['auto', [ok('docker'), ok('podman')], 'docker'],
    ['auto', [absent('docker'), ok('podman')], 'podman'],
    ['auto', [down('docker'), ok('podman')], 'podman'],
    // auto never falls through past a declined docker
    ['auto', [declined('docker'), ok('podman')], null],
    ['auto', [absent('docker'), absent('podman')], null],
    ['auto', [down('docker'), absent('podman')], null],
    ['auto', [absent('docker'), down('podman')], null],
    ['podman', [ok('docker'), absent('podman')], null],
    ['podman', [ok('docker'), ok('podman')], 'podman'],
    ['docker', [down('docker'), ok('podman')], null],
  ])('%s over %j → %s', (choice, engines, expected) => {
    expect(selectedEngine(choice, engines).name).toBe(expected);
  });

  // adr/0053: once a project launched, auto means its engine, answering or not.
  it.each<[EngineFact[], 'docker' | 'podman', string | null]>([
    [[down('docker'), ok('podman')], 'docker', null],
    [[absent('docker'), ok('podman')], 'docker', null],
    [[ok('docker'), ok('podman')], 'podman', 'podman'],
    [[ok('docker'), down('podman')], 'podman', null],
  ])('auto over %j, the project on %s → %s', (engines, recorded, expected) => {
    expect(selectedEngine('auto', engines, recorded).name).toBe(expected);
  });

  it('names the project’s engine, and how to get it back or move', () => {
    expect(engineChoiceFinding('auto', [down('docker'), ok('podman')], 'docker')).toEqual({
      id: 'engine.selected',
      subject: 'engine here',
      verdict: 'fail',
      found:
        'engine = "auto": this project\'s boxes are on docker, and docker cannot be used (see its line); byre does not guess another engine',
      fix: 'start docker; or move this project with engine = "podman"',
    });
    expect(engineChoiceFinding('auto', [ok('docker'), ok('podman')], 'podman').found).toBe(
      'podman (engine = "auto"; this project\'s boxes are there)',
    );
  });

  it('fails the engine line with the reason and a fix', () => {
    const f = engineChoiceFinding('auto', [absent('docker'), absent('podman')]);
    expect(f).toMatchObject({
      verdict: 'fail',
      fix: expect.stringContaining('install Docker or Podman'),
    });
    expect(engineChoiceFinding(null, []).verdict).toBe('fail');
    expect(engineChoiceFinding('auto', [ok('docker')])).toMatchObject({
      verdict: 'ok',
      found: 'docker (engine = "auto")',
    });
  });
});

describe('engineFinding', () => {
  it.each<[EngineFact, string, RegExp]>([
    [ok('docker'), 'ok', /1\.2\.3 at \/usr\/bin\/docker; answering, rootful/],
    [ok('podman', { rootless: true, keepId: true }), 'ok', /rootless, keep-id supported/],
    [
      ok('podman', { rootless: true, warnings: ['too old'] } as Partial<EngineFact>),
      'warn',
      /WITHOUT keep-id.*too old/,
    ],
    [ok('docker', { rootless: true, version: '' }), 'ok', /version unknown.*rootless$/],
    [absent('docker'), 'note', /not installed/],
    [declined('podman'), 'warn', /inside \/p, which the box can write/],
    [down('docker'), 'warn', /not answering/],
    [
      down('podman', 'Error: default OCI runtime "nosuchruntime" not found'),
      'warn',
      /not answering; podman said: Error: default OCI runtime "nosuchruntime" not found$/,
    ],
  ])('%#', (fact, verdict, found) => {
    const f = engineFinding(fact);
    expect(f.verdict).toBe(verdict);
    expect(f.found).toMatch(found);
    if (verdict === 'warn') expect(f.fix).not.toBeNull();
  });
});

describe('hostUserFinding', () => {
  it.each([
    [1000, 1000, {}, 'ok'],
    [0, 0, {}, 'fail'],
    [1000, 0, {}, 'fail'],
    [0, 0, { BYRE_ALLOW_ROOT: '1' }, 'warn'],
  ])('uid %i gid %i %j → %s', (uid, gid, env, verdict) => {
    expect(hostUserFinding(uid, gid, env).verdict).toBe(verdict);
  });
});

describe('toolFinding and clipboardFinding', () => {
  it.each([
    [{ tool: 'git', state: 'found', path: '/usr/bin/git' } as const, 'ok'],
    [{ tool: 'git', state: 'absent' } as const, 'warn'],
    [{ tool: 'ssh', state: 'absent' } as const, 'note'],
    [{ tool: 'ssh', state: 'declined', path: '/p/ssh', root: '/p' } as const, 'warn'],
  ])('%j → %s', (fact, verdict) => {
    expect(toolFinding(fact).verdict).toBe(verdict);
  });

  it('needs no fix without a display, and names the package with one', () => {
    expect(clipboardFinding([])).toMatchObject({ verdict: 'note', fix: null });
    expect(clipboardFinding([{ tool: 'xclip', state: 'absent' }])).toMatchObject({
      fix: 'install xclip',
    });
    expect(
      clipboardFinding([
        { tool: 'wl-copy', state: 'absent' },
        { tool: 'wl-paste', state: 'absent' },
      ]).fix,
    ).toBe('install wl-clipboard');
    expect(clipboardFinding([{ tool: 'xclip', state: 'found', path: '/x' }]).verdict).toBe('ok');
  });
});

describe('limitFinding', () => {
  const l = {
    nofileSoft: 1024,
    nofileHard: 1_048_576,
    inotifyWatches: 524_288,
    inotifyInstances: 128,
  };
  it.each([
    [l, 'ok'],
    [{ ...l, nofileHard: 1024 }, 'warn'],
    [{ ...l, inotifyWatches: 8192 }, 'warn'],
    [{ ...l, inotifyWatches: null, inotifyInstances: null }, 'ok'],
    [{ ...l, nofileHard: null }, 'note'],
  ])('%j → %s', (facts, verdict) => {
    expect(limitFinding(facts, 'linux').verdict).toBe(verdict);
  });

  it('gives macOS its own fix', () => {
    expect(limitFinding({ ...l, nofileHard: 256 }, 'darwin').fix).toContain('launchctl');
  });
});

describe('diskFinding', () => {
  const at = (free: number) =>
    diskFinding({
      engine: 'docker',
      state: 'measured',
      root: '/var/lib/docker',
      freeBytes: free,
      totalBytes: 100 * DISK_WARN_BYTES,
    });
  it.each([
    [DISK_WARN_BYTES, 'ok'],
    [DISK_WARN_BYTES - 1, 'warn'],
    [DISK_FAIL_BYTES, 'warn'],
    [DISK_FAIL_BYTES - 1, 'fail'],
  ])('%i bytes free → %s', (free, verdict) => {
    expect(at(free).verdict).toBe(verdict);
  });

  it('notes what it could not measure', () => {
    expect(
      diskFinding({ engine: 'podman', state: 'unmeasured', root: '/x', why: 'in a VM' }),
    ).toMatchObject({
      verdict: 'note',
      found: '/x: in a VM',
    });
  });
});

describe('baseFinding', () => {
  it.each([
    [{ state: 'local', ref: 'debian:bookworm', engine: 'docker' } as const, 'ok'],
    [{ state: 'pullable', ref: 'debian:bookworm', engine: 'docker' } as const, 'ok'],
    [
      {
        state: 'unpullable',
        ref: 'debain:bookworm',
        engine: 'podman',
        why: 'no such host',
      } as const,
      'fail',
    ],
    [{ state: 'unknown', ref: null, why: 'no engine' } as const, 'warn'],
  ])('%j → %s', (fact, verdict) => {
    const f = baseFinding(fact);
    expect(f.verdict).toBe(verdict);
    if (verdict === 'fail') {
      expect(f.found).toContain('debain:bookworm');
      expect(f.fix).toContain('base = ');
      expect(f.fix).toContain('podman images');
    }
  });
});

describe('storeFinding', () => {
  const home = '/h/.byre';
  const e = (p: string, mode: number, extra: Partial<StoreEntry> = {}): StoreEntry => ({
    path: p,
    kind: 'dir',
    mode,
    uid: 1000,
    ...extra,
  });
  it.each<[StoreEntry[] | null, string, RegExp]>([
    [null, 'note', /does not exist yet/],
    [[e(home, 0o700), e(`${home}/projects`, 0o700)], 'ok', /yours alone \(2 entries/],
    [[e(home, 0o755)], 'warn', /mode 0755: others can read/],
    [
      [e(home, 0o700), e(`${home}/default.config`, 0o666, { kind: 'file' })],
      'fail',
      /writable by group or others.*default\.config/,
    ],
    [[e(home, 0o700), e(`${home}/projects/x`, 0o700, { uid: 0 })], 'fail', /owned by another user/],
    [[e(home, 0o700, { kind: 'file' })], 'fail', /not a directory/],
    // A symlink's own mode and owner say nothing; its target is judged where byre reads it.
    [
      [e(home, 0o700), e(`${home}/default.config`, 0o777, { kind: 'symlink', uid: 0 })],
      'ok',
      /yours alone/,
    ],
  ])('%#', (entries, verdict, found) => {
    const f = storeFinding({ home, entries, uid: 1000 });
    expect(f.verdict).toBe(verdict);
    expect(f.found).toMatch(found);
    if (verdict === 'fail' || verdict === 'warn') expect(f.fix).toContain(home);
  });

  it('lists at most three offenders', () => {
    const many = [e(home, 0o700), ...[1, 2, 3, 4, 5].map((i) => e(`${home}/p${i}`, 0o777))];
    expect(storeFinding({ home, entries: many, uid: 1000 }).found).toMatch(/p3 and 2 more$/);
  });
});

describe('the rest', () => {
  it('launch records', () => {
    expect(launchRecordFinding([], []).verdict).toBe('ok');
    expect(
      launchRecordFinding([{ project: 'a' }, { project: 'a' }, { project: 'b' }], []),
    ).toMatchObject({
      verdict: 'note',
      found: '3 no box points at any more, in 2 project(s)',
    });
    expect(launchRecordFinding(null, ['podman']).found).toContain('could not ask podman');
  });

  it('leftovers', () => {
    const none = { leftovers: [], folders: [], otherStore: 2, unattributed: 1, unreached: [] };
    expect(leftoverFinding(none)).toMatchObject({
      verdict: 'ok',
      found: expect.stringContaining('2 of another byre store'),
    });
    const some = {
      ...none,
      leftovers: [
        {
          engine: 'docker' as const,
          kind: 'container' as const,
          id: 'c',
          tags: [],
          project: 'x-1a2b3c',
          reason: 'store_gone' as const,
          recordedPath: null,
          running: true,
        },
      ],
    };
    expect(leftoverFinding(some)).toMatchObject({
      verdict: 'warn',
      found: expect.stringContaining('1 running: stop those first'),
      fix: expect.stringContaining('byre doctor --prune'),
    });
    // A store folder alone is a leftover too: doctor never says none while one is there.
    const folder = {
      ...none,
      folders: [{ project: 'x-1a2b3c', dir: '/s/projects/x-1a2b3c', recordedPath: '/gone' }],
    };
    expect(leftoverFinding(folder)).toMatchObject({
      verdict: 'warn',
      found: expect.stringMatching(
        /^1 project store folder\(s\) whose directory is gone; left alone/,
      ),
      fix: expect.stringContaining('byre doctor --prune'),
    });
  });

  it('config', () => {
    expect(configFinding(null).verdict).toBe('ok');
    expect(configFinding({ message: 'bad key', fix: null })).toMatchObject({
      verdict: 'fail',
      fix: 'fix the file named above',
    });
  });

  it('usable means nothing failed', () => {
    expect(
      isUsable([
        configFinding(null),
        leftoverFinding({
          leftovers: [],
          folders: [],
          otherStore: 0,
          unattributed: 0,
          unreached: [],
        }),
      ]),
    ).toBe(true);
    expect(isUsable([configFinding({ message: 'x', fix: null })])).toBe(false);
  });
});
