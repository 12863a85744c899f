// The one write identity needs in byre's host-side store: the per-id
// canonical path record. Where things live is store-layout.ts.

import { ByreError, RefusedError } from '../errors.js';
import { publishNew } from '../host/atomic-write.js';
import { listEntries } from '../host/path-view.js';
import { isValidProjectId } from './identity.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { projectStorePaths, storePaths } from './store-layout.js';

function decodeRecord(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The canonical path recorded for `id`, or null when none is recorded yet. */
export async function readProjectPath(home: string, id: string): Promise<string | null> {
  return projectPathOf(home, id);
}

/** The longest path record byre reads (a path record is one canonical path). */
export const PATH_RECORD_MAX_BYTES = 8192;

/**
 * readProjectPath, sync: every command reads it before its first engine call
 * (see canonical.ts), and identity reads one per ancestor directory. The
 * record is read as a store file (a box may write the store under
 * --self-edit): never through a link, never waiting on a FIFO, capped; what
 * byre did not write there is refused, never followed or waited on.
 */
export function projectPathOf(home: string, id: string): string | null {
  const file = projectStorePaths(home, id).path;
  const read = readRegularFile(file, PATH_RECORD_MAX_BYTES);
  switch (read.kind) {
    case 'missing':
      return null;
    case 'ok':
      return decodeRecord(read.bytes.toString('utf8'));
    case 'not-regular':
      throw unreadableRecord(file, describeNotRegular(read.what));
    case 'too-large':
      throw unreadableRecord(
        file,
        `${read.size} bytes, over the ${PATH_RECORD_MAX_BYTES} byre reads`,
      );
  }
}

function unreadableRecord(file: string, what: string): ByreError {
  return new ByreError(`the project record ${file} is ${what}; byre writes it as a regular file`, {
    rule: 'project.record-unreadable',
    remedy: `remove ${file}; the project's next launch records it again`,
  });
}

/**
 * Every project directory the store at `home` records, by id (adr/0046: each
 * is a tree its own boxes write). An unreadable or odd record is left out.
 * Sync, like readProjectPath.
 */
export function recordedProjectPaths(home: string): Map<string, string> {
  const out = new Map<string, string>();
  let ids: string[];
  try {
    ids = listEntries(storePaths(home).projects);
  } catch {
    return out;
  }
  for (const id of ids.sort()) {
    if (!isValidProjectId(id)) continue;
    try {
      const read = readRegularFile(projectStorePaths(home, id).path, PATH_RECORD_MAX_BYTES);
      if (read.kind !== 'ok') continue;
      const recorded = decodeRecord(read.bytes.toString('utf8'));
      if (recorded.startsWith('/')) out.set(id, recorded);
    } catch {
      // Unreadable: nothing to add.
    }
  }
  return out;
}

/** Another directory owns the id: a refusal (exit 3, adr/0023), its store is never touched. */
export function projectIdCollision(id: string, recorded: string, canonicalPath: string): ByreError {
  return new RefusedError(
    `project id ${id} already belongs to ${recorded}; ${canonicalPath} maps to the same id`,
    {
      rule: 'project.id-collision',
      remedy: `if ${recorded} moved here, run \`byre rehome\`; otherwise rename one of the two directories`,
    },
  );
}

/**
 * Records `canonicalPath` as the owner of `id`, first writer wins. Publication
 * uses link(2), which fails rather than overwrites, so two racing first
 * launches cannot both believe they own the id.
 */
export async function recordProjectPath(
  home: string,
  id: string,
  canonicalPath: string,
): Promise<void> {
  const existing = await readProjectPath(home, id);
  if (existing !== null) {
    if (existing !== canonicalPath) throw projectIdCollision(id, existing, canonicalPath);
    return;
  }
  if (await publishNew(projectStorePaths(home, id).path, `${canonicalPath}\n`)) return;
  const winner = await readProjectPath(home, id);
  if (winner !== canonicalPath)
    throw projectIdCollision(id, winner ?? '(unreadable)', canonicalPath);
}
