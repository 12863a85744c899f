// The names and labels byre puts on engine objects. Pure: every other module asks here rather than formatting
// `byre-…` strings itself, so a rename is one edit and one failing test. It also hands the core's readers
// (status) the engine's name type, so they need not reach into the engine adapter for it.

import type { VolumeSpec } from '../config/types.js';

export type { EngineName } from '../engine/types.js';

export const LABEL = {
  project: 'byre.project',
  workdir: 'byre.workdir',
  client: 'byre.client',
  run: 'byre.run',
  launch: 'byre.launch',
  /** The in-box ids (BYRE_UID/BYRE_GID), so discovery needs no inspect. */
  uid: 'byre.uid',
  gid: 'byre.gid',
  /** Which byre store made the object (storeTag), so doctor prunes only its own (adr/0015). */
  store: 'byre.store',
  /** On a box's edge helper: the box's container name (adr/0070); status finds it running by it. */
  edge: 'byre.edge',
  /**
   * On the helpers in a box's network (the wall's, the edge's): the box's
   * project id, where a box carries `byre.project` (which a helper has
   * emptied, so no census counts it as a box); forget, reset and doctor
   * find a project's helpers by it.
   */
  helper: 'byre.helper',
} as const;

/** The in-box dev ids rootless keep-id bakes regardless of the host user. */
const GENERIC_DEV_ID = 1000;

/** Rootless keep-id bakes the generic 1000:1000; rootful bakes the host ids (adr/0008). */
export function bakedIds(
  keepId: boolean,
  hostUid: number,
  hostGid: number,
): { uid: number; gid: number } {
  return keepId ? { uid: GENERIC_DEV_ID, gid: GENERIC_DEV_ID } : { uid: hostUid, gid: hostGid };
}

export function imageTag(projectId: string, uid: number, gid: number): string {
  return `byre-${projectId}-u${uid}-g${gid}`;
}

/** The image the project's edge helper runs on, built from byre's own context (adr/0077). */
export function edgeImageTag(projectId: string): string {
  return `byre-${projectId}-edge`;
}

/**
 * The base image under a box image: the generated Dockerfile without its
 * wiring, which a wiring change does not rebuild (adr/0073).
 */
export function baseImageTag(boxTag: string): string {
  return `${boxTag}-base`;
}

/** Equals `byre-<projectId>` for a plain (non-worktree) project. */
export function containerName(worktreeId: string): string {
  return `byre-${worktreeId}`;
}

function projectVolumeName(projectId: string, name: string): string {
  return `byre-${projectId}-${name}`;
}

export function machineVolumeName(uid: number, name: string): string {
  return `byre-machine-u${uid}-${name}`;
}

type HelperKind = 'netns' | 'edge' | 'sockprobe';

/** `byre-netns-<16hex>` / `byre-edge-<16hex>` / `byre-sockprobe-<16hex>`; the caller mints the hex. */
export function helperName(kind: HelperKind, hex16: string): string {
  if (!/^[0-9a-f]{16}$/.test(hex16))
    throw new RangeError(`helper suffix must be 16 lowercase hex digits, got "${hex16}"`);
  return `byre-${kind}-${hex16}`;
}

export function worktreeAddHelperName(targetId: string): string {
  return `byre-wtadd-${targetId}`;
}

/** The engine-side name of a volume declaration. */
export function volumeEngineName(projectId: string, hostUid: number, volume: VolumeSpec): string {
  return volume.scope === 'machine'
    ? machineVolumeName(hostUid, volume.name)
    : projectVolumeName(projectId, volume.name);
}
