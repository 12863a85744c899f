// The box's edge started before the setup lock (adr/0080). The config read
// before the lock decides the edge's whole create argv (its image, the
// box's host entries, the TLS ports, the user namespace) but none of its
// values, which the lock's read opens: so the helper is made and started
// then, listening and waiting on its stdin, while byre asks the passphrase,
// waits for the lock and checks the box's image. Under the lock the edge
// the launch needs is planned afresh; an early one with the same argv is
// adopted (its values written to it), any other dropped. It never takes a
// name from another launch: the engine refuses its run when the name is held
// (a live session's edge, or a crashed one's, which the lock's path removes).

import type { EffectiveConfig } from '../config/types.js';
import type { Engine, ImageInfo } from '../engine/engine.js';
import type { Io } from '../io.js';
import type { ProjectContext } from '../project/context.js';
import { edgeNetworkFlags } from '../gen/run-argv.js';
import { edgeOwnedRunArgs } from '../gen/run-args-scan.js';
import { rawRunArgTokens } from '../status/model.js';
import type { ResolvedSkill } from '../skills/types.js';
import { edgeCreateArgv } from '../network/edge.js';
import { containerName } from '../gen/names.js';
import { edgePlan, startedEdge, type BoxEdge, type EdgeStart } from './credentials.js';
import { currentEdgeImage } from './edge-image.js';
import { lookUpProjectEdgeImage } from './image.js';
import { recordedEdgeImage } from './edge-image-record.js';
import { edgeShape } from './edge.js';

/** An edge started before the setup lock, waiting for its values. */
export interface EarlyEdge {
  /** The image it runs on. */
  image: string;
  /** Whether the engine made its container (then that image exists). */
  made: Promise<boolean>;
  /**
   * The box's edge, when this one is what the lock's read plans (the same
   * create argv) and still runs: its values written, it is the launch's.
   * Else it is dropped, and null says to start one afresh.
   */
  adopt(start: EdgeStart): Promise<BoxEdge | null>;
  /** End it and remove its helper (by id); nothing once adopted or dropped. */
  drop(): Promise<void>;
}

/** Same argv, element by element. */
function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Start an edge whose values come later; `feed` gives them, `withhold` ends it unfed. */
function edgeAwaitingValues(
  engine: Engine,
  shape: Omit<EdgeStart, 'launch'> & EdgeEndpoints,
): EarlyEdge {
  let feed: (input: string) => void = () => undefined;
  let withhold: () => void = () => undefined;
  const input = new Promise<string>((resolve, reject) => {
    feed = resolve;
    withhold = () => reject(new Error('dropped'));
  });
  // Not unhandled when it is withheld before the helper reads it.
  input.catch(() => undefined);
  const { ports, upstreamAddress, ...where } = shape;
  const launch = { ports, input, ...(upstreamAddress === undefined ? {} : { upstreamAddress }) };
  const plan = edgePlan({ ...where, launch });
  const argv = edgeCreateArgv(plan);
  const edge = startedEdge(engine, plan, false);
  let failed = false;
  edge.started.catch(() => {
    failed = true;
  });
  const made = edge.created.then(
    () => true,
    () => false,
  );
  let settled = false;
  const drop = async (): Promise<void> => {
    if (settled) return;
    settled = true;
    withhold();
    // It closes its stdin and removes its helper by id (startEdge).
    await edge.started.catch(() => undefined);
  };
  return {
    image: shape.image,
    made,
    async adopt(start) {
      const wanted = edgeCreateArgv(edgePlan(start));
      if (settled || !(await made) || failed || !sameArgv(argv, wanted)) {
        await drop();
        return null;
      }
      settled = true;
      feed(start.launch.input);
      return { launch: start.launch, ...edge };
    },
    drop,
  };
}

type EdgeEndpoints = Pick<EdgeStart['launch'], 'ports' | 'upstreamAddress'>;

/**
 * What develop knows of the edge's image before the setup lock, when the
 * config read then injects: the image recorded current (adr/0083), else
 * the engine's answer about the one under the edge tag, asked now (a read,
 * beside the passphrase and the lock's wait).
 */
export function edgeImageBeforeLock(
  engine: Engine,
  ctx: Pick<ProjectContext, 'project' | 'projectId'>,
  injects: boolean,
): { recordedEdgeImage?: string; edgeImage?: Promise<ImageInfo | null> } {
  if (!injects) return {};
  const recorded = recordedEdgeImage(ctx.project.edgeImageRecord, engine.facts.name);
  return recorded === null
    ? { edgeImage: lookUpProjectEdgeImage(engine, ctx) }
    : { recordedEdgeImage: recorded };
}

/**
 * The edge for the config read before the lock, started now (on the edge
 * image recorded current, adr/0083, else once the engine says the one
 * under its tag is); null when it cannot be known then: nothing injected,
 * the edge image to be built, or ports to publish (the edge owns them, and
 * their host ports are chosen under the lock, beside the project's other
 * sessions); or when the launch is refused anyway.
 */
export async function startEarlyEdge(
  s: {
    io: Pick<Io, 'env'>;
    ctx: Pick<ProjectContext, 'worktreeId' | 'projectId'>;
    engine: Engine;
    /** The edge image as known before the lock (SessionContext's, edgeImageBeforeLock). */
    edgeImage?: Promise<ImageInfo | null>;
    recordedEdgeImage?: string;
  },
  early: { config: EffectiveConfig; skills: readonly ResolvedSkill[] },
): Promise<EarlyEdge | null> {
  const { engine, ctx } = s;
  const { config } = early;
  if (config.injections.length === 0 || config.ports.length > 0) return null;
  // run_args the lock's read refuses for an injecting box (edge.run-args): nothing is made for them.
  if (edgeOwnedRunArgs(rawRunArgTokens(config, early.skills).map((t) => t.value)).length > 0)
    return null;
  // The image last found current runs it at once (adr/0083); else the engine's answer about the tag.
  const image =
    s.recordedEdgeImage ??
    currentEdgeImage(engine.facts.name, (await s.edgeImage?.catch(() => null)) ?? null);
  if (image === null) return null;
  const shape = edgeShape(config.injections, s.io.env);
  return edgeAwaitingValues(engine, {
    box: containerName(ctx.worktreeId),
    project: ctx.projectId,
    image,
    network: edgeNetworkFlags({
      edgeHosts: shape.hostEntries,
      ports: [],
      keepId: engine.facts.keepId,
      engine: engine.facts.name,
    }),
    ports: shape.ports,
    ...(shape.upstreamAddress === undefined ? {} : { upstreamAddress: shape.upstreamAddress }),
  });
}
