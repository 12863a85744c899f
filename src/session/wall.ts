// The wall step: a posture skill's netns_init hook walls the box from
// outside, in a helper that finds the box by its run nonce and joins its
// network namespace (adr/0050). It runs beside the session; a wall that did
// not apply has stopped the box, and is reported when the box exits.

import type { Engine } from '../engine/engine.js';
import { helperEnv, type PostureFacts } from '../gen/posture.js';
import { runEnv, type RunParams } from '../gen/run-argv.js';
import { enforcePosture, type NetnsPlan } from '../network/netns.js';

/** The created box the wall is for, and what its helper is told. */
interface WallTarget {
  /** The box's container name (names its helper) and id (as its create returned it). */
  box: string;
  boxId: string;
  /** The box's project id (labels its helper). */
  project: string;
  /** Rootless podman: the helper joins the box's user namespace. */
  keepId: boolean;
  /** The host's BYRE_WALL_UPSTREAM (adr/0063). */
  upstream?: string | undefined;
  /** The injected `name:port`s the wall admits the edge to (adr/0070). */
  edgeHosts?: readonly string[] | undefined;
}

/** The helper's plan for the box `params` created; null when nothing walls it. */
export function netnsPlan(
  params: RunParams,
  posture: PostureFacts,
  target: WallTarget,
): NetnsPlan | null {
  if (posture.hook === null) return null;
  const { box, boxId, project, keepId, upstream, edgeHosts = [] } = target;
  return {
    boxId,
    project,
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
