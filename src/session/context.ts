// What one launch carries from step to step (src/session/): where it runs,
// the engine it was pinned to, the pool the session questions ask, and the
// config as read under the setup lock with what it was judged to need. Each
// step takes only the part it uses (a `Pick` of these), so a step's inputs
// say what it can touch. Types only.

import type { Io } from '../io.js';
import type { EnginePool } from '../engine/pool.js';
import type { PidAlive } from './census.js';
import type { BindPins } from '../containment/bind-pins.js';
import type { EffectiveConfig } from '../config/types.js';
import type { DeliveredValue } from '../credentials/channel.js';
import type { Engine, ImageInfo } from '../engine/engine.js';
import type { BuildPlan } from '../gen/plan.js';
import type { HostEnvEntry } from '../hostenv/resolve.js';
import type { ProjectContext } from '../project/context.js';
import type { BoxTree } from '../project/box-trees.js';
import type { ResolvedSkill } from '../skills/types.js';
import type { EdgeLaunch } from './edge.js';
import type { EarlyEdge } from './early-edge.js';

/** Where and with what this launch runs: fixed before the setup lock is taken. */
export interface SessionContext {
  io: Io;
  ctx: ProjectContext;
  /** The user's home, for `~` in host paths. */
  home: string;
  /** The engine detection pinned for this launch. */
  engine: Engine;
  /** Every installed engine, for the session questions (adr/0032). */
  pool: EnginePool;
  /** Whether a host process still runs (a box's creating byre). */
  alive: PidAlive;
  clock: () => Date;
  /** `--self-edit`: this project's store read-write in the box. */
  selfEdit: boolean;
  /** Stream the engine's whole build log instead of byre's progress line. */
  verbose: boolean;
  /**
   * The project's edge image as the engine has it, asked before the setup
   * lock (a read) when the config read then injects: the edge starts as
   * soon as it is known current (adr/0079). Absent: asked under the lock,
   * when it must be.
   */
  edgeImage?: Promise<ImageInfo | null>;
  /**
   * The edge image last found current on this engine (adr/0083), read
   * before the setup lock: the early edge runs on it without asking, and
   * once the engine has made that edge the image exists, so the lock's path
   * asks nothing either.
   */
  recordedEdgeImage?: string;
  /**
   * The edge started before the setup lock from the config read then
   * (adr/0080), or null when it could not be; adopted under the lock when
   * its plan still holds. Absent: none was tried.
   */
  earlyEdge?: Promise<EarlyEdge | null>;
}

/** The config as read under the setup lock, and what was judged from it before anything is created. */
export interface LaunchInputs {
  config: EffectiveConfig;
  skills: ResolvedSkill[];
  /** The box-writable trees (adr/0046). */
  trees: BoxTree[];
  plan: BuildPlan;
  hostEnv: HostEnvEntry[];
  /** Every bind source pinned (adr/0045); null when the engine runs elsewhere. */
  pins: BindPins | null;
  /** Why the binds cannot be proven (the engine runs elsewhere); null when they can. */
  elsewhere: string | null;
  /** The credential rows' values, opened with the passphrase asked before the lock. */
  credentials: DeliveredValue[];
  /** The edge's part of the launch (adr/0070); null when nothing is injected. */
  edge: EdgeLaunch | null;
}
