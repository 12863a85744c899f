// The one shape every command takes its outside world in: engine detection,
// the engine adapter, the pool of installed engines, the y/N question, the
// clock and the process table. Each is optional; the real one is used when
// absent, so the CLI passes nothing and tests pass the fake engine.

import type { Confirm } from '../io.js';
import type { EnginePool } from '../engine/pool.js';
import { pidAlive, type PidAlive } from '../session/census.js';
import { detectEngine } from '../engine/detect.js';
import { storeProbeCache } from '../engine/facts-cache.js';
import { byreHome } from '../project/store-layout.js';
import type { Engine, EngineOptions } from '../engine/engine.js';
import { createEngine } from '../engine/runner.js';
import type { EngineFacts } from '../engine/types.js';

export type Detect = typeof detectEngine;

/** Detection that reuses the store's remembered probe answers (adr/0038); doctor asks fresh. */
const cachedDetect: Detect = (choice, declinedRoots, env, options = {}) =>
  detectEngine(choice, declinedRoots, env, {
    cache: storeProbeCache(byreHome(env), env, process.getuid?.()),
    ...options,
  });

export interface CommandDeps {
  /** Engine detection for the config's `engine` choice. */
  detect?: Detect;
  /** The adapter for what detection pinned. */
  createEngine?: (facts: EngineFacts, options: EngineOptions) => Engine;
  /** Every installed engine; built from PATH (with the pinned engine) unless given. */
  pool?: EnginePool;
  /** The y/N question before destroying state. */
  confirm?: Confirm;
  clock?: () => Date;
  /** Whether a host process still runs (a box's creating byre). */
  pidAlive?: PidAlive;
}

/** The deps with every real default filled in, except the pool and the confirmation, which need context. */
export function withDefaults(
  deps: CommandDeps,
): Required<Omit<CommandDeps, 'pool' | 'confirm'>> & Pick<CommandDeps, 'pool' | 'confirm'> {
  return {
    detect: deps.detect ?? cachedDetect,
    createEngine: deps.createEngine ?? createEngine,
    clock: deps.clock ?? (() => new Date()),
    pidAlive: deps.pidAlive ?? pidAlive,
    ...(deps.pool === undefined ? {} : { pool: deps.pool }),
    ...(deps.confirm === undefined ? {} : { confirm: deps.confirm }),
  };
}
