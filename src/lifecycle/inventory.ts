// What one project owns on every installed engine (volumes, images, leftover
// stopped boxes and the helpers a killed byre left in their network), and
// removing it. Engines that cannot be asked come back as
// data so callers never speak in totals over them; this module never prints.

import { LABEL } from '../gen/names.js';
import type { Engine } from '../engine/engine.js';
import type { EngineName } from '../engine/types.js';
import { askPool, failedAnswers, type EnginePool, type PoolAnswer } from '../engine/pool.js';
import { escapeTerminal } from '../output/escape.js';
import {
  planProjectImages,
  planProjectVolumes,
  projectVolumePrefix,
  type VolumePlan,
} from './project-objects.js';

interface EngineInventory {
  engineName: EngineName;
  engine: Engine;
  volumes: VolumePlan;
  /** `image rm` targets (tags, or ids of dangling images); empty unless asked for. */
  images: string[];
  /**
   * Containers of the project that are not running (a crashed create, a
   * stopped box), its boxes' helpers first: podman will not remove a box
   * whose network another container joins (a wall's helper), nor an edge
   * whose network a box joins (removeInventory tries those again last).
   */
  stopped: string[];
}

export type Unreached = Exclude<PoolAnswer<unknown>, { state: 'ok' }>;

export interface Inventory {
  engines: EngineInventory[];
  unreached: Unreached[];
  /** Engines that refuse this user: they cannot hold what this user's byre made, so they leave no gap. */
  denied: Unreached[];
}

export async function takeInventory(
  pool: EnginePool,
  projectId: string,
  options: { images: boolean },
): Promise<Inventory> {
  const answers = await askPool(pool, async (engine) => {
    const labels = { [LABEL.project]: projectId };
    const helpers = { [LABEL.helper]: projectId };
    const [byName, byLabel, machine, running, all, helpersRunning, allHelpers] = await Promise.all([
      engine.volumeList({ name: projectVolumePrefix(projectId) }),
      engine.volumeList({ labels }),
      engine.volumeList({ name: 'byre-machine-' }),
      engine.ps({ labels, all: false }),
      engine.ps({ labels, all: true }),
      engine.ps({ labels: helpers, all: false }),
      engine.ps({ labels: helpers, all: true }),
    ]);
    const images = options.images
      ? planProjectImages(projectId, await engine.imageList({}), await engine.imageList({ labels }))
      : [];
    const live = new Set([...running, ...helpersRunning]);
    return {
      volumes: planProjectVolumes(projectId, { byName, byLabel, machine }),
      images,
      stopped: [...new Set([...allHelpers, ...all])].filter((id) => !live.has(id)),
    };
  });
  return {
    engines: answers.flatMap((a) =>
      a.state === 'ok' ? [{ engineName: a.name, engine: a.engine, ...a.value }] : [],
    ),
    unreached: failedAnswers(answers).filter((a) => a.state !== 'denied'),
    denied: failedAnswers(answers).filter((a) => a.state === 'denied'),
  };
}

export interface RemovalFailure {
  /** The engine, or `store` for byre's own directory. */
  where: EngineName | 'store';
  what: string;
  message: string;
}

/** Removes stopped boxes, then volumes, then (when listed) images; failures are collected, not thrown. */
export async function removeInventory(inv: EngineInventory): Promise<RemovalFailure[]> {
  const failures: RemovalFailure[] = [];
  const attempt = async (what: string, work: () => Promise<unknown>): Promise<void> => {
    try {
      await work();
    } catch (error) {
      failures.push({
        where: inv.engineName,
        what,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  };
  // An edge goes after the box that joins its network (adr/0079), which
  // podman insists on: a container refused once is tried again last.
  const refused: string[] = [];
  for (const id of inv.stopped) await inv.engine.remove(id).catch(() => refused.push(id));
  for (const id of refused)
    await attempt(`container ${id.slice(0, 12)}`, () => inv.engine.remove(id));
  for (const name of inv.volumes.doomed)
    await attempt(`volume ${name}`, () => inv.engine.volumeRemove(name));
  for (const image of inv.images)
    await attempt(`image ${image}`, () => inv.engine.removeImage(image));
  return failures;
}

/**
 * `docker (not answering); podman (podman images failed (exit 125): it said …)`
 * for messages: the engine's own last words quoted, escaped, when it said any.
 */
export function describeUnreached(unreached: readonly Unreached[]): string {
  return unreached
    .map((u) => {
      const said =
        u.said === undefined || u.said === '' ? '' : `: it said ${escapeTerminal(u.said)}`;
      return `${u.name} (${u.message}${said})`;
    })
    .join('; ');
}
