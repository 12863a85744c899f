// Writes a build plan to disk as the project's build context: the building
// step's IO, kept out of the pure core (gen/) that made the plan. It owns the
// two host reads generation needs (config `files`, [[context]] files) and must
// never leave a half-written context where a later build would trust it.

import * as fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import type { EffectiveConfig } from '../config/types.js';
import { ByreError, type Location } from '../errors.js';
import { writeFailure } from '../output/system-error.js';
import { describeNotRegular, readRegularFile } from '../host/read-regular.js';
import type { BuildPlan, ContextEntry } from '../gen/plan.js';

/** What staging writes: a plan's directories and files (a whole plan, or one part of it). */
export type StagePlan = Pick<BuildPlan, 'dirs' | 'entries'>;

/** [[context]] files are read whole; past 16 MiB they are refused. */
export const CONTEXT_FILE_MAX_BYTES = 16 * 1024 * 1024;

const STALE_STAGING_MS = 60 * 60 * 1000;
const COPY_CHUNK_BYTES = 1024 * 1024;

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
    return await fs.realpath(p);
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
  const info = await fs.stat(real);
  if (info.isFile()) {
    out.files.push({ real, rel });
    return;
  }
  if (!info.isDirectory() || ancestors.has(real)) return;
  out.dirs.push(rel);
  const inner = new Set(ancestors).add(real);
  for (const name of (await fs.readdir(real)).sort()) {
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
  let source: fs.FileHandle;
  try {
    const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
    source = await fs.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if (isErrno(err, 'ELOOP')) throw escapesProject(ref, `${real} became a symbolic link`);
    throw err;
  }
  try {
    const info = await source.stat();
    if (!info.isFile()) throw escapesProject(ref, `${real} is no longer a regular file`);
    const target = await fs.open(dest, 'wx', info.mode & 0o777).catch(named(shown));
    try {
      const buffer = Buffer.alloc(COPY_CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead).catch(named(shown));
      }
      await target.chmod(info.mode & 0o777).catch(named(shown));
    } finally {
      await target.close().catch(named(shown));
    }
  } finally {
    await source.close();
  }
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
    await fs.mkdir(path.join(dest, dir), { recursive: true }).catch(named(path.join(shown, dir)));
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
    root ??= await fs.realpath(path.resolve(projectDir));
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
  await fs.mkdir(path.dirname(dest), { recursive: true }).catch(named(shown));
  if (entry.source.kind === 'bytes') {
    await fs.writeFile(dest, entry.source.bytes, { mode: entry.mode }).catch(named(shown));
    await fs.chmod(dest, entry.mode).catch(named(shown));
    return;
  }
  const { key, location, src } = entry.source;
  await stageProjectFile(await projectRoot(), { key, location }, src, dest, shown);
}

async function reapStale(parent: string, base: string): Promise<void> {
  const names = await fs.readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const full = path.join(parent, name);
    if (name.startsWith(`.${base}.old-`)) {
      await fs.rm(full, { recursive: true, force: true });
    } else if (name.startsWith(`.${base}.staging-`)) {
      const info = await fs.stat(full).catch(() => null);
      if (info !== null && Date.now() - info.mtimeMs > STALE_STAGING_MS) {
        await fs.rm(full, { recursive: true, force: true });
      }
    }
  }
}

/** Moves a fully written staging dir over the live context; the old one is discarded. */
async function swapIn(staging: string, contextDir: string): Promise<void> {
  const parent = path.dirname(contextDir);
  const old = path.join(
    parent,
    `.${path.basename(contextDir)}.old-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  let moved = false;
  try {
    await fs.rename(contextDir, old);
    moved = true;
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  try {
    await fs.rename(staging, contextDir);
  } catch (err) {
    if (moved) await fs.rename(old, contextDir).catch(() => undefined);
    throw err;
  }
  if (moved) await fs.rm(old, { recursive: true, force: true });
}

/** Writes `plan` into a fresh private sibling of `contextDir` and returns it; removed on failure. */
async function writeStaging(
  contextDir: string,
  plan: StagePlan,
  projectDir: string,
): Promise<string> {
  const staging = await fs
    .mkdtemp(path.join(path.dirname(contextDir), `.${path.basename(contextDir)}.staging-`))
    .catch(named(contextDir));
  let root: Promise<string> | null = null;
  const projectRoot = () => (root ??= fs.realpath(path.resolve(projectDir)));
  try {
    for (const dir of plan.dirs) {
      const rel = contextRelative(dir);
      await fs
        .mkdir(path.join(staging, rel), { recursive: true })
        .catch(named(path.join(contextDir, rel)));
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
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
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
  await fs.mkdir(parent, { recursive: true, mode: 0o700 }).catch(named(contextDir));
  await reapStale(parent, path.basename(contextDir));
  const staging = await writeStaging(contextDir, plan, projectDir);
  try {
    await swapIn(staging, contextDir).catch(named(contextDir));
  } catch (err) {
    // Best effort: a cleanup failure must not hide why staging failed.
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
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
  plan: BuildPlan,
  projectDir: string,
): Promise<void> {
  const staging = await writeStaging(target, plan, projectDir);
  try {
    // rename(2) onto a directory succeeds only when that one is empty.
    await fs.rename(staging, target);
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
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
export function contextFileRoot(full: string, writableRoots: readonly string[]): string {
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
