// Writes a build plan to disk as the project's build context: the building
// step's IO, kept out of the pure core (gen/) that made the plan. It owns the
// two host reads generation needs (config `files`, [[context]] files) and must
// never leave a half-written context where a later build would trust it. Its
// IO is host/'s: a walked file is copied no-follow, never waiting on a FIFO,
// into a new file of a fresh private staging directory swapped in whole.

import { randomBytes } from 'node:crypto';
import path from 'node:path';

import type { EffectiveConfig } from '../config/types.js';
import { ByreError, type Location } from '../errors.js';
import { writeFailure } from '../output/system-error.js';
import { ensurePrivateDir } from '../host/atomic-write.js';
import { canonicalPath } from '../host/canonical.js';
import { copyRegularToNew } from '../host/copy-regular.js';
import { makeUserDirsSync } from '../host/make-dirs.js';
import { entryNames, listEntries, lstatEntry, type Stats } from '../host/path-view.js';
import { makeStagingDir, writeNewFileExactModeSync } from '../host/private-temp.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import { moveTreeIn, removeTree, swapTreeIn } from '../host/remove.js';
import type { BuildPlan, ContextEntry } from '../gen/plan.js';

/** What staging writes: a plan's directories and files (a whole plan, or one part of it). */
export type StagePlan = Pick<BuildPlan, 'dirs' | 'entries'>;

/** [[context]] files are read whole; past 16 MiB they are refused. */
export const CONTEXT_FILE_MAX_BYTES = 16 * 1024 * 1024;

const STALE_STAGING_MS = 60 * 60 * 1000;

function isErrno(err: unknown, code: string): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === code;
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** A context-relative path, checked so a plan entry can never write outside the context. */
function contextRelative(entryPath: string): string {
  const normalized = path.posix.normalize(entryPath);
  if (
    entryPath === '' ||
    path.posix.isAbsolute(normalized) ||
    normalized === '.' ||
    normalized === '..' ||
    normalized.startsWith('../')
  ) {
    throw new ByreError(`build context entry "${entryPath}" is not a path inside the context`, {
      rule: 'gen.context-path',
    });
  }
  return normalized;
}

interface FileRef {
  key: string;
  location: Location;
}

function escapesProject(ref: FileRef, where: string): ByreError {
  return new ByreError(`files entry "${ref.key}" resolves outside the project (${where})`, {
    rule: 'files.escapes-project',
    remedy: 'copy what the box needs into the project, or mount it instead (mounts = [...])',
    location: ref.location,
  });
}

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await canonicalPath(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ELOOP')) return null;
    throw err;
  }
}

/** What a `files` source stages: directories to make and regular files to copy, relative to its dest. */
interface ConfinedTree {
  dirs: string[];
  files: { real: string; rel: string }[];
}

/**
 * Walks a project file or tree, following symlinks that stay inside the
 * project and refusing any whose target leaves it. Dangling links and
 * special files (FIFOs, devices, sockets) are skipped, never read; a link
 * cycle is cut where it re-enters a directory being walked.
 */
async function walkConfined(
  root: string,
  ref: FileRef,
  real: string,
  rel: string,
  ancestors: ReadonlySet<string>,
  out: ConfinedTree,
): Promise<void> {
  // `real` has no link left in it: one there now was swapped in since the resolve.
  const info = lstatEntry(real);
  if (info.isSymbolicLink()) throw escapesProject(ref, `${real} became a symbolic link`);
  if (info.isFile()) {
    out.files.push({ real, rel });
    return;
  }
  if (!info.isDirectory() || ancestors.has(real)) return;
  out.dirs.push(rel);
  const inner = new Set(ancestors).add(real);
  for (const name of listEntries(real).sort()) {
    const child = path.join(real, name);
    const childReal = await realpathOrNull(child);
    if (childReal === null) continue;
    if (!isInside(root, childReal)) throw escapesProject(ref, `${child} -> ${childReal}`);
    await walkConfined(root, ref, childReal, path.join(rel, name), inner, out);
  }
}

/** Resolves one `files` source inside the project, or refuses it naming the declaration. */
async function confinedSource(root: string, ref: FileRef, src: string): Promise<ConfinedTree> {
  if (path.isAbsolute(src)) throw escapesProject(ref, src);
  const hostPath = path.resolve(root, src);
  if (!isInside(root, hostPath)) throw escapesProject(ref, hostPath);
  const real = await realpathOrNull(hostPath);
  if (real === null) {
    throw new ByreError(`files entry "${ref.key}": ${hostPath} does not exist`, {
      rule: 'files.source-missing',
      remedy: `create ${hostPath}, or remove the files entry`,
      location: ref.location,
    });
  }
  if (!isInside(root, real)) throw escapesProject(ref, `${hostPath} -> ${real}`);
  const tree: ConfinedTree = { dirs: [], files: [] };
  await walkConfined(root, ref, real, '', new Set(), tree);
  return tree;
}

/**
 * Copies one regular file the walk found, opened without following a link
 * and without blocking: a file swapped for a link or a FIFO since the walk
 * is refused, not read.
 */
async function copyRegular(ref: FileRef, real: string, dest: string, shown: string): Promise<void> {
  const refused = await copyRegularToNew(real, dest, named(shown));
  if (refused === 'symlink') throw escapesProject(ref, `${real} became a symbolic link`);
  if (refused !== null) throw escapesProject(ref, `${real} is no longer a regular file`);
}

/** A rejection handler naming `shown`, the file's place in the live context, in an OS refusal. */
function named(shown: string): (error: unknown) => never {
  return (error) => {
    throw writeFailure(error, shown);
  };
}

async function stageProjectFile(
  root: string,
  ref: FileRef,
  src: string,
  dest: string,
  shown: string,
): Promise<void> {
  const tree = await confinedSource(root, ref, src);
  for (const dir of tree.dirs) {
    makeDirs(path.join(dest, dir), path.join(shown, dir));
  }
  for (const file of tree.files) {
    const rel = file.rel;
    await copyRegular(ref, file.real, path.join(dest, rel), path.join(shown, rel));
  }
}

/**
 * The plan-time check of every `files` source (`byre dockerfile` and develop
 * alike): each exists, and no link in it leads out of the project. Reads
 * names and metadata only; staging repeats the check as it copies.
 */
export async function checkProjectFiles(plan: BuildPlan, projectDir: string): Promise<void> {
  let root: string | null = null;
  for (const entry of plan.entries) {
    if (entry.source.kind !== 'project-file') continue;
    root ??= await canonicalPath(projectDir);
    const { key, location, src } = entry.source;
    await confinedSource(root, { key, location }, src);
  }
}

async function writeEntry(
  staging: string,
  contextDir: string,
  entry: ContextEntry,
  projectRoot: () => Promise<string>,
): Promise<void> {
  const rel = contextRelative(entry.path);
  const dest = path.join(staging, rel);
  // Errors name the file's place in the live context, not the staging dir.
  const shown = path.join(contextDir, rel);
  makeDirs(path.dirname(dest), shown);
  if (entry.source.kind === 'bytes') {
    try {
      writeNewFileExactModeSync(dest, entry.source.bytes, entry.mode);
    } catch (error) {
      named(shown)(error);
    }
    return;
  }
  const { key, location, src } = entry.source;
  await stageProjectFile(await projectRoot(), { key, location }, src, dest, shown);
}

/** mkdir -p of `dir` in the staging tree byre is building; an OS refusal names `shown`. */
function makeDirs(dir: string, shown: string): void {
  try {
    makeUserDirsSync(dir);
  } catch (error) {
    named(shown)(error);
  }
}

async function reapStale(parent: string, base: string): Promise<void> {
  for (const name of entryNames(parent)) {
    const full = path.join(parent, name);
    if (name.startsWith(`.${base}.old-`)) {
      await removeTree(full);
    } else if (name.startsWith(`.${base}.staging-`)) {
      const info = statOrNull(full);
      if (info !== null && Date.now() - info.mtimeMs > STALE_STAGING_MS) {
        await removeTree(full);
      }
    }
  }
}

/** The entry at `p` itself (a link not followed), or null when it cannot be looked at. */
function statOrNull(p: string): Stats | null {
  try {
    return lstatEntry(p);
  } catch {
    return null;
  }
}

/** Moves a fully written staging dir over the live context; the old one is discarded. */
async function swapIn(staging: string, contextDir: string): Promise<void> {
  const old = path.join(
    path.dirname(contextDir),
    `.${path.basename(contextDir)}.old-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await swapTreeIn(staging, contextDir, old);
}

/** Writes `plan` into a fresh private sibling of `contextDir` and returns it; removed on failure. */
async function writeStaging(
  contextDir: string,
  plan: StagePlan,
  projectDir: string,
): Promise<string> {
  const staging = await makeStagingDir(
    path.join(path.dirname(contextDir), `.${path.basename(contextDir)}.staging-`),
  ).catch(named(contextDir));
  let root: Promise<string> | null = null;
  const projectRoot = () => (root ??= canonicalPath(projectDir));
  try {
    for (const dir of plan.dirs) {
      const rel = contextRelative(dir);
      makeDirs(path.join(staging, rel), path.join(contextDir, rel));
    }
    const seen = new Set<string>();
    for (const entry of plan.entries) {
      const rel = contextRelative(entry.path);
      if (seen.has(rel)) {
        throw new ByreError(`two build context files both claim ${rel}`, {
          rule: 'gen.context-conflict',
        });
      }
      seen.add(rel);
      await writeEntry(staging, contextDir, entry, projectRoot);
    }
    return staging;
  } catch (err) {
    // Best effort: a cleanup failure must not hide why staging failed.
    await removeTree(staging).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes `plan` as the build context at `contextDir`. Everything is written
 * into a private sibling first and renamed into place only when complete, so
 * a refusal or crash leaves the previous context (or none), never a mix.
 */
export async function stageBuildContext(
  contextDir: string,
  plan: StagePlan,
  projectDir: string,
): Promise<void> {
  const parent = path.dirname(contextDir);
  await ensurePrivateDir(parent).catch(named(contextDir));
  await reapStale(parent, path.basename(contextDir));
  const staging = await writeStaging(contextDir, plan, projectDir);
  try {
    await swapIn(staging, contextDir).catch(named(contextDir));
  } catch (err) {
    // Best effort: a cleanup failure must not hide why staging failed.
    await removeTree(staging).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes `plan` as a new build context at `target`, which must not exist
 * (`byre dockerfile --context`, adr/0048): staged beside it and renamed into
 * place whole. Never replaces a directory that has something in it.
 */
export async function stageFreshContext(
  target: string,
  plan: StagePlan,
  projectDir: string,
): Promise<void> {
  const staging = await writeStaging(target, plan, projectDir);
  try {
    // rename(2) onto a directory succeeds only when that one is empty.
    await moveTreeIn(staging, target);
  } catch (err) {
    await removeTree(staging);
    throw err;
  }
}

function expandHome(p: string, homeDir: string): string {
  if (p === '~') return homeDir;
  return p.startsWith('~/') ? path.join(homeDir, p.slice(2)) : p;
}

function contextRefusal(
  name: string,
  location: Location,
  rule: string,
  message: string,
  remedy: string,
): ByreError {
  return new ByreError(`context "${name}": ${message}`, { rule, remedy, location });
}

/**
 * The directory a [[context]] file may resolve within: the box-writable
 * root it is declared under (a project, a read-write mount), else the
 * directory it is declared in. A link inside either may point elsewhere in
 * it, never out: otherwise a box could swap the file for a link to a host
 * secret and have the next build bake it into the image.
 */
function contextFileRoot(full: string, writableRoots: readonly string[]): string {
  const holding = writableRoots
    .filter((root) => isInside(root, full))
    .sort((a, b) => a.length - b.length)[0];
  return holding ?? path.dirname(full);
}

/**
 * Reads every [[context]] `file` declaration, keyed as declared, for
 * planBuild: only a regular file (never through a link leaving its root,
 * never waiting on a FIFO), at most 16 MiB.
 */
export async function readContextFiles(
  config: EffectiveConfig,
  homeDir: string,
  writableRoots: readonly string[] = [],
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const entry of config.context) {
    const spec = entry.value;
    if (!('file' in spec) || texts.has(spec.file)) continue;
    const location = { file: entry.from.path ?? entry.from.name, key: `context.${spec.name}` };
    const full = path.resolve(expandHome(spec.file, homeDir));
    const refuse = (rule: string, message: string, remedy: string) =>
      contextRefusal(spec.name, location, rule, message, remedy);
    const real = await realpathOrNull(full);
    if (real === null) {
      throw refuse(
        'context.file-missing',
        `${full} does not exist`,
        `create ${full}, or remove the [[context]] entry "${spec.name}"`,
      );
    }
    const root = contextFileRoot(full, writableRoots);
    const realRoot = (await realpathOrNull(root)) ?? root;
    if (!isInside(realRoot, real)) {
      throw refuse(
        'context.escapes',
        `${full} is a link to ${real}, outside ${root}`,
        `point file at ${real} itself if you mean it, or replace the link with the file`,
      );
    }
    const read = readRegularFile(real, CONTEXT_FILE_MAX_BYTES);
    if (read.kind === 'too-large') {
      throw refuse(
        'context.file-too-large',
        `${full} is larger than 16 MiB`,
        'trim the file; agents truncate long context anyway',
      );
    }
    if (read.kind !== 'ok') {
      const what = read.kind === 'missing' ? 'gone' : describeNotRegular(read.what);
      throw refuse(
        'context.not-file',
        `${full} is ${what}, not a regular file`,
        `point file at a markdown file, or remove the [[context]] entry "${spec.name}"`,
      );
    }
    texts.set(spec.file, read.bytes.toString('utf8'));
  }
  return texts;
}
