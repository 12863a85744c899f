// The wall's event log at the edges (adr/0064): read from the walled box's
// netns helper through the engine (the caller names the helper: the netns
// module owns that name), and the last session's record written
// beside the launch records when a session ends and read back by status and
// the editor. The parsing and every bound live in status/wall-*.ts; this
// module only moves bytes, and never lets a failure here fail a session.

import path from 'node:path';

import type { Engine } from '../engine/engine.js';
import { EngineError } from '../errors.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { readRegularFile } from '../host/read-regular.js';
import { removeEntry } from '../host/remove.js';
import { WALL_LOG_TAIL_LINES, parseWallLog, type WallEvents } from '../status/wall-events.js';
import {
  WALL_RECORD_MAX_BYTES,
  parseWallRecord,
  renderWallRecord,
  wallRecordFileName,
  type WallRecord,
} from '../status/wall-record.js';

export type WallRead = { events: WallEvents; error: null } | { events: null; error: string };

/**
 * The running walled box's events from its helper `helper`, or why they
 * could not be read (the helper is gone, the engine failed).
 */
export async function readWallEvents(engine: Engine, helper: string): Promise<WallRead> {
  try {
    const out = await engine.logs(helper, { tail: WALL_LOG_TAIL_LINES });
    if (out !== null) return { events: parseWallLog(out.stdout), error: null };
    return {
      events: null,
      error: `the wall's helper ${helper} is not running on ${engine.facts.name}, so the box has no resolver and keeps no record of what it refused`,
    };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return {
      events: null,
      error: `the wall's helper ${helper} could not be read on ${engine.facts.name} (${error.message})`,
    };
  }
}

function recordPath(launchesDir: string, worktreeId: string): string {
  return path.join(launchesDir, wallRecordFileName(worktreeId));
}

/**
 * Keep what the wall refused in the session that just ended. Written by byre
 * after the box is gone, by rename over whatever the name held, in the store
 * no box mounts (only `--self-edit` does, and its box is gone by now).
 */
export async function keepWallRecord(
  launchesDir: string,
  worktreeId: string,
  record: WallRecord,
): Promise<void> {
  await writeFileAtomic(recordPath(launchesDir, worktreeId), renderWallRecord(record));
}

/** The last walled session's record; null when there is none, or it is not byre's shape. */
export function readWallRecord(launchesDir: string, worktreeId: string): WallRecord | null {
  try {
    const read = readRegularFile(recordPath(launchesDir, worktreeId), WALL_RECORD_MAX_BYTES);
    return read.kind === 'ok' ? parseWallRecord(read.bytes.toString('utf8')) : null;
  } catch {
    return null;
  }
}

/**
 * At a session's end: keep what its wall refused, read once more from the
 * helper before it goes; a session with no wall (or whose events could not
 * be read) removes the previous session's record, so status never shows an
 * older session's denials as the last one's. Never throws.
 */
export async function keepWallSession(
  engine: Engine,
  /** `helper`: the walled session's helper; null for a session with no wall. */
  session: { launchesDir: string; worktreeId: string; launch: string; helper: string | null },
  now: Date,
): Promise<void> {
  try {
    const read = session.helper === null ? null : await readWallEvents(engine, session.helper);
    if (read === null || read.events === null) {
      await removeEntry(recordPath(session.launchesDir, session.worktreeId));
      return;
    }
    await keepWallRecord(session.launchesDir, session.worktreeId, {
      launch: session.launch,
      engine: engine.facts.name,
      ended: Math.floor(now.getTime() / 1000),
      events: read.events,
    });
  } catch {
    // Only status's last-session rows depend on it; the session's outcome stands.
  }
}
