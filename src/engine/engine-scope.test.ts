import { describe, expect, it } from 'vitest';
import {
  engineDecision,
  engineMoveLine,
  engineRecordFile,
  formatEngineRecord,
  parseEngineRecord,
  projectEngines,
  recordedEngine,
  recordedEngines,
  sessionEngines,
  type EngineDecision,
  type EngineRecord,
} from './engine-scope.js';

const rec = (last: EngineRecord['last'], ...unresolved: EngineRecord['unresolved']) => ({
  last,
  unresolved,
});

describe('the engine record text', () => {
  it.each([
    [rec('docker'), 'docker\n'],
    [rec('podman', 'docker'), 'podman unresolved=docker\n'],
    [rec('docker', 'podman', 'podman', 'docker'), 'docker unresolved=podman\n'],
  ])('%o is written as %j and read back', (record, text) => {
    expect(formatEngineRecord(record)).toBe(text);
    expect(formatEngineRecord(parseEngineRecord(text) ?? rec('docker', 'docker'))).toBe(text);
  });

  it.each([
    ['', 'empty'],
    ['docker', 'no newline'],
    ['docker\n\n', 'two lines'],
    ['lxc\n', 'an unknown engine'],
    ['docker unresolved=lxc\n', 'an unknown unresolved engine'],
    ['docker podman\n', 'a word that is not unresolved='],
    ['docker  unresolved=podman\n', 'a double space'],
    ['DOCKER\n', 'upper case'],
  ])('%j (%s) is not a record', (text) => {
    expect(parseEngineRecord(text)).toBeNull();
  });

  it('names one file per worktree', () => {
    expect(engineRecordFile('proj-x-0a1b2c')).toBe('engine.proj-x-0a1b2c');
  });
});

describe('sessionEngines', () => {
  it.each([
    ['auto asks every engine', 'auto', rec('docker'), null],
    ['no record asks every engine', 'docker', null, null],
    ['the configured engine it last ran on', 'docker', rec('docker'), ['docker']],
    ['a switch asks the old engine too', 'docker', rec('podman'), ['docker', 'podman']],
    ['an unresolved engine is asked', 'podman', rec('podman', 'docker'), ['docker', 'podman']],
  ] as const)('%s', (_name, configured, own, want) => {
    expect(sessionEngines(configured, own)).toEqual(want);
  });
});

describe('projectEngines', () => {
  it.each([
    ['its own scope without siblings', 'docker', rec('docker'), [], ['docker']],
    ['widened by a sibling record', 'docker', rec('docker'), [rec('podman')], ['docker', 'podman']],
    ['every engine when a sibling record is unreadable', 'docker', rec('docker'), [null], null],
    ['every engine without its own record', 'docker', null, [rec('docker')], null],
    ['every engine under auto', 'auto', rec('docker'), [], null],
  ] as const)('%s', (_name, configured, own, others, want) => {
    expect(projectEngines(configured, own, others)).toEqual(want);
  });
});

describe('recordedEngines', () => {
  const records = [null, rec('docker'), rec('podman'), rec('docker', 'podman')];
  const siblings = [[], [rec('podman')], [rec('docker')], [null], [rec('docker'), null]];
  const cases = records.flatMap((own) =>
    siblings.flatMap((others) =>
      (['auto', 'docker', 'podman'] as const).map((configured) => ({ own, others, configured })),
    ),
  );

  it.each(cases)(
    'is within projectEngines whatever the config says (%o)',
    ({ own, others, configured }) => {
      const early = recordedEngines(own, others);
      const all = projectEngines(configured, own, others);
      if (early === null) expect(all).toBeNull();
      else if (all !== null) for (const e of early) expect(all).toContain(e);
    },
  );

  it.each([
    ['the records', rec('docker'), [rec('podman')], ['docker', 'podman']],
    ['unresolved ones too', rec('docker', 'podman'), [], ['docker', 'podman']],
    ['one engine', rec('podman'), [rec('podman')], ['podman']],
    ['every engine without its own record', null, [], null],
    ['every engine when a sibling record is unreadable', rec('docker'), [null], null],
  ] as const)('names %s', (_name, own, others, want) => {
    expect(recordedEngines(own, others)).toEqual(want);
  });
});

describe('the engine a project is on (adr/0053)', () => {
  it.each<
    [string, EngineRecord | null, (EngineRecord | null)[], EngineRecord['last'][], string | null]
  >([
    ['never launched', null, [], [], null],
    ['this worktree’s last launch', rec('podman', 'docker'), [rec('docker')], ['docker'], 'podman'],
    ['another worktree’s', null, [rec('podman')], [], 'podman'],
    ['an unreadable other record says nothing', null, [null], [], null],
    ['a launch record', null, [], ['podman'], 'podman'],
    ['unresolved engines are not where boxes are', null, [rec('podman', 'docker')], [], 'podman'],
    ['both named: docker, as auto would pick', null, [rec('podman')], ['docker'], 'docker'],
  ])('%s', (_name, own, others, launched, want) => {
    expect(recordedEngine(own, others, launched)).toBe(want);
  });

  it.each<
    [
      string,
      'auto' | 'docker' | 'podman',
      'docker' | 'podman' | null,
      Omit<EngineDecision, 'recorded'>,
    ]
  >([
    ['auto, first launch', 'auto', null, { ask: 'auto', pinned: null, movedFrom: null }],
    [
      'auto keeps the recorded engine',
      'auto',
      'docker',
      { ask: 'docker', pinned: 'docker', movedFrom: null },
    ],
    [
      'a configured engine, same',
      'podman',
      'podman',
      { ask: 'podman', pinned: null, movedFrom: null },
    ],
    [
      'a configured engine, a move',
      'podman',
      'docker',
      { ask: 'podman', pinned: null, movedFrom: 'docker' },
    ],
    [
      'a configured engine, first launch',
      'docker',
      null,
      { ask: 'docker', pinned: null, movedFrom: null },
    ],
  ])('%s', (_name, configured, recorded, want) => {
    expect(engineDecision(configured, recorded)).toEqual({ ...want, recorded });
  });

  it('announces a move with its reason', () => {
    expect(engineMoveLine('podman', 'docker')).toBe(
      'engine: podman for this project, moved from docker because the config names podman (engine = "podman"); its image and volumes are made anew on podman, and docker\'s stay there',
    );
  });
});
