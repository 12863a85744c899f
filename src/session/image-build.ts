// Stage the build contexts and make sure the box image matches them, as two
// builds (adr/0073): the base image (everything but the wiring, tagged
// `<tag>-base`) is skipped while it carries the digest of its own context,
// FROM image id and baked ids; the box image is the wiring's COPY on the
// base's id, skipped while it carries the digest of the wiring and that id
// (adr/0003). `rebuild` builds both. Where the wiring is bound at run time
// (rootless podman, adr/0075) the box image is the base's Dockerfile alone,
// built under the box's tag: no wiring, no second build.

import path from 'node:path';

import type { LayerRef } from '../config/types.js';
import { ByreError, EngineError } from '../errors.js';
import type { BuildPlan } from '../gen/plan.js';
import { stageBuildContext } from './stage.js';
import {
  labelInstruction,
  renderBaseDockerfile,
  renderWiringDockerfile,
} from '../gen/dockerfile.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { baseImageTag } from '../gen/names.js';
import type { Engine, ImageInfo } from '../engine/engine.js';
import { baseImageError, locateBase } from './base-image.js';
import { pullFailureReason } from './build-steps.js';
import type { WiringDelivery } from './bound-wiring.js';
import type { BuildProgress } from './build-progress.js';
import { listContextFiles, plannedContextFiles } from './context-digest.js';
import {
  BASE_CONTEXT_LABEL,
  CONTEXT_LABEL,
  baseDigest,
  baseLabels,
  boundBoxDigest,
  boxDigest,
  boxLabels,
  splitPlan,
  type DigestScope,
} from './image-parts.js';

/**
 * The Dockerfiles the engine builds, each with one LABEL line at its end;
 * written after the digests, so never part of one (adr/0069).
 */
const BASE_DOCKERFILE = 'Dockerfile.labelled';
const BOX_DOCKERFILE = 'Dockerfile.wiring';

interface ImageRequest {
  engine: Engine;
  plan: BuildPlan;
  /** The base image's context: the plan without its wiring. */
  contextDir: string;
  /** The box image's context: the wiring alone, and its Dockerfile. */
  wiringContextDir: string;
  /** Where `files` sources are read: the main worktree (the image is the whole project's). */
  projectDir: string;
  projectId: string;
  /** storeTag of the store building it (adr/0015). */
  storeTag: string;
  tag: string;
  base: string;
  uid: number;
  gid: number;
  noCache: boolean;
  /** Whether the box image carries the wiring or the box binds it (adr/0075). */
  wiring: WiringDelivery;
  /** Started only when the engine builds; absent, the engine's output streams to stderr raw. */
  progress?: () => BuildProgress;
  /** The layer that set `base` and the project's config file, to locate an unpullable base. */
  baseFrom?: { from: LayerRef; projectConfig: string };
}

/** `imageId` is known when the build was skipped (the existing image's id). */
export type ImageOutcome =
  { built: true; digest: string | null } | { built: false; digest: string; imageId: string };

/** One build's progress, shared by both builds: one line, one log, one "built" at the end. */
interface Run {
  req: ImageRequest;
  fromWasMissing: boolean;
  progress: BuildProgress | undefined;
  /** An engine build was started (the progress with it). */
  started: boolean;
  /** The progress was told how the run ended. */
  settled: boolean;
}

/** A run not yet started, its FROM image missing when no id was found. */
function freshRun(req: ImageRequest, fromId: string | null): Run {
  return {
    req,
    fromWasMissing: fromId === null,
    progress: undefined,
    started: false,
    settled: false,
  };
}

/**
 * The FROM image and, unless the build is uncached, byre's `tags`, each
 * null when absent (the FROM image also when asking failed: the build then
 * says why). A warm launch finds them all: one engine call for all of them,
 * else one each.
 */
async function imageInfos(
  req: ImageRequest,
  tags: readonly string[],
): Promise<(ImageInfo | null)[]> {
  const from = (): Promise<ImageInfo | null> => req.engine.imageInfo(req.base).catch(() => null);
  if (req.noCache) return [await from(), ...tags.map(() => null)];
  const all = await req.engine.imageInfoAll([req.base, ...tags]).catch(() => null);
  return all ?? Promise.all([from(), ...tags.map((t) => req.engine.imageInfo(t))]);
}

export async function ensureImage(req: ImageRequest): Promise<ImageOutcome> {
  if (req.wiring === 'bound') return ensureBoundImage(req);
  const baseTag = baseImageTag(req.tag);
  const [from = null, base = null, box = null] = await imageInfos(req, [baseTag, req.tag]);
  const fromId = from?.id ?? null;
  const scope: DigestScope = { engine: req.engine.facts.name, uid: req.uid, gid: req.gid };
  const parts = splitPlan(req.plan);
  const owner = { projectId: req.projectId, storeTag: req.storeTag };
  // The proof without staging: when every context file comes from the plan's
  // own bytes, both digests are known before anything is written, and images
  // that carry them were built from exactly these contexts.
  const plannedBase = plannedContextFiles(parts.base);
  const plannedWiring = plannedContextFiles(parts.wiring);
  let baseId: string | null = null;
  if (fromId !== null && base !== null && plannedBase !== null) {
    if (base.labels[BASE_CONTEXT_LABEL] === baseDigest(plannedBase, fromId, scope)) {
      baseId = base.id;
    }
  }
  if (baseId !== null && box !== null && plannedWiring !== null) {
    const digest = boxDigest(plannedWiring, baseId, scope);
    if (box.labels[CONTEXT_LABEL] === digest) return { built: false, digest, imageId: box.id };
  }
  const run = freshRun(req, fromId);
  try {
    baseId ??= await ensureBase(run, base, baseTag, fromId, scope, owner, parts.base);
    return await ensureBox(run, box, baseId, scope, owner, parts.wiring);
  } catch (error) {
    // A failure between the two builds (staging, the base's id): the line goes.
    if (!run.settled) run.progress?.failed({ printLog: false });
    throw error;
  }
}

/**
 * The box image without its wiring (adr/0075): the base's Dockerfile built
 * under the box's tag, skipped while it carries the digest of that context,
 * its FROM image's id and the baked ids, marked as built for a bound wiring
 * so an image that carries the wiring is never taken for it, nor the reverse.
 */
async function ensureBoundImage(req: ImageRequest): Promise<ImageOutcome> {
  const [from = null, box = null] = await imageInfos(req, [req.tag]);
  const fromId = from?.id ?? null;
  const scope: DigestScope = { engine: req.engine.facts.name, uid: req.uid, gid: req.gid };
  const plan = splitPlan(req.plan).base;
  const planned = plannedContextFiles(plan);
  if (fromId !== null && box !== null && planned !== null) {
    const digest = boundBoxDigest(planned, fromId, scope);
    if (box.labels[CONTEXT_LABEL] === digest) return { built: false, digest, imageId: box.id };
  }
  await stageBuildContext(req.contextDir, plan, req.projectDir);
  const digest =
    fromId === null ? null : boundBoxDigest(await listContextFiles(req.contextDir), fromId, scope);
  if (digest !== null && box !== null && box.labels[CONTEXT_LABEL] === digest) {
    return { built: false, digest, imageId: box.id };
  }
  const run = freshRun(req, fromId);
  const owner = { projectId: req.projectId, storeTag: req.storeTag };
  const labels = digest === null ? baseLabels(owner, null) : boxLabels(owner, digest);
  const dockerfile = path.join(req.contextDir, BASE_DOCKERFILE);
  await writeFileAtomic(
    dockerfile,
    renderBaseDockerfile(req.plan.dockerfileInput) + labelInstruction(labels),
  );
  await engineBuild(run, { tag: req.tag, contextDir: req.contextDir, dockerfile, labels });
  run.progress?.succeeded();
  run.settled = true;
  return { built: true, digest };
}

/** The base image's id: the existing one when its digest matches the staged context, else built. */
async function ensureBase(
  run: Run,
  base: ImageInfo | null,
  baseTag: string,
  fromId: string | null,
  scope: DigestScope,
  owner: { projectId: string; storeTag: string },
  plan: ReturnType<typeof splitPlan>['base'],
): Promise<string> {
  const { req } = run;
  await stageBuildContext(req.contextDir, plan, req.projectDir);
  // Without a local FROM image the engine must fetch one, so no digest can
  // prove the build is a no-op.
  const digest =
    fromId === null ? null : baseDigest(await listContextFiles(req.contextDir), fromId, scope);
  if (digest !== null && base !== null && base.labels[BASE_CONTEXT_LABEL] === digest) {
    return base.id;
  }
  const dockerfile = path.join(req.contextDir, BASE_DOCKERFILE);
  const labels = baseLabels(owner, digest);
  await writeFileAtomic(
    dockerfile,
    renderBaseDockerfile(req.plan.dockerfileInput) + labelInstruction(labels),
  );
  await engineBuild(run, { tag: baseTag, contextDir: req.contextDir, dockerfile, labels });
  return req.engine.imageId(baseTag);
}

/** The box image: the existing one when its digest matches, else the wiring built on `baseId`. */
async function ensureBox(
  run: Run,
  box: ImageInfo | null,
  baseId: string,
  scope: DigestScope,
  owner: { projectId: string; storeTag: string },
  plan: ReturnType<typeof splitPlan>['wiring'],
): Promise<ImageOutcome> {
  const { req } = run;
  await stageBuildContext(req.wiringContextDir, plan, req.projectDir);
  const digest = boxDigest(await listContextFiles(req.wiringContextDir), baseId, scope);
  if (!run.started && box !== null && box.labels[CONTEXT_LABEL] === digest) {
    return { built: false, digest, imageId: box.id };
  }
  const dockerfile = path.join(req.wiringContextDir, BOX_DOCKERFILE);
  const labels = boxLabels(owner, digest);
  await writeFileAtomic(dockerfile, renderWiringDockerfile(baseId) + labelInstruction(labels));
  await engineBuild(run, { tag: req.tag, contextDir: req.wiringContextDir, dockerfile, labels });
  run.progress?.succeeded();
  run.settled = true;
  return { built: true, digest };
}

/** One engine build, its output to the run's progress (started at the run's first build). */
async function engineBuild(
  run: Run,
  spec: { tag: string; contextDir: string; dockerfile: string; labels: Record<string, string> },
): Promise<void> {
  const { req } = run;
  if (!run.started) run.progress = req.progress?.();
  run.started = true;
  const progress = run.progress;
  try {
    await req.engine.build(
      { ...spec, noCache: req.noCache, uid: req.uid, gid: req.gid, labelsInDockerfile: true },
      progress === undefined ? {} : { onOutput: (chunk) => progress.onOutput(chunk) },
    );
  } catch (error) {
    const failure = await buildFailure(run, error);
    run.settled = true;
    throw failure;
  }
}

/**
 * Why a build failed, for the user. A base that was not here before and is
 * still not here proves the build stopped fetching it (every later step
 * needs it present), whatever the engine's words: that failure is located
 * at the config key that chose the base. Anything else prints the engine's
 * whole log (unless it streamed already) and says so.
 */
async function buildFailure(run: Run, error: unknown): Promise<unknown> {
  const { req, progress } = run;
  const baseWasMissing = run.fromWasMissing;
  if (!(error instanceof EngineError)) {
    // Interrupted, or byre's own failure: its message says why; the line goes.
    progress?.failed({ printLog: false });
    return error;
  }
  // The engine's words can mislead (a registry's "connection refused" reads
  // like a daemon that is down); an announced step proves it answered.
  const ran = error.rule === 'engine.failed' || progress?.started() === true;
  if (baseWasMissing && req.baseFrom !== undefined) {
    // null, not a throw: the engine answered, and the base is still not there.
    const still = await req.engine.imageInfo(req.base).catch(() => undefined);
    if (still === null) {
      progress?.failed({ printLog: false });
      const position = locateBase(req.baseFrom.from);
      return baseImageError(
        {
          base: req.base,
          engine: req.engine.facts.name,
          why: pullFailureReason(
            progress === undefined || progress.log() === '' ? error.stderr : progress.log(),
          ),
          from: req.baseFrom.from,
          ...(position === undefined ? {} : { position }),
          projectConfig: req.baseFrom.projectConfig,
        },
        error,
      );
    }
  }
  if (progress === undefined) return error;
  progress.failed();
  if (!ran) return error;
  return new ByreError(
    `the image build failed (${req.engine.facts.name} exit ${error.engineExitCode ?? '?'}); its log is above`,
    {
      rule: 'build.failed',
      remedy:
        'fix the step the log names (byre dockerfile prints what was built), then run byre develop again',
      cause: error,
    },
  );
}
