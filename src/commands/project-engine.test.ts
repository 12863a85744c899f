// Which engine a project's commands run on (adr/0053), on the fake engine:
// what detection is asked for from the records on disk (`auto` held to the
// engine the project's boxes are on, a configured engine taken as is and a
// move noted), when a failing detection becomes engine.project-unavailable
// (exit 3, the engine's own words, the way back) and when it stays as it
// failed, what pinning says and makes, and the refusal under the setup lock
// when the config's engine changed meanwhile.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { FakeEngine, FAKE_FACTS } from '../../test/support/fake-engine.js';
import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import type { EngineDecision } from '../engine/engine-scope.js';
import { AbsentToolError } from '../engine/host-tools.js';
import type { EngineFacts, EngineName } from '../engine/types.js';
import { ByreError, EngineError, RefusedError } from '../errors.js';
import { resolveProjectContext, type ProjectContext } from '../project/context.js';
import type { BoxTree } from '../project/box-trees.js';
import type { Detect } from './deps.js';
import { loadBoxConfig, userHome } from './load.js';
import {
  decideProjectEngine,
  detectProjectEngine,
  pinEngine,
  projectEngineFacts,
  rereadPinned,
} from './project-engine.js';

interface World {
  dir: string;
  store: string;
  io: FakeIo;
  ctx: ProjectContext;
  /** What detection was asked: the choice, the declined roots. */
  asked: { choice: string; declined: readonly string[] }[];
}

let w: World;

useTempDir('project-engine', async (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  mkdirSync(dir);
  mkdirSync(path.join(tmp, 'user'));
  const io = fakeIo({
    cwd: dir,
    env: { BYRE_HOME: home, HOME: path.join(tmp, 'user'), PATH: '/usr/bin:/bin' },
  });
  const ctx = await resolveProjectContext(dir, io.env);
  w = { dir, store: ctx.project.dir, io, ctx, asked: [] };
});

/** A worktree's engine record, as develop writes it after a launch. */
function record(worktreeId: string, text: string): void {
  mkdirSync(w.store, { recursive: true });
  writeFileSync(path.join(w.store, `engine.${worktreeId}`), text);
}

function configure(text: string): void {
  mkdirSync(w.store, { recursive: true });
  writeFileSync(w.ctx.project.config, text);
}

/** Detection that answers `facts`, or throws `error`, recording what it was asked. */
function detecting(answer: EngineFacts | Error): Detect {
  return async (choice, declined) => {
    w.asked.push({ choice, declined });
    if (answer instanceof Error) throw answer;
    return answer;
  };
}

function decision(ask: 'auto' | EngineName, recorded: EngineName | null): EngineDecision {
  return { ask, recorded, pinned: null, movedFrom: null };
}

async function thrown(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
}

const down = (): EngineError =>
  new EngineError('podman info failed (exit 125)', {
    engine: 'podman',
    argv: ['info'],
    exitCode: 125,
    stderr: 'Error: OCI runtime "crun" not found\n',
  });

describe('decideProjectEngine', () => {
  it('a project that never launched: auto asks detection to pick', () => {
    expect(decideProjectEngine(w.ctx, 'auto')).toEqual({
      ask: 'auto',
      recorded: null,
      pinned: null,
      movedFrom: null,
    });
  });

  it("auto after a launch asks for the engine this worktree's record names", () => {
    record(w.ctx.worktreeId, 'podman\n');
    expect(decideProjectEngine(w.ctx, 'auto')).toMatchObject({
      ask: 'podman',
      recorded: 'podman',
      pinned: 'podman',
    });
  });

  it("another worktree's record holds the project too", () => {
    record('proj-feature-123456', 'podman\n');
    expect(decideProjectEngine(w.ctx, 'auto')).toMatchObject({ ask: 'podman', pinned: 'podman' });
  });

  it('a malformed record says nothing: auto picks as for a first launch', () => {
    record(w.ctx.worktreeId, 'kubernetes\n');
    expect(decideProjectEngine(w.ctx, 'auto')).toMatchObject({ ask: 'auto', recorded: null });
  });

  it('a configured engine is asked as is; away from the recorded one it is a move', () => {
    record(w.ctx.worktreeId, 'podman\n');
    expect(decideProjectEngine(w.ctx, 'docker')).toEqual({
      ask: 'docker',
      recorded: 'podman',
      pinned: null,
      movedFrom: 'podman',
    });
    expect(decideProjectEngine(w.ctx, 'podman')).toMatchObject({ ask: 'podman', movedFrom: null });
  });
});

describe('detectProjectEngine', () => {
  it('answers what detection found for the decision, asked with the declined roots', async () => {
    const facts = { ...FAKE_FACTS, name: 'podman' as const };
    const got = await detectProjectEngine(
      detecting(facts),
      w.ctx,
      decision('podman', 'podman'),
      ['/a/tree'],
      w.io.env,
    );
    expect(got.facts).toBe(facts);
    expect(w.asked).toEqual([{ choice: 'podman', declined: ['/a/tree'] }]);
  });

  it.each([
    ['auto pinned to it', { ...decision('podman', 'podman'), pinned: 'podman' as const }],
    ['configured as it', decision('podman', 'podman')],
  ])(
    "engine.project-unavailable: the project's engine (%s) failing refuses with 3, in its own words",
    async (_, d) => {
      const cause = down();
      const error = await thrown(detectProjectEngine(detecting(cause), w.ctx, d, [], w.io.env));
      expect(error).toBeInstanceOf(RefusedError);
      const refusal = error as RefusedError;
      expect(refusal).toMatchObject({ rule: 'engine.project-unavailable', exitCode: 3, cause });
      expect(refusal.message).toContain("this project's boxes are on podman");
      expect(refusal.details).toEqual([
        'podman info failed (exit 125)',
        '  podman said:',
        '    Error: OCI runtime "crun" not found',
      ]);
      expect(refusal.remedy).toContain(`set engine = "docker" in ${w.ctx.project.config}`);
    },
  );

  it("engine.project-unavailable: the project's engine gone from PATH is refused the same way", async () => {
    const error = await thrown(
      detectProjectEngine(
        detecting(new AbsentToolError('docker')),
        w.ctx,
        decision('docker', 'docker'),
        [],
        w.io.env,
      ),
    );
    expect(error).toMatchObject({ rule: 'engine.project-unavailable', exitCode: 3 });
    expect((error as RefusedError).details[0]).toBe('docker was not found on PATH');
  });

  it.each([
    ['a first launch', decision('auto', null)],
    ['a first launch on a configured engine', decision('podman', null)],
    ['a move to another engine', decision('podman', 'docker')],
  ])('%s fails as detection fails', async (_, d) => {
    const cause = down();
    expect(await thrown(detectProjectEngine(detecting(cause), w.ctx, d, [], w.io.env))).toBe(cause);
  });

  it("a declined engine refuses as detection does, even when it is the project's", async () => {
    const declined = new RefusedError('podman is inside a tree the box can write', {
      rule: 'hosttool.declined',
    });
    const error = await thrown(
      detectProjectEngine(detecting(declined), w.ctx, decision('podman', 'podman'), [], w.io.env),
    );
    expect(error).toBe(declined);
  });
});

describe('projectEngineFacts', () => {
  it("asks for the config's engine, as the records hold it, declining the box-writable trees", async () => {
    record(w.ctx.worktreeId, 'podman\n');
    const trees = [{ given: '/g/link', path: '/g/real' }] as unknown as BoxTree[];
    const facts = await projectEngineFacts(
      detecting(FAKE_FACTS),
      w.ctx,
      { config: { engine: { value: 'auto' } }, trees },
      w.io.env,
    );
    expect(facts).toBe(FAKE_FACTS);
    expect(w.asked).toEqual([{ choice: 'podman', declined: ['/g/link', '/g/real'] }]);
  });
});

describe('pinEngine', () => {
  const early = { config: { engine: { value: 'auto' as const } }, trees: [] };

  it("says detection's warnings, makes the adapter with this env, and keeps the config's choice", async () => {
    const engine = new FakeEngine();
    const made: unknown[] = [];
    const facts = {
      ...FAKE_FACTS,
      warnings: [{ rule: 'engine.old', message: 'docker 20.10 is old' }],
    };
    const pinned = await pinEngine(
      w.io,
      w.ctx,
      {
        detect: detecting(facts),
        createEngine: (f, options) => {
          made.push([f, options]);
          return engine;
        },
      },
      early,
    );
    expect(pinned).toEqual({ engine, choice: 'auto' });
    expect(made).toEqual([[facts, { env: w.io.env }]]);
    expect(w.io.err).toBe('byre: warning: docker 20.10 is old\n');
    expect(w.asked).toEqual([{ choice: 'auto', declined: [] }]);
  });

  it('asks for the decision it is given (develop passes the one it announced)', async () => {
    record(w.ctx.worktreeId, 'docker\n');
    await pinEngine(
      w.io,
      w.ctx,
      { detect: detecting(FAKE_FACTS), createEngine: () => new FakeEngine() },
      early,
      decision('podman', 'docker'),
    );
    expect(w.asked.map((a) => a.choice)).toEqual(['podman']);
  });

  it('makes no adapter when the pinned engine cannot be asked', async () => {
    record(w.ctx.worktreeId, 'podman\n');
    let made = 0;
    const error = await thrown(
      pinEngine(
        w.io,
        w.ctx,
        {
          detect: detecting(down()),
          createEngine: () => {
            made += 1;
            return new FakeEngine();
          },
        },
        early,
      ),
    );
    expect(error).toMatchObject({ rule: 'engine.project-unavailable' });
    expect(made).toBe(0);
  });
});

describe('rereadPinned', () => {
  const pinnedOn = (choice: 'auto' | EngineName) => ({
    engine: new FakeEngine({ name: 'docker' }),
    choice,
  });

  it('answers the config as it reads under the lock when its engine is the one pinned', async () => {
    configure('engine = "docker"\napt = ["jq"]\n');
    const loaded = await rereadPinned(w.io, w.ctx, pinnedOn('docker'), 'develop');
    expect(loaded.config.engine.value).toBe('docker');
    // Everything but the locator, a closure over this read's files.
    const fresh = await loadBoxConfig(w.ctx, userHome(w.io));
    expect({ ...loaded, locate: null }).toEqual({ ...fresh, locate: null });
  });

  it.each([
    ['develop', 'run byre develop again'],
    ['rebuild', 'run byre rebuild again'],
    ['worktree', 'run the command again'],
  ] as const)(
    '%s.engine-changed: another engine in the config meanwhile is refused (exit 3)',
    async (verb, again) => {
      configure('engine = "podman"\n');
      const error = await thrown(rereadPinned(w.io, w.ctx, pinnedOn('auto'), verb));
      expect(error).toBeInstanceOf(RefusedError);
      expect(error).toMatchObject({ rule: `${verb}.engine-changed`, exitCode: 3, remedy: again });
      expect((error as ByreError).message).toBe(
        `the config's engine changed to "podman" while byre was starting on docker`,
      );
    },
  );

  it('a config that stopped loading is refused as the read refuses it', async () => {
    configure('engine = \n');
    const error = await thrown(rereadPinned(w.io, w.ctx, pinnedOn('auto'), 'rebuild'));
    expect(error).toBeInstanceOf(ByreError);
    expect((error as ByreError).rule).not.toBe('rebuild.engine-changed');
  });
});
