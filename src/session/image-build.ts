// Stage the build context and make sure the box image matches it. A build is
// skipped only when an image already carries the digest of this exact
// context, base image id and baked ids (adr/0003); `rebuild` always builds.

import path from 'node:path';

import type { LayerRef } from '../config/types.js';
import { ByreError, EngineError } from '../errors.js';
import type { BuildPlan } from '../gen/plan.js';
import { stageBuildContext } from './stage.js';
import { labelInstruction } from '../gen/dockerfile.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { LABEL } from '../gen/names.js';
import type { Engine } from '../engine/engine.js';
import { baseImageError, locateBase } from './base-image.js';
import { pullFailureReason } from './build-steps.js';
import type { BuildProgress } from './build-progress.js';
import { computeContextDigest, listContextFiles, plannedContextFiles } from './context-digest.js';

const CONTEXT_LABEL = 'byre.context';
/**
 * The Dockerfile the engine builds: the generated one plus one LABEL line.
 * Written after the digest, so it is never part of one (adr/0069).
 */
const LABELLED_DOCKERFILE = 'Dockerfile.labelled';

export interface ImageRequest {
  engine: Engine;
  plan: BuildPlan;
  contextDir: string;
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
  /** Started only when the engine builds; absent, the engine's output streams to stderr raw. */
  progress?: () => BuildProgress;
  /** The layer that set `base` and the project's config file, to locate an unpullable base. */
  baseFrom?: { from: LayerRef; projectConfig: string };
}

/** `imageId` is known when the build was skipped (the existing image's id). */
export type ImageOutcome =
  { built: true; digest: string | null } | { built: false; digest: string; imageId: string };

export async function ensureImage(req: ImageRequest): Promise<ImageOutcome> {
  const [base, existing] = await Promise.all([
    req.engine.imageInfo(req.base).catch(() => null),
    req.noCache ? null : req.engine.imageInfo(req.tag),
  ]);
  const baseId = base?.id ?? null;
  const digestOf = (files: Parameters<typeof computeContextDigest>[0]['files']) =>
    computeContextDigest({
      files,
      baseImageId: baseId ?? '',
      uid: req.uid,
      gid: req.gid,
      engine: req.engine.facts.name,
    });
  // The proof without staging: when every context file comes from the plan's
  // own bytes, their digest is known before anything is written, and an image
  // that carries it was built from exactly this context.
  const planned = plannedContextFiles(req.plan);
  if (baseId !== null && existing !== null && planned !== null) {
    const digest = digestOf(planned);
    if (existing.labels[CONTEXT_LABEL] === digest) {
      return { built: false, digest, imageId: existing.id };
    }
  }
  await stageBuildContext(req.contextDir, req.plan, req.projectDir);
  // Without a local base image the engine must fetch one, so no digest can
  // prove the build is a no-op.
  const digest = baseId === null ? null : digestOf(await listContextFiles(req.contextDir));
  if (digest !== null && existing !== null && existing.labels[CONTEXT_LABEL] === digest) {
    return { built: false, digest, imageId: existing.id };
  }
  const labels = {
    [LABEL.project]: req.projectId,
    [LABEL.store]: req.storeTag,
    ...(digest === null ? {} : { [CONTEXT_LABEL]: digest }),
  };
  const dockerfile = path.join(req.contextDir, LABELLED_DOCKERFILE);
  await writeFileAtomic(dockerfile, req.plan.dockerfile + labelInstruction(labels));
  const progress = req.progress?.();
  try {
    await req.engine.build(
      {
        tag: req.tag,
        contextDir: req.contextDir,
        dockerfile,
        noCache: req.noCache,
        uid: req.uid,
        gid: req.gid,
        labels,
        labelsInDockerfile: true,
      },
      progress === undefined ? {} : { onOutput: (chunk) => progress.onOutput(chunk) },
    );
  } catch (error) {
    throw await buildFailure(req, baseId === null, progress, error);
  }
  progress?.succeeded();
  return { built: true, digest };
}

/**
 * Why a build failed, for the user. A base that was not here before and is
 * still not here proves the build stopped fetching it (every later step
 * needs it present), whatever the engine's words: that failure is located
 * at the config key that chose the base. Anything else prints the engine's
 * whole log (unless it streamed already) and says so.
 */
async function buildFailure(
  req: ImageRequest,
  baseWasMissing: boolean,
  progress: BuildProgress | undefined,
  error: unknown,
): Promise<unknown> {
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
