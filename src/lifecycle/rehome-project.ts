// Re-pointing a moved project's identity onto its new path-derived id: find
// stored ids whose directory is gone, copy their volumes to the new names with
// a helper container, carry the stored config over, then retire the old id.
// The config moves through the one config writer (adr/0010: checked by the
// loader before any engine work, published create-only); rehome edits nothing
// in it beyond the writer's standing migrations, never pulls an image, and
// never deletes the old store unless every engine was reached and every step held.
// It is also how a directory whose own identity changed accepts the change
// (adr/0047): a project root that became a linked worktree is rehomed in place;
// a linked worktree that became something else leaves its project.

import path from 'node:path';
import type { Writer } from '../io.js';
import { projectConfigFile, writeConfig } from '../config/write.js';
import { ByreError, ConfigError, RefusedError } from '../errors.js';
import { rootShellHelperArgv } from '../engine/argv.js';
import { LABEL } from '../gen/names.js';
import type { Engine } from '../engine/engine.js';
import { escapeTerminal } from '../output/escape.js';
import { say } from '../output/notes.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { listEntries, lstatEntry, pathExists } from '../host/path-view.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { removeTree } from '../host/remove.js';
import { MAX_CONFIG_BYTES, parseLayer } from '../config/parse.js';
import type { ProjectContext } from '../project/context.js';
import { isValidProjectId } from '../project/identity.js';
import { identityChangeRefusal } from '../project/identity-change.js';
import {
  recordIdentity,
  removeWorktreeRecord,
  retargetWorktreeRecords,
} from '../project/identity-record.js';
import { PATH_RECORD_MAX_BYTES, readProjectPath } from '../project/store.js';
import { besideFolder, projectStorePaths, storeTag } from '../project/store-layout.js';
import {
  describeUnreached,
  removeInventory,
  takeInventory,
  type Inventory,
  type RemovalFailure,
  type Unreached,
} from './inventory.js';
import type { EnginePool } from '../engine/pool.js';
import { projectVolumePrefix } from './project-objects.js';
import { findSessions } from '../session/census.js';

/** The base image a helper may fall back to, only when it is already local. */
const FALLBACK_HELPER_IMAGE = 'debian:bookworm';

/** Store files rehome carries to the new id, verbatim. */
const MIGRATED_FILES = ['byre.config', 'applied', 'onboarded'] as const;

interface RehomeCandidate {
  id: string;
  /** The recorded path, which no longer exists. */
  path: string;
  /** mtime of the path record, for "most recent first". */
  recordedAt: Date;
}

/** Stored ids whose recorded path is gone, most recent first; `exclude` is this directory's id. */
export async function listRehomeCandidates(
  projectsDir: string,
  exclude: string,
): Promise<RehomeCandidate[]> {
  let entries: string[];
  try {
    entries = listEntries(projectsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: RehomeCandidate[] = [];
  for (const id of entries) {
    if (id === exclude || !isValidProjectId(id)) continue;
    const record = path.join(projectsDir, id, 'path');
    let text: string;
    let mtime: Date;
    try {
      // A record byre did not write (a link, a FIFO, a huge file) names no candidate.
      const read = readRegularFile(record, PATH_RECORD_MAX_BYTES);
      if (read.kind !== 'ok') continue;
      text = read.bytes.toString('utf8');
      mtime = lstatEntry(record).mtime;
    } catch {
      continue;
    }
    const recorded = text.endsWith('\n') ? text.slice(0, -1) : text;
    if (recorded === '' || pathExists(recorded)) continue;
    out.push({ id, path: recorded, recordedAt: mtime });
  }
  return out.sort(
    (a, b) => b.recordedAt.getTime() - a.recordedAt.getTime() || (a.id < b.id ? -1 : 1),
  );
}

/** `byre-<old>-<name>` → `byre-<new>-<name>`. */
function renamedVolume(oldId: string, newId: string, volume: string): string {
  const prefix = projectVolumePrefix(oldId);
  if (!volume.startsWith(prefix)) throw new RangeError(`${volume} is not a volume of ${oldId}`);
  return `${projectVolumePrefix(newId)}${volume.slice(prefix.length)}`;
}

/** The helper that copies one volume into another, ownership and modes kept (`cp -a`). */
export function migrateVolumeArgv(
  from: string,
  to: string,
  image: string,
  keepId: boolean,
): string[] {
  return [
    ...rootShellHelperArgv(keepId),
    '--mount',
    `type=volume,source=${from},target=/from`,
    '--mount',
    `type=volume,source=${to},target=/to`,
    image,
    '-c',
    'cp -a /from/. /to/',
  ];
}

/** The old id's image, else the new id's, else the local fallback; never one byre would have to pull. */
export function chooseHelperImage(
  oldImages: readonly string[],
  newImages: readonly string[],
  fallbackIsLocal: boolean,
): string | null {
  const tagged = (list: readonly string[]): string | undefined =>
    list.find((i) => !i.startsWith('sha256:')) ?? list[0];
  return tagged(oldImages) ?? tagged(newImages) ?? (fallbackIsLocal ? FALLBACK_HELPER_IMAGE : null);
}

/** The first store file that both ids hold with different bytes; migrating would overwrite it. */
function storeConflict(
  files: readonly { name: string; old: string | null; current: string | null }[],
): string | null {
  return (
    files.find((f) => f.old !== null && f.current !== null && f.old !== f.current)?.name ?? null
  );
}

/**
 * A store file that rehome carries over (a config, a marker), or null when
 * absent; one byre did not write there (a link, a FIFO, over the config cap)
 * is refused, never followed or waited on.
 */
function readMaybe(file: string): string | null {
  const read = readRegularFile(file, MAX_CONFIG_BYTES);
  switch (read.kind) {
    case 'missing':
      return null;
    case 'ok':
      return read.bytes.toString('utf8');
    case 'not-regular':
    case 'too-large':
      throw new ByreError(
        `${file} is ${read.kind === 'too-large' ? `over ${MAX_CONFIG_BYTES} bytes` : describeNotRegular(read.what)}; byre writes it as a small regular file`,
        {
          rule: 'rehome.store-file-unreadable',
          remedy: `remove ${file}, or move it aside, and run byre rehome again`,
        },
      );
  }
}

interface RehomeRequest {
  ctx: ProjectContext;
  oldId: string;
  pool: EnginePool;
  stderr: Writer;
}

interface EnginePlan {
  engine: Engine;
  engineName: string;
  image: string;
  copies: { from: string; to: string }[];
}

/**
 * This directory was a linked worktree of `oldId` and the user made it
 * something else (adr/0047): it leaves that project, whose store, volumes and
 * image stay (its other worktrees use them). A new identity without a config
 * starts from a copy of the old one, so the box keeps its restrictions.
 */
export async function leaveProject(
  req: Pick<RehomeRequest, 'ctx' | 'oldId' | 'stderr'>,
): Promise<void> {
  const { ctx, oldId, stderr } = req;
  const home = ctx.store.home;
  const old = readMaybe(projectStorePaths(home, oldId).config);
  const current = readMaybe(ctx.project.config);
  if (old !== null && current === null) {
    const file = projectStorePaths(home, oldId).config;
    const checked = parseLayer(old, { file, kind: 'project', name: 'project' });
    if (checked.issues.length > 0) throw new ConfigError(checked.issues);
  }
  removeWorktreeRecord(home, ctx.worktreeId);
  await recordIdentity(home, ctx);
  if (old !== null && current === null) {
    await writeConfig(projectConfigFile(ctx.project), () => old, { createOnly: true });
    say(stderr, `copied ${oldId}'s config to ${ctx.project.config}`);
  }
  say(
    stderr,
    `${ctx.worktreeDir} is no longer a worktree of project ${oldId}; byre now runs it as ${ctx.projectId}`,
  );
}

/** A store file rehome carries: the old id's bytes and this directory's, each null when absent. */
interface CarriedFile {
  name: (typeof MIGRATED_FILES)[number];
  old: string | null;
  current: string | null;
}

export async function rehomeProject(req: RehomeRequest): Promise<void> {
  const { ctx, oldId, pool, stderr } = req;
  const newId = ctx.projectId;
  const home = ctx.store.home;
  // This directory's own identity changed: only its recorded id is rehomed here.
  const change = ctx.identityChange;
  if (change !== null) {
    if (change.recorded.projectId !== oldId) throw identityChangeRefusal(change);
    if (change.recorded.as === 'worktree') return leaveProject(req);
  }
  const oldPath = await checkRehomeIds(ctx, oldId);
  const oldPaths = projectStorePaths(home, oldId);
  const files = await readCarriedFiles(ctx, oldPaths.dir);
  await refuseLiveSessions(pool, [oldId, newId]);

  const oldInv = await takeInventory(pool, oldId, { images: true });
  const newInv = await takeInventory(pool, newId, { images: true });
  const unreached = [...oldInv.unreached];
  for (const u of newInv.unreached)
    if (!unreached.some((x) => x.name === u.name)) unreached.push(u);

  await copyVolumes(await planCopies(oldInv, newInv, oldId, newId), { oldId, newId, home, stderr });
  await moveStoreFiles(ctx, files, stderr);
  await recordIdentity(home, ctx);
  await retargetWorktreeRecords(home, oldId, newId);
  await retireOldId(oldInv, unreached, oldId, oldPaths, stderr);
  say(
    stderr,
    `rehomed ${oldId} (was ${oldPath}) onto ${newId}; its old volumes, images and store are gone`,
  );
}

/**
 * The refusals that need no engine: a linked worktree, a malformed, equal,
 * unknown or still-present old id, a new id another directory holds.
 * Returns the old id's recorded path.
 */
async function checkRehomeIds(ctx: ProjectContext, oldId: string): Promise<string> {
  const newId = ctx.projectId;
  const home = ctx.store.home;
  const inPlace = ctx.identityChange !== null;
  if (ctx.isLinkedWorktree && !inPlace) {
    throw new RefusedError('byre rehome runs from the main worktree, not a linked one', {
      rule: 'rehome.worktree',
      remedy:
        'a linked worktree re-resolves to its project once git’s own pointers are repaired (`git worktree repair` from the moved main worktree)',
    });
  }
  if (!isValidProjectId(oldId)) {
    throw new ByreError(`"${escapeTerminal(oldId)}" is not a byre project id`, {
      rule: 'rehome.invalid-id',
      remedy: 'run byre rehome with no argument to list the ids of moved projects',
    });
  }
  if (oldId === newId) {
    throw new ByreError(`${oldId} is already this directory’s id; there is nothing to rehome`, {
      rule: 'rehome.same-id',
    });
  }
  const oldPath = await readProjectPath(home, oldId);
  if (oldPath === null) {
    throw new ByreError(`byre has no stored project ${oldId}`, {
      rule: 'rehome.unknown-id',
      remedy: 'run byre rehome with no argument to list the ids of moved projects',
    });
  }
  if (pathExists(oldPath) && !(inPlace && oldPath === ctx.worktreeDir)) {
    throw new ByreError(`project ${oldId} still has its directory ${oldPath}; nothing moved`, {
      rule: 'rehome.not-moved',
      remedy:
        'rehome is for a project whose directory moved; two live copies each keep their own id',
    });
  }
  const newRecorded = await readProjectPath(home, newId);
  if (newRecorded !== null && newRecorded !== ctx.projectRoot) {
    throw new ByreError(`project id ${newId} already belongs to ${newRecorded}`, {
      rule: 'project.id-collision',
      remedy: 'rename one of the two directories',
    });
  }
  return oldPath;
}

/**
 * Both ids' copies of the store files rehome carries, refused when one would
 * overwrite the other, and the config that will move checked as a project
 * file at the old file, before any volume is copied.
 */
async function readCarriedFiles(ctx: ProjectContext, oldDir: string): Promise<CarriedFile[]> {
  const files = MIGRATED_FILES.map((name) => ({
    name,
    old: readMaybe(path.join(oldDir, name)),
    current: readMaybe(path.join(ctx.project.dir, name)),
  }));
  const conflict = storeConflict(files);
  if (conflict !== null) {
    const file = path.join(ctx.project.dir, conflict);
    throw new RefusedError(
      `${file} already exists and differs from ${path.join(oldDir, conflict)}`,
      {
        rule: 'rehome.config-conflict',
        remedy: `keep the one you want: remove ${file} to take the old project’s, or forget the old id instead of rehoming it`,
      },
    );
  }
  const carried = files.find((f) => f.name === 'byre.config' && f.current === null)?.old;
  if (carried !== undefined && carried !== null) {
    const file = path.join(oldDir, 'byre.config');
    const checked = parseLayer(carried, { file, kind: 'project', name: 'project' });
    if (checked.issues.length > 0) throw new ConfigError(checked.issues);
  }
  return files;
}

/** Refused while a box of either id runs: its volumes would change under the copy. */
async function refuseLiveSessions(pool: EnginePool, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const scan = await findSessions(pool, { projectId: id });
    const live = scan.boxes[0];
    if (live !== undefined) {
      const short = live.id.slice(0, 12);
      throw new RefusedError(`a session of project ${id} is live (${live.engineName} ${short})`, {
        rule: 'rehome.session-live',
        remedy: `end it first (${live.engineName} stop ${short}), then run byre rehome again`,
      });
    }
  }
}

/** One plan per engine holding old volumes: its copies and a local helper image, or a refusal. */
async function planCopies(
  oldInv: Inventory,
  newInv: Inventory,
  oldId: string,
  newId: string,
): Promise<EnginePlan[]> {
  const plans: EnginePlan[] = [];
  for (const inv of oldInv.engines) {
    if (inv.volumes.doomed.length === 0) continue;
    const newImages = newInv.engines.find((e) => e.engineName === inv.engineName)?.images ?? [];
    const fallback = await inv.engine.imageExists(FALLBACK_HELPER_IMAGE).catch(() => false);
    const image = chooseHelperImage(inv.images, newImages, fallback);
    if (image === null) {
      throw new ByreError(
        `no local image on ${inv.engineName} can run the copy helper (neither project’s image, nor ${FALLBACK_HELPER_IMAGE}); byre never pulls one`,
        {
          rule: 'rehome.no-helper-image',
          remedy: 'run byre develop first, then byre rehome again',
        },
      );
    }
    plans.push({
      engine: inv.engine,
      engineName: inv.engineName,
      image,
      copies: inv.volumes.doomed.map((from) => ({ from, to: renamedVolume(oldId, newId, from) })),
    });
  }
  return plans;
}

/** Each old volume copied into its new-id name (created labelled when missing); a failure stops before anything is removed. */
async function copyVolumes(
  plans: readonly EnginePlan[],
  ids: { oldId: string; newId: string; home: string; stderr: Writer },
): Promise<void> {
  const { oldId, newId, home, stderr } = ids;
  for (const plan of plans) {
    for (const { from, to } of plan.copies) {
      try {
        if (!(await plan.engine.volumeExists(to))) {
          await plan.engine.volumeCreate(to, {
            [LABEL.project]: newId,
            [LABEL.store]: storeTag(home),
          });
        }
        await plan.engine.run(migrateVolumeArgv(from, to, plan.image, plan.engine.facts.keepId));
      } catch (error) {
        throw new ByreError(
          `copying ${plan.engineName} volume ${from} to ${to} failed; nothing of ${oldId} was removed`,
          {
            rule: 'rehome.copy-failed',
            remedy: 'fix the cause above and run byre rehome again (copies repeat safely)',
            cause: error,
          },
        );
      }
      say(stderr, `copied ${plan.engineName} volume ${from} → ${to}`);
    }
  }
}

/** The old id's store files this directory lacks, written here (the config through the one config writer). */
async function moveStoreFiles(
  ctx: ProjectContext,
  files: readonly CarriedFile[],
  stderr: Writer,
): Promise<void> {
  for (const f of files) {
    const old = f.old;
    if (old === null || f.current !== null) continue;
    if (f.name === 'byre.config') {
      await writeConfig(projectConfigFile(ctx.project), () => old, { createOnly: true });
    } else await writeFileAtomic(path.join(ctx.project.dir, f.name), old);
    say(stderr, `moved ${f.name} to ${ctx.project.dir}`);
  }
}

/** The old id's objects removed, and its store too only when every engine was reached and every removal held. */
async function retireOldId(
  oldInv: Inventory,
  unreached: readonly Unreached[],
  oldId: string,
  oldPaths: Pick<
    ReturnType<typeof projectStorePaths>,
    'dir' | 'boundWiring' | 'edge' | 'edgeImageContext' | 'edgeImageRecord' | 'receipts'
  >,
  stderr: Writer,
): Promise<void> {
  const oldDir = oldPaths.dir;
  const failures: RemovalFailure[] = [];
  for (const inv of oldInv.engines) failures.push(...(await removeInventory(inv)));
  for (const a of oldInv.engines.flatMap((e) => e.volumes.ambiguous)) {
    say(stderr, `left alone: volume ${a.name} (unlabelled; it may belong to project ${a.maybe})`);
  }
  if (failures.length > 0 || unreached.length > 0) {
    const parts = [
      ...failures.map((f) => `could not remove ${f.where} ${f.what} (${f.message})`),
      ...(unreached.length > 0 ? [`could not reach ${describeUnreached(unreached)}`] : []),
    ];
    throw new ByreError(
      `project ${oldId} was only partly rehomed: ${parts.join('; ')}. Its store ${oldDir} is kept`,
      {
        rule: 'rehome.incomplete',
        remedy: `fix the engine or object named above, then run byre rehome ${oldId} here again`,
      },
    );
  }
  await removeTree(oldDir);
  // What it kept beside the folder: the wiring its boxes bound (adr/0075;
  // the new id stages its own), its edge certificates (adr/0070; the new
  // id's image gets its own CA), its delivery receipts (of the old boxes).
  for (const dir of besideFolder(oldPaths)) await removeTree(dir);
}
