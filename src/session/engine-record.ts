// The per-worktree engine records on disk (projects/<id>/engine.<worktreeId>,
// adr/0032): read like every store file (no link followed, no FIFO waited
// on, size capped), written atomically under the setup lock; and from them
// and the launch records, the engine a project's boxes are on (adr/0053).

import path from 'node:path';
import type { EngineName } from '../engine/types.js';
import { launchHashesOnDisk } from '../launch/store.js';
import { readLaunchRecordFile, verifyLaunchRecord } from '../launch/verify.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { isValidProjectId } from '../project/identity.js';
import { entryNames, pathExists } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import {
  engineRecordFile,
  formatEngineRecord,
  parseEngineRecord,
  recordedEngine,
  type EngineRecord,
} from '../engine/engine-scope.js';

const RECORD_MAX_BYTES = 256;
const PREFIX = 'engine.';

/** One record: null when absent, unreadable or malformed (every engine is then asked). */
export function readEngineRecord(projectDir: string, worktreeId: string): EngineRecord | null {
  return readOne(path.join(projectDir, engineRecordFile(worktreeId)));
}

function readOne(file: string): EngineRecord | null {
  try {
    const read = readRegularFile(file, RECORD_MAX_BYTES);
    return read.kind === 'ok' ? parseEngineRecord(read.bytes.toString('utf8')) : null;
  } catch {
    return null;
  }
}

/** Whether any worktree of the project has a record: a develop got as far as its launch. */
export function anyEngineRecord(projectDir: string): boolean {
  return entryNames(projectDir).some((n) => n.startsWith(PREFIX));
}

/** Every other worktree's record of the project; null for one that cannot be read. */
export function readOtherEngineRecords(
  projectDir: string,
  worktreeId: string,
): (EngineRecord | null)[] {
  const names = entryNames(projectDir);
  const own = engineRecordFile(worktreeId);
  return names
    .filter((n) => n.startsWith(PREFIX) && n !== own)
    .sort()
    .map((n) => readOne(path.join(projectDir, n)));
}

export async function writeEngineRecord(
  projectDir: string,
  worktreeId: string,
  record: EngineRecord,
): Promise<void> {
  await writeFileAtomic(
    path.join(projectDir, engineRecordFile(worktreeId)),
    formatEngineRecord(record),
  );
}

/** The engines the project's launch records on disk name; a record that does not verify names none. */
function launchedEngines(launchesDir: string): EngineName[] {
  return [...launchHashesOnDisk(launchesDir)].flatMap((hash) => {
    const state = verifyLaunchRecord(hash, (h) => readLaunchRecordFile(launchesDir, h));
    return state.kind === 'verified' ? [state.record.engine] : [];
  });
}

/**
 * The engine this project's boxes are on, from its records on disk
 * (adr/0053), or null for a project that never launched. The launch
 * records are read only when this worktree has no engine record.
 */
export function readRecordedEngine(
  paths: { dir: string; launches: string },
  worktreeId: string,
): EngineName | null {
  const own = readEngineRecord(paths.dir, worktreeId);
  if (own !== null) return own.last;
  return recordedEngine(
    null,
    readOtherEngineRecords(paths.dir, worktreeId),
    launchedEngines(paths.launches),
  );
}

/**
 * The projects that keep an engine record for `worktreeId`: every identity
 * byre launched that directory under (a linked worktree's record lives with
 * its project). Reads the whole projects directory: for rare paths only.
 */
export function projectsWithEngineRecord(projectsDir: string, worktreeId: string): string[] {
  const ids = entryNames(projectsDir);
  const file = engineRecordFile(worktreeId);
  return ids.filter((id) => isValidProjectId(id) && pathExists(path.join(projectsDir, id, file)));
}
