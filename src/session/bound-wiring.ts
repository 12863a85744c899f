// The wiring bound at run time (adr/0075): on rootless podman the box image
// holds no wiring, and develop binds it read-only from a directory of the
// store named by the wiring's digest, one bind per entry of /etc/byre's
// wiring. A directory is written whole and never changed after, so a box
// that runs keeps the wiring it started with; nothing the box can write
// reaches it (it sits beside the project's folder, which `--self-edit`
// binds, and the containment rules refuse every user bind into the store).

import path from 'node:path';

import { BYRE_ETC } from '../gen/box-layout.js';
import { WIRING_STAGED_DIR } from '../gen/dockerfile.js';
import type { RunBind } from '../gen/run-argv.js';
import { engineElsewhereNow } from '../engine/locality-facts.js';
import type { EngineFacts } from '../engine/types.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import { listEntries, pathExists } from '../host/path-view.js';
import { removeTree } from '../host/remove.js';
import {
  computeContextDigest,
  listContextFiles,
  plannedContextFiles,
  type DigestFile,
} from './context-digest.js';
import { stageFreshContext, type StagePlan } from './stage.js';

/** How the box gets its wiring: baked into the box image, or bound from the store. */
export type WiringDelivery = 'image' | 'bound';

/**
 * Bound on rootless podman whose engine runs here: its commits diff the
 * whole root filesystem through fuse-overlayfs, so even the wiring's one
 * COPY costs seconds (adr/0075). Everywhere else, and whenever byre cannot
 * show the engine mounts what it checked, the image carries it (adr/0073).
 */
export function wiringDelivery(
  facts: Pick<EngineFacts, 'name' | 'rootless'>,
  elsewhere: string | null,
): WiringDelivery {
  return facts.name === 'podman' && facts.rootless && elsewhere === null ? 'bound' : 'image';
}

/** wiringDelivery for a verb that has not asked where the engine runs (rebuild, worktree). */
export function wiringDeliveryNow(
  facts: EngineFacts,
  env: Readonly<Record<string, string | undefined>>,
): WiringDelivery {
  return wiringDelivery(facts, engineElsewhereNow(facts, env));
}

/** The name of a wiring's directory: the digest of its files. */
function boundWiringDigest(files: readonly DigestFile[]): string {
  return computeContextDigest({ files, baseImageId: '', uid: 0, gid: 0, engine: 'bound-wiring' });
}

/** The binds of a staged wiring directory: each entry of its `wiring/`, read-only, where the COPY puts it. */
function boundWiringBinds(dir: string, names: readonly string[]): RunBind[] {
  return [...names].sort().map((name) => ({
    host: path.join(dir, WIRING_STAGED_DIR, name),
    target: `${BYRE_ETC}/${name}`,
    mode: 'ro' as const,
  }));
}

/** A directory that holds exactly the files its name is the digest of. */
async function holds(dir: string, digest: string): Promise<boolean> {
  if (!pathExists(dir)) return false;
  try {
    return boundWiringDigest(await listContextFiles(dir)) === digest;
  } catch {
    return false;
  }
}

/**
 * The wiring's directory under `root` (written when absent, or when what is
 * there is not what its name says) and the binds that deliver it.
 */
export async function stageBoundWiring(
  root: string,
  plan: StagePlan,
  projectDir: string,
): Promise<{ dir: string; binds: RunBind[] }> {
  await ensurePrivateDir(root);
  let files = plannedContextFiles(plan);
  if (files === null) {
    // Every wiring file is the plan's own bytes today; should one ever be
    // read at staging, its digest is known only once written.
    const probe = path.join(root, `.probe-${process.pid}-${Date.now()}`);
    try {
      await stageFreshContext(probe, plan, projectDir);
      files = await listContextFiles(probe);
    } finally {
      await removeTree(probe);
    }
  }
  const digest = boundWiringDigest(files);
  const dir = path.join(root, digest);
  if (!(await holds(dir, digest))) {
    await removeTree(dir);
    try {
      await stageFreshContext(dir, plan, projectDir);
    } catch (error) {
      // Another develop of this project wrote the same wiring first.
      if (!(await holds(dir, digest))) throw error;
    }
  }
  return { dir, binds: boundWiringBinds(dir, listEntries(path.join(dir, WIRING_STAGED_DIR))) };
}
