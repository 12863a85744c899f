// The ensure-the-image step, as develop, rebuild and `byre worktree` ask it:
// the project's build context staged from the plan and built unless an image
// already carries its digest (adr/0003); and the image's id as the launch
// record names it.

import type { Io } from '../io.js';
import { buildProgressFor } from './build-progress.js';
import { ensureEdgeImage, lookUpEdgeImage } from './edge-image.js';
import { recordEdgeImage } from './edge-image-record.js';
import { ensureImage, type ImageOutcome } from './image-build.js';
import type { WiringDelivery } from './bound-wiring.js';
import type { EffectiveConfig } from '../config/types.js';
import type { Engine, ImageInfo } from '../engine/engine.js';
import { bakedIds, edgeImageTag, imageTag } from '../gen/names.js';
import type { BuildPlan } from '../gen/plan.js';
import type { ProjectContext } from '../project/context.js';
import { storeTag } from '../project/store-layout.js';

/** The project's image tag and the ids baked into it, for this engine and host user. */
export interface ProjectImage {
  tag: string;
  uid: number;
  gid: number;
}

export function projectImage(
  projectId: string,
  keepId: boolean,
  host: { uid: number; gid: number },
): ProjectImage {
  const ids = bakedIds(keepId, host.uid, host.gid);
  return { tag: imageTag(projectId, ids.uid, ids.gid), ...ids };
}

interface ImageOptions {
  /** `rebuild`: build without the engine's layer cache. */
  noCache: boolean;
  /** byre's progress line (or, verbose, the engine's whole log); absent, the log streams raw. */
  progress?: { io: Io; verbose: boolean };
  /** Locate an unpullable base in the config's layers, for the error. */
  locateBase?: boolean;
  /** Whether the box image carries the wiring or the box binds it (adr/0075). */
  wiring: WiringDelivery;
}

/** Build this project's image from `plan` unless it is current; under the setup lock. */
export async function ensureProjectImage(
  engine: Engine,
  ctx: ProjectContext,
  loaded: { config: EffectiveConfig; plan: BuildPlan },
  image: ProjectImage,
  options: ImageOptions,
): Promise<ImageOutcome> {
  const { config } = loaded;
  const progress = options.progress;
  return ensureImage({
    engine,
    plan: loaded.plan,
    contextDir: ctx.project.context,
    wiringContextDir: ctx.project.wiringContext,
    projectDir: ctx.projectRoot,
    projectId: ctx.projectId,
    storeTag: storeTag(ctx.store.home),
    tag: image.tag,
    base: config.base.value,
    uid: image.uid,
    gid: image.gid,
    noCache: options.noCache,
    wiring: options.wiring,
    ...(progress === undefined
      ? {}
      : { progress: buildProgressFor(progress.io, ctx.project.buildLog, progress.verbose) }),
    ...(options.locateBase === true
      ? { baseFrom: { from: config.base.from, projectConfig: ctx.project.config } }
      : {}),
  });
}

/** The project's edge image (adr/0077) under its tag, asked beside the box image's checks. */
export function lookUpProjectEdgeImage(
  engine: Engine,
  ctx: Pick<ProjectContext, 'projectId'>,
): Promise<ImageInfo | null> {
  return lookUpEdgeImage(engine, edgeImageTag(ctx.projectId));
}

/**
 * The project's edge image's id, built when it must be (always under
 * `rebuild`'s noCache), with its own progress line and log beside the box
 * image's; `known` is what lookUpProjectEdgeImage already asked. Recorded
 * as the one current (adr/0083): the next launch's early edge runs on it.
 */
export async function ensureProjectEdgeImage(
  engine: Engine,
  io: Io,
  ctx: Pick<ProjectContext, 'project' | 'projectId' | 'store'>,
  options: { noCache: boolean; verbose: boolean },
  known?: Promise<ImageInfo | null>,
): Promise<string> {
  const id = await ensureEdgeImage(
    {
      engine,
      tag: edgeImageTag(ctx.projectId),
      owner: { projectId: ctx.projectId, storeTag: storeTag(ctx.store.home) },
      stagingDir: ctx.project.edgeImageContext,
      noCache: options.noCache,
      progress: buildProgressFor(io, ctx.project.edgeBuildLog, options.verbose, 'the edge image'),
    },
    known,
  );
  await recordEdgeImage(ctx.project.edgeImageRecord, engine.facts.name, id).catch(() => undefined);
  return id;
}

/** The image as the launch record names it; an id that cannot be asked is recorded as such. */
interface ImageDigest {
  digest: string;
  digestError?: string;
}

/** The image id the launch record names: known when the build was skipped, asked after one. */
export async function imageDigest(
  engine: Pick<Engine, 'imageId'>,
  tag: string,
  image: ImageOutcome,
): Promise<ImageDigest> {
  if (!image.built) return { digest: image.imageId };
  try {
    return { digest: await engine.imageId(tag) };
  } catch (error) {
    return { digest: '', digestError: error instanceof Error ? error.message : String(error) };
  }
}
