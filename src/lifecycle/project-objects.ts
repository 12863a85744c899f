// Which engine objects belong to one project id: its named volumes and its
// images, told apart from machine-scoped volumes and from a LONGER project id
// that merely starts with this one. Pure; the engine queries live in inventory.ts.

import { edgeImageTag } from '../gen/names.js';
import { isValidProjectId } from '../project/identity.js';
import type { ImageRef } from '../engine/types.js';

/** `byre-<id>-`: every project-scoped volume name starts with it. */
export function projectVolumePrefix(projectId: string): string {
  return `byre-${projectId}-`;
}

/** `byre-machine-u<uid>-<name>`: shared by every project; reset and forget never touch one. */
export function isMachineVolume(name: string): boolean {
  return /^byre-machine-u\d+-./.test(name);
}

/**
 * The id of a longer project whose volume `name` could also be, e.g.
 * `byre-proj-a-1a2b3c-x-ffffff-state` for `proj-a-1a2b3c` (it may be project
 * `proj-a-1a2b3c-x-ffffff`'s volume `state`); null when the name is unambiguous.
 */
function longerProjectClaim(projectId: string, name: string): string | null {
  const prefix = projectVolumePrefix(projectId);
  if (!name.startsWith(prefix)) return null;
  const parts = name.slice(prefix.length).split('-');
  // The other id needs at least one more segment and a volume name after it.
  for (let k = 1; k < parts.length; k++) {
    const candidate = `${projectId}-${parts.slice(0, k).join('-')}`;
    if (/-[0-9a-f]{6}$/.test(candidate) && isValidProjectId(candidate)) return candidate;
  }
  return null;
}

interface VolumeListing {
  /** Names the engine returned for the `byre-<id>-` name filter (docker matches substrings). */
  byName: readonly string[];
  /** Names carrying `byre.project=<id>`. */
  byLabel: readonly string[];
  /** Names that look machine-scoped (`byre-machine-…`), for the "left alone" line. */
  machine: readonly string[];
}

export interface VolumePlan {
  /** This project's volumes: what reset and forget remove. */
  doomed: string[];
  /** Named with our prefix but possibly another project's (unlabelled, ambiguous). */
  ambiguous: { name: string; maybe: string }[];
  /** Machine-scoped volumes present on the engine, named as left alone. */
  machine: string[];
}

/**
 * A volume dies when it carries our label, or when it has our exact prefix,
 * no label saying so, and no longer project id could claim it.
 */
export function planProjectVolumes(projectId: string, listing: VolumeListing): VolumePlan {
  const prefix = projectVolumePrefix(projectId);
  const labelled = new Set(listing.byLabel);
  const doomed = new Set<string>();
  const ambiguous: VolumePlan['ambiguous'] = [];
  for (const name of listing.byLabel) {
    if (!isMachineVolume(name)) doomed.add(name);
  }
  for (const name of listing.byName) {
    if (labelled.has(name) || !name.startsWith(prefix) || isMachineVolume(name)) continue;
    const maybe = longerProjectClaim(projectId, name);
    if (maybe === null) doomed.add(name);
    else if (!ambiguous.some((a) => a.name === name)) ambiguous.push({ name, maybe });
  }
  const machine = [...new Set(listing.machine.filter(isMachineVolume))].sort();
  return { doomed: [...doomed].sort(), ambiguous, machine };
}

/** `localhost/byre-x-u1-g2:latest` → `byre-x-u1-g2`: the name byre tagged it with. */
function imageBaseName(ref: string): string {
  let name = ref;
  for (const registry of ['localhost/', 'docker.io/library/']) {
    if (name.startsWith(registry)) name = name.slice(registry.length);
  }
  return name.endsWith(':latest') ? name.slice(0, -':latest'.length) : name;
}

/**
 * An image tag of this project: its box image `byre-<id>-u<uid>-g<gid>`,
 * the base image under it, `…-base` (adr/0073), or its edge image
 * `byre-<id>-edge` (adr/0077), exactly.
 */
function isProjectImageRef(projectId: string, ref: string): boolean {
  const base = imageBaseName(ref);
  if (base === edgeImageTag(projectId)) return true;
  const prefix = `byre-${projectId}-u`;
  return base.startsWith(prefix) && /^\d+-g\d+(-base)?$/.test(base.slice(prefix.length));
}

/** Base images (`…-base`) after the box images built on them; otherwise by name. */
function boxesFirst(a: string, b: string): number {
  const rank = (r: string): number => (imageBaseName(r).endsWith('-base') ? 1 : 0);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * What to pass to `image rm` for this project: each matching or labelled tag,
 * and the id of each labelled dangling image (a rebuild leaves the old one);
 * a base image after the box images on it.
 */
export function planProjectImages(
  projectId: string,
  all: readonly ImageRef[],
  labelled: readonly ImageRef[],
): string[] {
  const out = new Set<string>();
  for (const img of all) {
    if (img.ref !== null && isProjectImageRef(projectId, img.ref)) out.add(img.ref);
  }
  for (const img of labelled) out.add(img.ref ?? img.id);
  return [...out].sort(boxesFirst);
}
