// The ensure-the-edge-image step (adr/0077): the image the edge helper runs
// on, built from byre's own context (src/gen/edge-image.ts) unless one under
// the project's edge tag already carries that context's digest. Its context
// is staged fresh in the store beside the project's edge certificates: no
// box can bind the store (containment refuses it), and that place is outside
// the project folder a `--self-edit` box may write; it is removed after the
// build, and a crash's leftover at the next one.

import path from 'node:path';

import type { Engine, ImageInfo } from '../engine/engine.js';
import { ByreError, EngineError } from '../errors.js';
import {
  EDGE_CONTEXT_LABEL,
  EDGE_IMAGE_FROM,
  edgeImageContext,
  edgeImageDigest,
} from '../gen/edge-image.js';
import { LABEL } from '../gen/names.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import { makeDirSync } from '../host/make-dirs.js';
import { writeNewFileSync } from '../host/private-temp.js';
import { removeTree } from '../host/remove.js';
import type { BuildProgress } from './build-progress.js';

type EdgeImageEngine = Pick<Engine, 'build' | 'imageId' | 'imageInfo' | 'facts'>;

interface EdgeImageRequest {
  engine: EdgeImageEngine;
  /** The project's edge image tag (edgeImageTag). */
  tag: string;
  /** Whose image it is: the project and the store that built it (adr/0015). */
  owner: { projectId: string; storeTag: string };
  /** Where its context is staged (made afresh, removed after): the store's, which no box reaches. */
  stagingDir: string;
  /** `rebuild`: built afresh, without the engine's layer cache. */
  noCache: boolean;
  /** Started only when the engine builds; absent, the engine's output is dropped. */
  progress?: () => BuildProgress;
}

/** Ask for the image under the edge tag; null when there is none (or the engine would not say). */
export function lookUpEdgeImage(engine: EdgeImageEngine, tag: string): Promise<ImageInfo | null> {
  return engine.imageInfo(tag).catch(() => null);
}

/**
 * The image's id when it was built from this byre's edge context for this
 * engine (its digest label says so); null when there is none, or it is older.
 */
export function currentEdgeImage(engine: string, info: ImageInfo | null): string | null {
  return info !== null && info.labels[EDGE_CONTEXT_LABEL] === edgeImageDigest(engine)
    ? info.id
    : null;
}

function edgeImageFailed(engine: string, error: unknown): ByreError {
  return new ByreError(
    `byre could not build its edge image on ${engine} (it starts FROM ${EDGE_IMAGE_FROM} and installs Debian's nodejs)`,
    {
      rule: 'edge.image',
      remedy: `make ${EDGE_IMAGE_FROM} available to ${engine} (or let it reach the registry and Debian's mirror), then run byre develop again`,
      cause: error,
    },
  );
}

/**
 * The edge image's id: the one under its tag when it carries this context's
 * digest (`known`, when the caller asked already), else built now. Rejects
 * with `edge.image` when the build fails; the box is never started on an
 * edge it could not build.
 */
export async function ensureEdgeImage(
  req: EdgeImageRequest,
  known?: Promise<ImageInfo | null>,
): Promise<string> {
  const engine = req.engine.facts.name;
  const digest = edgeImageDigest(engine);
  if (!req.noCache) {
    const current = currentEdgeImage(engine, await (known ?? lookUpEdgeImage(req.engine, req.tag)));
    if (current !== null) return current;
  }
  const labels = {
    [LABEL.project]: req.owner.projectId,
    [LABEL.store]: req.owner.storeTag,
    [EDGE_CONTEXT_LABEL]: digest,
  };
  const dir = req.stagingDir;
  const progress = req.progress?.();
  try {
    // A leftover of a build that never finished goes; nothing else is ever here.
    await removeTree(dir);
    await ensurePrivateDir(path.dirname(dir));
    makeDirSync(dir, 0o700);
    for (const f of edgeImageContext(labels)) writeNewFileSync(path.join(dir, f.name), f.text);
    await req.engine.build(
      {
        tag: req.tag,
        contextDir: dir,
        dockerfile: path.join(dir, 'Dockerfile'),
        noCache: req.noCache,
        uid: 0,
        gid: 0,
        labels,
        labelsInDockerfile: true,
      },
      { onOutput: (chunk) => progress?.onOutput(chunk) },
    );
    progress?.succeeded();
  } catch (error) {
    progress?.failed({ printLog: error instanceof EngineError });
    throw error instanceof EngineError ? edgeImageFailed(engine, error) : error;
  } finally {
    await removeTree(dir);
  }
  return req.engine.imageId(req.tag);
}
