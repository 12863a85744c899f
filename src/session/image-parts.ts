// The two images a box is built as (adr/0073): the base image, everything but
// the wiring, built from the context without `wiring/` and skipped while its
// own digest matches; and the box image, the wiring's one COPY on the base's
// id. Pure: which part of the plan each is built from, and each one's digest
// and labels.

import path from 'node:path';

import { WIRING_STAGED_DIR } from '../gen/dockerfile.js';
import { LABEL } from '../gen/names.js';
import { computeContextDigest, type DigestFile } from './context-digest.js';
import type { StagePlan } from './stage.js';

/** The box image's digest: its wiring and the id of the base it was built on. */
export const CONTEXT_LABEL = 'byre.context';
/** The base image's digest: its context, the id of the image it starts FROM, the baked ids. */
export const BASE_CONTEXT_LABEL = 'byre.base-context';

interface PlanParts {
  /** Everything but the wiring: the base image's context. */
  base: StagePlan;
  /** The `wiring/` directory alone: the box image's context. */
  wiring: StagePlan;
}

/** Whether a context path is the wiring directory or inside it. */
function inWiring(p: string): boolean {
  const rel = path.posix.normalize(p).replace(/\/+$/, '');
  return rel === WIRING_STAGED_DIR || rel.startsWith(`${WIRING_STAGED_DIR}/`);
}

/** The plan's files and directories, split between the two contexts. */
export function splitPlan(plan: StagePlan): PlanParts {
  return {
    base: {
      dirs: plan.dirs.filter((d) => !inWiring(d)),
      entries: plan.entries.filter((e) => !inWiring(e.path)),
    },
    wiring: {
      dirs: [...new Set([WIRING_STAGED_DIR, ...plan.dirs.filter(inWiring)])],
      entries: plan.entries.filter((e) => inWiring(e.path)),
    },
  };
}

/** What both digests cover besides files: the engine and the baked ids. */
export interface DigestScope {
  engine: string;
  uid: number;
  gid: number;
}

/** The base image's digest: its context's files, the id of its FROM image, the scope. */
export function baseDigest(
  files: readonly DigestFile[],
  fromImageId: string,
  scope: DigestScope,
): string {
  return computeContextDigest({ files, baseImageId: fromImageId, ...scope });
}

/**
 * The box image's digest: the wiring's files and the base image's id (which
 * stands for everything the base was built from).
 */
export function boxDigest(
  files: readonly DigestFile[],
  baseImageId: string,
  scope: DigestScope,
): string {
  return computeContextDigest({ files, baseImageId, ...scope });
}

/**
 * The digest of a box image built for a bound wiring (adr/0075): the base's
 * context, its FROM image's id and the scope, under another engine name so
 * it never equals a base's or a wired box's digest.
 */
export function boundBoxDigest(
  files: readonly DigestFile[],
  fromImageId: string,
  scope: DigestScope,
): string {
  return computeContextDigest({
    files,
    baseImageId: fromImageId,
    ...scope,
    engine: `${scope.engine}+bound-wiring`,
  });
}

/** Whose images these are: the project and the store that built them (adr/0015). */
interface Owner {
  projectId: string;
  storeTag: string;
}

/** The base image's labels; without a digest (its FROM image was not here) none proves it. */
export function baseLabels(owner: Owner, digest: string | null): Record<string, string> {
  return {
    [LABEL.project]: owner.projectId,
    [LABEL.store]: owner.storeTag,
    ...(digest === null ? {} : { [BASE_CONTEXT_LABEL]: digest }),
  };
}

/** The box image's labels; it inherits the base's and overrides these. */
export function boxLabels(owner: Owner, digest: string): Record<string, string> {
  return {
    [LABEL.project]: owner.projectId,
    [LABEL.store]: owner.storeTag,
    [CONTEXT_LABEL]: digest,
  };
}
