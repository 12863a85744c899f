// The wall step: a posture skill's netns_init hook walls the box from
// outside, in a helper that finds the box by its run nonce and joins its
// network namespace (adr/0050). It runs beside the session; a wall that did
// not apply has stopped the box, and is reported when the box exits.

import type { Engine } from '../engine/engine.js';
import { helperEnv, type PostureFacts } from '../gen/posture.js';
import { runEnv, type RunParams } from '../gen/run-argv.js';
import { enforcePosture, type NetnsPlan } from '../network/netns.js';

/** The helper's plan for the box `params` creates; null when nothing walls it. */
export function netnsPlan(
  params: RunParams,
  posture: PostureFacts,
  keepId: boolean,
): NetnsPlan | null {
  if (posture.hook === null || params.labels.run === undefined) return null;
  return {
    nonce: params.labels.run,
    hook: posture.hook,
    image: params.image,
    env: helperEnv(Object.fromEntries(runEnv(params)), posture),
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
