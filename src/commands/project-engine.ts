// Which engine a project's commands run on (adr/0053): `auto` picks one only
// for a project that never launched; after that it means the engine the
// project's boxes are on, and when that engine cannot be asked the command
// refuses, naming it and quoting its own error, rather than guessing another.
// Only a configured engine moves a project, and develop announces the move.

import { engineDecision, type EngineDecision } from '../box/engine-scope.js';
import { readRecordedEngine } from '../box/engine-record.js';
import { treeRoots } from '../box/writable-trees.js';
import type { BoxTree } from '../project/box-trees.js';
import { AbsentToolError } from '../engine/host-tools.js';
import type { EngineFacts, EngineName } from '../engine/types.js';
import { EngineError, RefusedError } from '../errors.js';
import { causeDetails } from '../output/render-error.js';
import type { ProjectContext } from '../project/context.js';
import type { Detect } from './deps.js';

export interface ProjectEngine {
  facts: EngineFacts;
  decision: EngineDecision;
}

const OTHER: Readonly<Record<EngineName, EngineName>> = { docker: 'podman', podman: 'docker' };

/** How to get a project's engine back, or move the project off it on purpose. */
function remedy(engine: EngineName, configFile: string): string {
  const back =
    engine === 'docker'
      ? 'start the Docker daemon, or point DOCKER_HOST (or the docker context) back at it'
      : 'fix podman as its own error above says (or point CONTAINER_HOST back at it)';
  const other = OTHER[engine];
  return `${back}, then run the command again; to move this project to ${other} instead, set engine = "${other}" in ${configFile} (byre config)`;
}

/**
 * The refusal when the engine a project's boxes are on cannot be asked:
 * `details` is what went wrong, in the engine's own words (`causeDetails`
 * of detection's error, or `unansweredDetails` of a pool answer).
 */
export function projectEngineUnavailable(
  engine: EngineName,
  details: readonly string[],
  configFile: string,
  cause?: unknown,
): RefusedError {
  return new RefusedError(
    `this project's boxes are on ${engine}, and ${engine} cannot be asked; byre does not guess another engine`,
    {
      rule: 'engine.project-unavailable',
      details,
      remedy: remedy(engine, configFile),
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/** A failed pool answer as refusal details, laid out as `causeDetails` lays out an engine error. */
export function unansweredDetails(answer: {
  name: EngineName;
  message: string;
  said?: string;
}): string[] {
  const said = answer.said === undefined ? [] : [`  ${answer.name} said:`, `    ${answer.said}`];
  return [answer.message, ...said];
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
