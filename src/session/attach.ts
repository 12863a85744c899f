// The attach step, outside the setup lock: the banner, the box's edge
// awaited running (when it injects: the box joins its network, adr/0079),
// then the box started in the foreground with the wall, the credentials'
// delivery and the reaping of stale launch records beside it; after it exits, the exit
// report, then the session's outcome: the bind proof's refusal, a failed
// delivery or wall (each stopped the box: fail closed), the box's own
// failure, or the agent's exit status passed through.

import type { BoxProof } from '../containment/bind-pins.js';
import { bindProofRefusal } from '../containment/bind-pins.js';
import { interpretExit } from './exit-status.js';
import { ByreError, PassthroughExit } from '../errors.js';
import { BIND_PROOF_EXIT } from '../gen/bind-proof.js';
import { escapeTerminal } from '../output/escape.js';
import { say } from '../output/notes.js';
import { causeDetails } from '../output/render-error.js';
import type { SessionContext } from './context.js';
import { deliverBeside, dropBoxEdge } from './credentials.js';
import type { PreparedSession } from './prepare.js';
import { reapQuietly } from './record.js';
import { reportSession, sessionSnapshots } from './report.js';
import { wallBeside } from './wall.js';
import { keepWallSession } from '../network/wall-log.js';
import { endWall, wallHelperName, type NetnsPlan } from '../network/netns.js';

type Failure = { error: unknown } | null;

/** What ended the session, after its report: the error to throw, or null for a clean exit 0. */
export function sessionOutcome(
  code: number,
  proof: BoxProof | null,
  credentialFailure: Failure,
  wallFailure: Failure,
): Error | null {
  if (proof !== null && code === BIND_PROOF_EXIT) {
    return bindProofRefusal(
      'byre stopped this box before anything ran in it',
      proof.binds,
      proof.proven,
    );
  }
  if (credentialFailure !== null) {
    const { error } = credentialFailure;
    return new ByreError(
      'the credentials were not delivered, so the box was stopped (fail closed):',
      {
        rule: 'develop.credentials-failed',
        details: causeDetails(error),
        remedy: 'fix the cause above; `byre status` shows the credential rows',
        cause: error,
      },
    );
  }
  if (wallFailure !== null) {
    const { error } = wallFailure;
    return new ByreError('the network wall did not apply, so the box was stopped (fail closed):', {
      rule: 'develop.firewall-failed',
      details: causeDetails(error),
      remedy: 'fix the cause above; `byre status` shows the posture and allowlist',
      cause: error,
    });
  }
  const outcome = interpretExit(code);
  if (outcome.kind === 'failed')
    return new ByreError(outcome.message, { rule: 'develop.box-exit' });
  return outcome.code === 0 ? null : new PassthroughExit(outcome.code);
}

/**
 * The box's edge running (its helper's id), before the box starts: it runs
 * in the edge's network. Null when the box injects nothing. When the edge
 * failed, the box is removed, never started (fail closed); the box's
 * launcher waits at its edge gate for the edge to be ready (adr/0084).
 */
async function edgeUp(
  engine: SessionContext['engine'],
  prepared: PreparedSession,
): Promise<string | null> {
  if (prepared.edge === null) return null;
  try {
    await prepared.edge.up;
    return await prepared.edge.created;
  } catch (error) {
    await engine.remove(prepared.name).catch(() => false);
    await dropBoxEdge(engine, prepared.edge);
    throw sessionOutcome(0, null, { error }, null) ?? error;
  }
}

/** The wall's plan, told the edge whose network the box joins. */
function withEdge(plan: NetnsPlan | null, edgeId: string | null): NetnsPlan | null {
  return plan === null || edgeId === null ? plan : { ...plan, edgeId };
}

/** Start the created box attached, with its outside-the-box steps beside it, and end as it ended. */
export async function attachSession(
  s: Pick<SessionContext, 'io' | 'ctx' | 'engine' | 'pool' | 'selfEdit' | 'clock'>,
  prepared: PreparedSession,
): Promise<void> {
  const { io, ctx, engine } = s;
  for (const line of prepared.banner) io.stderr.write(`${escapeTerminal(line)}\n`);
  const edgeId = await edgeUp(engine, prepared);
  const reaping = reapQuietly(s.pool, ctx, prepared.launchHash);
  const walling = wallBeside(engine, withEdge(prepared.netns, edgeId));
  // Said after the session: the agent's terminal is the box's meanwhile.
  const after: string[] = [];
  const delivering = deliverBeside(
    engine,
    ctx.project.receipts,
    prepared.launchHash,
    { boxId: prepared.boxId, delivery: prepared.credentials, edge: prepared.edge },
    (message) => after.push(message),
  );
  const before = sessionSnapshots(ctx, s.selfEdit);
  let code: number;
  let credentialFailure: Failure;
  let wallFailure: Failure;
  try {
    code = await engine.startAttached(prepared.name, { tty: io.stdinIsTty });
    [credentialFailure, , wallFailure] = await Promise.all([delivering, reaping, walling]);
    // What the wall refused, read before its helper goes (adr/0064).
    await keepWallSession(
      engine,
      {
        launchesDir: ctx.project.launches,
        worktreeId: ctx.worktreeId,
        launch: prepared.launchHash,
        helper:
          prepared.netns === null || wallFailure !== null ? null : wallHelperName(prepared.name),
      },
      s.clock(),
    );
  } finally {
    // The wall's and the edge's helpers run for the session (adr/0063,
    // adr/0070); they end with it: the wall's, then the box that it joined
    // (which the engine's --rm could not remove), then the edge whose
    // network the box joined (adr/0079).
    if (prepared.netns !== null || prepared.edge !== null) {
      await Promise.all([walling, delivering]);
      if (prepared.netns !== null) await endWall(engine, prepared.name);
      await engine.remove(prepared.name).catch(() => false);
      if (prepared.edge !== null) await dropBoxEdge(engine, prepared.edge);
    }
  }
  reportSession(io, ctx, before);
  for (const message of after) say(io.stderr, message, 'warning');
  const ending = sessionOutcome(code, prepared.proof, credentialFailure, wallFailure);
  if (ending !== null) throw ending;
}
