// Which engine a project's commands run on (adr/0053): `auto` picks one only
// for a project that never launched; after that it means the engine the
// project's boxes are on, and when that engine cannot be asked the command
// refuses, naming it and quoting its own error, rather than guessing another.
// Only a configured engine moves a project, and develop announces the move.
// develop, rebuild and `byre worktree` pin it before the setup lock and
// re-read the config under it, refusing when the engine changed meanwhile.

import {
  engineDecision,
  projectEngineUnavailable,
  type EngineDecision,
} from '../engine/engine-scope.js';
import { readRecordedEngine } from '../session/engine-record.js';
import { treeRoots } from '../containment/writable-trees.js';
import type { BoxTree } from '../project/box-trees.js';
import { AbsentToolError } from '../engine/host-tools.js';
import type { Engine, EngineOptions } from '../engine/engine.js';
import type { EngineFacts, EngineName } from '../engine/types.js';
import { EngineError, RefusedError } from '../errors.js';
import type { Io } from '../io.js';
import { printWarnings } from '../output/notes.js';
import { causeDetails } from '../output/render-error.js';
import type { ProjectContext } from '../project/context.js';
import type { Detect } from './deps.js';
import { loadBoxConfig, userHome, type LoadedConfig } from './load.js';

interface ProjectEngine {
  facts: EngineFacts;
  decision: EngineDecision;
}

/** The engine the project's records say, and what detection is asked for under `configured`. */
export function decideProjectEngine(
  ctx: ProjectContext,
  configured: 'auto' | EngineName,
): EngineDecision {
  return engineDecision(configured, readRecordedEngine(ctx.project, ctx.worktreeId));
}

/**
 * Detect the engine this project runs on. The engine its boxes are on, not
 * answering, absent or failing, is refused (exit 3) with the engine's own
 * words; a declined one refuses as detection always does. A first launch,
 * or a move to another engine, fails as detection fails.
 */
export async function detectProjectEngine(
  detect: Detect,
  ctx: ProjectContext,
  decision: EngineDecision,
  declined: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<ProjectEngine> {
  try {
    return { facts: await detect(decision.ask, declined, env), decision };
  } catch (error) {
    // The engine the project's boxes are on, whether `auto` or the config chose it.
    const held = decision.ask === decision.recorded ? decision.recorded : null;
    if (held !== null && (error instanceof EngineError || error instanceof AbsentToolError)) {
      throw projectEngineUnavailable(held, causeDetails(error), ctx.project.config, error);
    }
    throw error;
  }
}

/**
 * The engine facts for a verb that needs nothing else of the decision
 * (rebuild, dockerrun …), from its loaded config: the configured engine, and
 * the box-writable trees detection declines.
 */
export async function projectEngineFacts(
  detect: Detect,
  ctx: ProjectContext,
  loaded: { config: { engine: { value: 'auto' | EngineName } }; trees: readonly BoxTree[] },
  env: Readonly<Record<string, string | undefined>>,
): Promise<EngineFacts> {
  const decision = decideProjectEngine(ctx, loaded.config.engine.value);
  return (await detectProjectEngine(detect, ctx, decision, treeRoots(loaded.trees), env)).facts;
}

/** The engine a verb pinned before the setup lock, and the config's choice it was pinned under. */
export interface PinnedEngine {
  engine: Engine;
  choice: 'auto' | EngineName;
}

/**
 * Pin the engine (before the setup lock): the one the early read's config
 * picks for this project, detected, its warnings said, its adapter made.
 * develop passes the decision it announced; the others let it be made here.
 */
export async function pinEngine(
  io: Io,
  ctx: ProjectContext,
  deps: { detect: Detect; createEngine: (facts: EngineFacts, options: EngineOptions) => Engine },
  early: { config: { engine: { value: 'auto' | EngineName } }; trees: readonly BoxTree[] },
  decision: EngineDecision = decideProjectEngine(ctx, early.config.engine.value),
): Promise<PinnedEngine> {
  const declined = treeRoots(early.trees);
  const { facts } = await detectProjectEngine(deps.detect, ctx, decision, declined, io.env);
  printWarnings(io.stderr, facts.warnings);
  return { engine: deps.createEngine(facts, { env: io.env }), choice: early.config.engine.value };
}

const AGAIN: Readonly<Record<PinningVerb, string>> = {
  develop: 'run byre develop again',
  rebuild: 'run byre rebuild again',
  worktree: 'run the command again',
};

type PinningVerb = 'develop' | 'rebuild' | 'worktree';

/**
 * Under the setup lock: the config read again, and refused when it now
 * names another engine than the one pinned (another byre, or the user,
 * changed it meanwhile); what the verb does next is judged from this read.
 */
export async function rereadPinned(
  io: Io,
  ctx: ProjectContext,
  pinned: PinnedEngine,
  verb: PinningVerb,
): Promise<LoadedConfig> {
  const loaded = await loadBoxConfig(ctx, userHome(io));
  const now = loaded.config.engine.value;
  if (now !== pinned.choice) {
    throw new RefusedError(
      `the config's engine changed to "${now}" while byre was starting on ${pinned.engine.facts.name}`,
      { rule: `${verb}.engine-changed`, remedy: AGAIN[verb] },
    );
  }
  return loaded;
}
