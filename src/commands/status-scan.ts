// The first questions `byre status` asks: where we stand, and whether the
// engines this project's records name (adr/0032) hold one of its boxes. Its
// own small module so the CLI starts the engines' `ps` before the page's
// code (config, skills, the model) has loaded: on docker that `ps` is about
// as long as loading it.

import type { Io } from '../io.js';
import { readEngineRecord, readOtherEngineRecords } from '../session/engine-record.js';
import { recordedEngines, type EngineRecord } from '../engine/engine-scope.js';
import { withoutIdleEngines } from '../engine/idle-probe.js';
import { askPool, enginePool, poolOf, type EnginePool, type PoolAnswer } from '../engine/pool.js';
import { LABEL } from '../gen/names.js';
import type { EngineName } from '../engine/types.js';
import { treeRoots } from '../containment/writable-trees.js';
import type { BoxTree } from '../project/box-trees.js';
import { projectTrees, type BoxConfig } from './load.js';
import {
  checkProjectPath,
  resolveProjectContext,
  type ProjectContext,
} from '../project/context.js';

/** A running box of this project, with the labels the page reads. */
export interface StatusScanBox {
  engine: EngineName;
  id: string;
  labels: Record<string, string>;
}

export type ScanAnswers = PoolAnswer<StatusScanBox[]>[];

export interface StatusScan {
  ctx: ProjectContext;
  ownRecord: EngineRecord | null;
  otherRecords: (EngineRecord | null)[];
  /** Every installed engine. */
  installed: EnginePool;
  /** The engines already asked, and their answers to come. */
  asked: EnginePool;
  answers: Promise<ScanAnswers>;
  /** Asks more engines the same question. */
  ask(pool: EnginePool): Promise<ScanAnswers>;
  /** The config as read for the trees, when it read cleanly (the page reads it again otherwise). */
  config: BoxConfig | null;
  /** The box-writable trees of that config (adr/0046). */
  trees: BoxTree[];
}

/**
 * Resolves the project and asks the engines its records name (every engine
 * when a record is missing or unreadable); the configured engine, known only
 * once the config is read, is the caller's to add (recordedEngines is always
 * within the set it will want). Status asks only for running boxes, so an
 * engine that provably runs no container (adr/0039) is not asked: its answer
 * would have been "none". A pool the caller gives (tests) is asked as given.
 */
export async function startStatusScan(io: Io, pool?: EnginePool): Promise<StatusScan> {
  // A changed identity or a forged worktree structure is shown on the page
  // and refused by its exit status (status.ts).
  const ctx = await resolveProjectContext(io.cwd, io.env, {
    identityChange: 'report',
    forged: 'report',
  });
  await checkProjectPath(ctx);
  const ownRecord = readEngineRecord(ctx.project.dir, ctx.worktreeId);
  const otherRecords = readOtherEngineRecords(ctx.project.dir, ctx.worktreeId);
  // The config is read first: its read-write mounts and seeds are trees a
  // planted docker or podman may not be run from (adr/0046).
  const { trees, read } = projectTrees(io, ctx);
  const installed = pool ?? enginePool(treeRoots(trees), io.env, null);
  const live = (members: EnginePool): EnginePool =>
    pool === undefined ? withoutIdleEngines(members, io.env) : members;
  const ask = (members: EnginePool): Promise<ScanAnswers> =>
    askPool(live(members), async (engine): Promise<StatusScanBox[]> => {
      const rows = await engine.psLabels(
        { labels: { [LABEL.project]: ctx.projectId }, all: false },
        [LABEL.workdir, LABEL.client, LABEL.launch],
      );
      return rows.map((row) => ({ engine: engine.facts.name, ...row }));
    });
  const asked = poolOf(installed, recordedEngines(ownRecord, otherRecords));
  const answers = ask(asked);
  // Awaited by the page; an error thrown before that must not leave it unhandled.
  answers.catch(() => undefined);
  return { ctx, ownRecord, otherRecords, installed, asked, answers, ask, config: read, trees };
}
