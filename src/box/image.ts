// Stage the build context and make sure the box image matches it. A build is
// skipped only when an image already carries the digest of this exact
// context, base image id and baked ids (adr/0003); `rebuild` always builds.

import type { BuildPlan } from '../gen/plan.js';
import { stageBuildContext } from '../gen/stage.js';
import { LABEL } from '../engine/names.js';
import type { Engine } from '../engine/engine.js';
import { computeContextDigest, listContextFiles, plannedContextFiles } from './context-digest.js';

export const CONTEXT_LABEL = 'byre.context';

export interface ImageRequest {
  engine: Engine;
  plan: BuildPlan;
  contextDir: string;
  projectDir: string;
  projectId: string;
  /** storeTag of the store building it (adr/0015). */
  storeTag: string;
  tag: string;
  base: string;
  uid: number;
  gid: number;
  noCache: boolean;
  onOutput?: (chunk: string) => void;
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
  await req.engine.build(
    {
      tag: req.tag,
      contextDir: req.contextDir,
      noCache: req.noCache,
      uid: req.uid,
      gid: req.gid,
      labels: {
        [LABEL.project]: req.projectId,
        [LABEL.store]: req.storeTag,
        ...(digest === null ? {} : { [CONTEXT_LABEL]: digest }),
      },
    },
    req.onOutput === undefined ? {} : { onOutput: req.onOutput },
  );
  return { built: true, digest };
}
