// The layout of byre's host-side store (BYRE_HOME, default ~/.byre) and the
// one write identity needs: the per-id canonical path record. Path helpers are
// pure; only recordProjectPath/readProjectPath touch the disk.

import { createHash } from 'node:crypto';
import { link, readFile, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { ByreError } from '../errors.js';
import { ensurePrivateDir, writeTempSibling } from './atomic-write.js';
import { isValidProjectId } from './identity.js';

/** The store root: $BYRE_HOME when set and non-empty, else ~/.byre. */
export function byreHome(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string = os.homedir(),
): string {
  const override = env['BYRE_HOME'];
  return override !== undefined && override !== ''
    ? path.resolve(override)
    : path.join(homeDir, '.byre');
}

/**
 * The `byre.store` label value for objects this store makes: 16 hex of the
 * sha256 of its path. Another user's, or another BYRE_HOME's, objects on a
 * shared engine carry another value, so doctor never prunes them (adr/0015).
 */
export function storeTag(home: string): string {
  return createHash('sha256').update(`byre-store\0${home}`, 'utf8').digest('hex').slice(0, 16);
}

export interface StorePaths {
  home: string;
  defaultConfig: string;
  templates: string;
  layers: string;
  skills: string;
  packages: string;
  projects: string;
}

export function storePaths(home: string): StorePaths {
  return {
    home,
    defaultConfig: path.join(home, 'default.config'),
    templates: path.join(home, 'templates'),
    layers: path.join(home, 'layers'),
    skills: path.join(home, 'skills'),
    packages: path.join(home, 'packages'),
    projects: path.join(home, 'projects'),
  };
}

export interface ProjectStorePaths {
  dir: string;
  /** The project's consent document. */
  config: string;
  /** The canonical path this id was derived from (the collision check). */
  path: string;
  /** The setup lock. */
  lock: string;
  launches: string;
  /** The build context, replaced wholesale at every generate. */
  context: string;
}

/** Paths under projects/<id>/. Refuses ids projectIdFor cannot produce (no traversal). */
export function projectStorePaths(home: string, id: string): ProjectStorePaths {
  if (!isValidProjectId(id)) {
    throw new ByreError(`"${id}" is not a byre project id`, { rule: 'project.invalid-id' });
  }
  const dir = path.join(home, 'projects', id);
  return {
    dir,
    config: path.join(dir, 'byre.config'),
    path: path.join(dir, 'path'),
    lock: path.join(dir, 'lock'),
    launches: path.join(dir, 'launches'),
    context: path.join(dir, 'context'),
  };
}

function decodeRecord(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The canonical path recorded for `id`, or null when none is recorded yet. */
export async function readProjectPath(home: string, id: string): Promise<string | null> {
  try {
    return decodeRecord(await readFile(projectStorePaths(home, id).path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function projectIdCollision(id: string, recorded: string, canonicalPath: string): ByreError {
  return new ByreError(
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
