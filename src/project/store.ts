// The one write identity needs in byre's host-side store: the per-id
// canonical path record. Where things live is store-layout.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { link, unlink } from 'node:fs/promises';

import { ByreError, RefusedError } from '../errors.js';
import { ensurePrivateDir, writeTempSibling } from '../host/atomic-write.js';
import { isValidProjectId } from './identity.js';
import { readRegularFile } from '../host/read-regular.js';
import { projectStorePaths, storePaths } from './store-layout.js';

function decodeRecord(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The canonical path recorded for `id`, or null when none is recorded yet. */
export async function readProjectPath(home: string, id: string): Promise<string | null> {
  return projectPathOf(home, id);
}

/**
 * readProjectPath, sync: every command reads it before its first engine call
 * (see canonical.ts), and identity reads one per ancestor directory.
 */
export function projectPathOf(home: string, id: string): string | null {
  try {
    return decodeRecord(readFileSync(projectStorePaths(home, id).path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/** The longest path record byre reads (a path record is one canonical path). */
const PATH_RECORD_MAX_BYTES = 8192;

/**
 * Every project directory the store at `home` records, by id (adr/0046: each
 * is a tree its own boxes write). An unreadable or odd record is left out.
 * Sync, like readProjectPath.
 */
export function recordedProjectPaths(home: string): Map<string, string> {
  const out = new Map<string, string>();
  let ids: string[];
  try {
    ids = readdirSync(storePaths(home).projects);
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
  const paths = projectStorePaths(home, id);
  const existing = await readProjectPath(home, id);
  if (existing !== null) {
    if (existing !== canonicalPath) throw projectIdCollision(id, existing, canonicalPath);
    return;
  }
  await ensurePrivateDir(paths.dir);
  const temp = await writeTempSibling(paths.path, `${canonicalPath}\n`);
  try {
    await link(temp, paths.path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = await readProjectPath(home, id);
    if (winner !== canonicalPath)
      throw projectIdCollision(id, winner ?? '(unreadable)', canonicalPath);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
