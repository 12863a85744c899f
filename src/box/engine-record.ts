// The per-worktree engine records on disk (projects/<id>/engine.<worktreeId>,
// adr/0032): read like every store file (no link followed, no FIFO waited
// on, size capped), written atomically under the setup lock.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../project/atomic-write.js';
import { readRegularFile } from '../project/read-regular.js';
import {
  engineRecordFile,
  formatEngineRecord,
  parseEngineRecord,
  type EngineRecord,
} from './engine-scope.js';

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
  try {
    return readdirSync(projectDir).some((n) => n.startsWith(PREFIX));
  } catch {
    return false;
  }
}

/** Every other worktree's record of the project; null for one that cannot be read. */
export function readOtherEngineRecords(
  projectDir: string,
  worktreeId: string,
): (EngineRecord | null)[] {
  let names: string[];
  try {
    names = readdirSync(projectDir);
  } catch {
    return [];
  }
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
