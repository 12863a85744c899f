// The launch's first steps under the setup lock: claim this worktree's
// session (refused when one runs, or cannot be ruled out, on any engine that
// can hold it; adr/0032), record the engines asked, and refuse a
// `sharing = "exclusive"` volume another live box of the project holds.

import type { EnginePool } from '../engine/pool.js';
import { openAnswers, poolOf } from '../engine/pool.js';
import { readEngineRecord, readRecordedEngine, writeEngineRecord } from './engine-record.js';
import {
  formatEngineRecord,
  projectEngineUnavailable,
  sessionEngines,
  unansweredDetails,
} from '../engine/engine-scope.js';
import { censusSessions, describeUnchecked, type LiveBox, type SessionScan } from './census.js';
import type { PlannedVolume } from './volume-ops.js';
import type { EffectiveConfig } from '../config/types.js';
import type { EngineName } from '../engine/types.js';
import { RefusedError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import { readLaunchRecordFile, verifyLaunchRecord } from '../launch/verify.js';
import type { SessionContext } from './context.js';

type Claim = Pick<SessionContext, 'pool' | 'ctx' | 'alive'> & { selfPid: number };

/** The refusal when this worktree's session already runs, with the ways back into it. */
function liveSessionRefusal(box: Pick<LiveBox, 'id' | 'engineName'>): RefusedError {
  const short = box.id.slice(0, 12);
  const e = box.engineName;
  return new RefusedError(`a session is already running for this directory (${short}).`, {
    rule: 'develop.session-live',
    details: [
      `• re-attach to it:     ${e} attach --detach-keys=ctrl-p,ctrl-q ${short}`,
      '• open a shell in it:  byre shell',
      `• stop it:             ${e} stop ${short}`,
    ],
  });
}

/**
 * The refusal when the engine this box would start on did not answer the
 * census, or null when it did. Detection may have answered from memory
 * (adr/0038); the engine itself must answer now.
 */
function launchingEngineRefusal(
  unchecked: SessionScan['unchecked'],
  launching: EngineName,
  recorded: EngineName | null,
  configFile: string,
): RefusedError | null {
  const mine = unchecked.find((u) => u.name === launching);
  if (mine === undefined) return null;
  // The engine the project's boxes are on (adr/0053): refused as detection refuses it.
  if (mine.name === recorded) {
    return projectEngineUnavailable(mine.name, unansweredDetails(mine), configFile);
  }
  return new RefusedError(
    `${launching}, the engine this box would start on, cannot be asked: ${describeUnchecked([mine])}`,
    {
      rule: 'develop.engine-unavailable',
      remedy: `fix ${launching} as its own words above say, then run byre develop again`,
    },
  );
}

/**
 * Refuse when a session runs here on any engine (or is being started by
 * another byre), or when one cannot be ruled out; then remove the boxes a
 * gone byre left created (a crash between create and start), which block the
 * name. Runs under the setup lock, so no other byre creates a box meanwhile.
 * The engines that could not be asked are returned, to be asked next time.
 */
async function claimSession(
  s: Claim,
  launching: EngineName,
  recorded: EngineName | null,
): Promise<EngineName[]> {
  const { ctx } = s;
  const census = await censusSessions(
    s.pool,
    { projectId: ctx.projectId, worktreeId: ctx.worktreeId },
    s.alive,
    s.selfPid,
  );
  const live = census.boxes[0];
  if (live !== undefined) throw liveSessionRefusal(live);
  const refusal = launchingEngineRefusal(census.unchecked, launching, recorded, ctx.project.config);
  if (refusal !== null) throw refusal;
  const unknown = openAnswers(census.unchecked);
  if (unknown.length > 0) {
    throw new RefusedError(`cannot rule out a running session: ${describeUnchecked(unknown)}`, {
      rule: 'develop.session-unknown',
      remedy: 'fix the engine named above, or uninstall it from PATH',
    });
  }
  for (const box of census.stale) await box.engine.remove(box.id);
  // Down or refusing this user: no session there now, but asked again next time.
  return census.unchecked.map((u) => u.name);
}

/**
 * The single-session check over the engines that can hold this worktree's
 * session (adr/0032), then the engine record for the next check: this
 * launch's engine and the engines this check could not ask. Under the lock.
 */
export async function claimAndRecord(
  s: Claim,
  configured: EffectiveConfig['engine']['value'],
  launching: EngineName,
): Promise<void> {
  const { ctx } = s;
  const own = readEngineRecord(ctx.project.dir, ctx.worktreeId);
  const recorded = own?.last ?? readRecordedEngine(ctx.project, ctx.worktreeId);
  const asked: EnginePool = poolOf(s.pool, sessionEngines(configured, own));
  const unresolved = await claimSession({ ...s, pool: asked }, launching, recorded);
  const next = { last: launching, unresolved };
  if (own !== null && formatEngineRecord(own) === formatEngineRecord(next)) return;
  await writeEngineRecord(ctx.project.dir, ctx.worktreeId, next);
}

/**
 * `sharing = "exclusive"` volumes: refuse when a live box of this project
 * holds one, or when byre cannot establish that none does.
 */
export async function checkExclusiveVolumes(
  s: Claim,
  volumes: readonly PlannedVolume[],
): Promise<void> {
  const { ctx } = s;
  const exclusive = volumes.filter((v) => v.decl.sharing === 'exclusive');
  if (exclusive.length === 0) return;
  const scan = await censusSessions(s.pool, { projectId: ctx.projectId }, s.alive, s.selfPid);
  const names = exclusive.map((v) => v.decl.name).join(', ');
  if (openAnswers(scan.unchecked).length > 0) {
    throw new RefusedError(
      `cannot prove no box holds the exclusive volume(s) ${names}: ${describeUnchecked(scan.unchecked)}`,
      {
        rule: 'develop.exclusive-unknown',
      },
    );
  }
  for (const box of scan.boxes) {
    const labels = await box.engine.inspectLabels(box.id);
    const state = verifyLaunchRecord(labels[LABEL.launch], (hash) =>
      readLaunchRecordFile(ctx.project.launches, hash),
    );
    if (state.kind !== 'verified') {
      throw new RefusedError(
        `box ${box.id.slice(0, 12)} of this project is live and its launch record is ${state.kind}; byre cannot prove it does not hold ${names}`,
        {
          rule: 'develop.exclusive-unknown',
          remedy: `stop it (${box.engineName} stop ${box.id.slice(0, 12)}) first`,
        },
      );
    }
    const held = exclusive.find((v) => state.record.volumes.some((r) => r.name === v.name));
    if (held !== undefined) {
      throw new RefusedError(
        `volume ${held.decl.name} is exclusive and box ${box.id.slice(0, 12)} (${state.record.workdir}) holds it`,
        {
          rule: 'develop.exclusive-held',
          remedy: `stop that session first (${box.engineName} stop ${box.id.slice(0, 12)})`,
        },
      );
    }
  }
}
