// Every byre-labelled container, volume and image on every installed engine,
// with the labels doctor judges them by; and removing the leftovers doctor
// chose. Removal is never forced: a running box, an image a container uses or
// a volume a container holds stays, and the failure says why. Engines that
// cannot be asked come back as data.

import type { EngineScan, LabelledObject } from './facts.js';
import { removalTargets, type Leftover } from './leftovers.js';
import { LABEL } from '../gen/names.js';
import { EngineError } from '../errors.js';
import type { Engine } from '../engine/engine.js';
import type { EngineName } from '../engine/types.js';
import { askPool, type EnginePool } from '../engine/pool.js';

const KEYS = [LABEL.project, LABEL.store, LABEL.launch, LABEL.helper] as const;

async function scanEngine(engine: Engine): Promise<LabelledObject[]> {
  const name = engine.facts.name;
  const has = [LABEL.project];
  const [boxes, running, volumeNames, imageRows] = await Promise.all([
    engine.psLabels({ labels: {}, hasLabels: has, all: true }, KEYS),
    engine.ps({ labels: {}, hasLabels: has, all: false }),
    engine.volumeList({ hasLabels: has }),
    engine.imageList({ hasLabels: has }),
  ]);
  const tags = new Map<string, string[]>();
  for (const row of imageRows) {
    const list = tags.get(row.id) ?? [];
    if (row.ref !== null) list.push(row.ref);
    tags.set(row.id, list);
  }
  const [volumes, images] = await Promise.all([
    engine.inspectVolumes(volumeNames),
    engine.inspectImages([...tags.keys()]),
  ]);
  const live = new Set(running);
  return [
    ...boxes.map((b): LabelledObject => ({
      engine: name,
      kind: 'container',
      id: b.id,
      labels: b.labels,
      running: live.has(b.id),
    })),
    ...volumes.map((v): LabelledObject => ({
      engine: name,
      kind: 'volume',
      id: v.id,
      labels: v.labels,
    })),
    ...images.map((i): LabelledObject => ({
      engine: name,
      kind: 'image',
      id: i.id,
      labels: i.labels,
      tags: tags.get(i.id) ?? [],
    })),
  ];
}

/** One scan per installed engine; an engine that cannot be asked is `unreached`. */
export async function scanLabelledObjects(pool: EnginePool): Promise<EngineScan[]> {
  const answers = await askPool(pool, scanEngine);
  return answers.map((a): EngineScan =>
    a.state === 'ok'
      ? { engine: a.name, state: 'ok', objects: a.value }
      : { engine: a.name, state: 'unreached', message: a.message },
  );
}

export interface PruneOutcome {
  removed: Leftover[];
  skipped: { leftover: Leftover; why: string }[];
  failed: { leftover: Leftover; message: string }[];
}

/**
 * Removes `leftovers` in order (containers, then volumes, then images: an
 * image or volume in use by a leftover box goes once the box is gone).
 * `stillLeftover` is asked again just before each removal, so an object whose
 * project came back since the listing is spared.
 */
export async function pruneLeftovers(
  leftovers: readonly Leftover[],
  pool: EnginePool,
  stillLeftover: (l: Leftover) => boolean,
): Promise<PruneOutcome> {
  const engines = new Map<EngineName, Engine>();
  for (const m of pool.members) if (m.state === 'ok') engines.set(m.name, m.engine);
  const out: PruneOutcome = { removed: [], skipped: [], failed: [] };
  // An edge goes after the box that joins its network (adr/0079), which
  // podman insists on: a container refused once is tried again last.
  const queue = [...leftovers];
  const again = new Set<Leftover>();
  for (const l of queue) {
    const engine = engines.get(l.engine);
    if (l.running) {
      out.skipped.push({ leftover: l, why: 'it is running' });
      continue;
    }
    if (engine === undefined) {
      out.skipped.push({ leftover: l, why: `${l.engine} cannot be asked` });
      continue;
    }
    if (!stillLeftover(l)) {
      out.skipped.push({ leftover: l, why: `project ${l.project} is back` });
      continue;
    }
    try {
      if (l.kind === 'container') {
        // Started since the listing? Then it is a session now, not a leftover.
        const [now] = await engine.inspectContainers([l.id]);
        if (now?.running === true) {
          out.skipped.push({ leftover: l, why: 'it started since it was listed' });
          continue;
        }
      }
      for (const target of removalTargets(l)) {
        if (l.kind === 'container') await engine.remove(target);
        else if (l.kind === 'volume') await engine.volumeRemove(target);
        else await engine.removeImage(target);
      }
      out.removed.push(l);
    } catch (error) {
      if (l.kind === 'container' && !again.has(l)) {
        again.add(l);
        queue.push(l);
      } else out.failed.push({ leftover: l, message: failureText(error) });
    }
  }
  return out;
}

/** The engine's own reason (in use, …) beside byre's summary of the failed call. */
function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const said = error instanceof EngineError ? error.stderr.trim().split('\n')[0] : undefined;
  return said === undefined || said === '' ? error.message : `${error.message}: ${said}`;
}
