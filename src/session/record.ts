// The record step: the launch record written before the box is created, so
// a box without its record (one status cannot describe) is never made; and
// the reaping of records no box points at any more, beside the session.

import { askPool, type EnginePool } from '../engine/pool.js';
import { ByreError } from '../errors.js';
import { LABEL } from '../gen/names.js';
import type { LaunchRecord } from '../gen/launch-record.js';
import { launchHashesOnDisk, reapLaunchRecords, writeLaunchRecord } from '../launch/store.js';
import type { ProjectContext } from '../project/context.js';

/** The launch record's hash; a record that cannot be written stops the launch before create. */
export function writeLaunchRecordOrRefuse(launchesDir: string, record: LaunchRecord): string {
  try {
    return writeLaunchRecord(launchesDir, record);
  } catch (error) {
    if (!(error instanceof ByreError)) throw error;
    throw new ByreError(`${error.message}; the box was not created`, {
      rule: error.rule,
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
      cause: error,
    });
  }
}

/** Records no container on any engine points at; nothing at all when any engine could not be asked. */
async function referencedRecords(pool: EnginePool, projectId: string): Promise<Set<string> | null> {
  // One `ps` per engine carries each box's launch label.
  const answers = await askPool(pool, async (engine) =>
    (
      await engine.psLabels({ labels: { [LABEL.project]: projectId }, all: true }, [LABEL.launch])
    ).map((row) => row.labels[LABEL.launch]),
  );
  if (answers.some((a) => a.state !== 'ok')) return null;
  return new Set(
    answers.flatMap((a) =>
      a.state === 'ok' ? a.value.filter((h): h is string => h !== undefined) : [],
    ),
  );
}

/**
 * Reaping is housekeeping: it runs beside the session and never fails it.
 * When the only record on disk is this launch's own, there is nothing to
 * reap and no engine is asked (the common warm develop: the engine clients
 * would otherwise compete with the box's start for the CPU).
 */
export async function reapQuietly(
  pool: EnginePool,
  ctx: Pick<ProjectContext, 'project' | 'projectId'>,
  launchHash: string | undefined,
): Promise<void> {
  const { launches, receipts } = ctx.project;
  const onDisk = [...launchHashesOnDisk(launches), ...launchHashesOnDisk(receipts)];
  if (onDisk.every((h) => h === launchHash)) return;
  try {
    const referenced = await referencedRecords(pool, ctx.projectId);
    // Receipts live beside the folder; one an older byre left in launches/ goes there.
    reapLaunchRecords(launches, referenced);
    reapLaunchRecords(receipts, referenced);
  } catch {
    // A record left behind is reaped at a later create.
  }
}
