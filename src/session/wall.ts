// The wall step: a posture skill's netns_init hook walls the box from
// outside, in a helper that finds the box by its run nonce and joins its
// network namespace (adr/0050). It runs beside the session; a wall that did
// not apply has stopped the box, and is reported when the box exits.

import type { Engine } from '../engine/engine.js';
import { helperEnv, type PostureFacts } from '../gen/posture.js';
import { runEnv, type RunParams } from '../gen/run-argv.js';
import { enforcePosture, type NetnsPlan } from '../network/netns.js';

/**
 * The helper's plan for the box `params` creates, named `box`; null when
 * nothing walls it. `upstream` is the host's BYRE_WALL_UPSTREAM (adr/0063);
 * `edgeHosts` the injected `name:port`s the wall admits the edge to (adr/0070).
 */
export function netnsPlan(
  params: RunParams,
  posture: PostureFacts,
  keepId: boolean,
  box: string,
  upstream?: string,
  edgeHosts: readonly string[] = [],
): NetnsPlan | null {
  if (posture.hook === null || params.labels.run === undefined) return null;
  return {
    nonce: params.labels.run,
    box,
    hook: posture.hook,
    image: params.image,
    env: helperEnv(Object.fromEntries(runEnv(params)), posture, params.uid, upstream, edgeHosts),
    joinUserns: keepId,
  };
}

/** Wall the box beside its start; the failure, kept to report after it exits. */
export async function wallBeside(
  engine: Engine,
  plan: NetnsPlan | null,
): Promise<{ error: unknown } | null> {
  if (plan === null) return null;
  try {
    await enforcePosture(engine, plan);
    return null;
  } catch (error) {
    return { error };
  }
}
