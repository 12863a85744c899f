// Writes a build plan to disk as the project's build context. It owns the two
// host reads generation needs (config `files`, [[context]] files) and must never
// leave a half-written context where a later build would trust it.

// eslint-disable-next-line no-restricted-imports -- stage.ts is gen/'s designated IO module
import * as fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import type { EffectiveConfig } from '../config/types.js';
import { ByreError, type Location } from '../errors.js';
import type { BuildPlan, ContextEntry } from './plan.js';

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
    return await fs.realpath(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ELOOP')) return null;
    throw err;
  }
}

/**
 * Copies a project file or tree, dereferencing symlinks, and refuses any link
 * whose target leaves the project. Dangling links and special files are
 * skipped; a link cycle is cut where it re-enters a directory being copied.
 */
async function copyConfined(
  root: string,
  ref: FileRef,
  real: string,
  dest: string,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  const info = await fs.stat(real);
  if (info.isFile()) {
    await fs.copyFile(real, dest);
    await fs.chmod(dest, info.mode & 0o777);
    return;
  }
  if (!info.isDirectory() || ancestors.has(real)) return;
  await fs.mkdir(dest, { recursive: true });
  const inner = new Set(ancestors).add(real);
  for (const name of (await fs.readdir(real)).sort()) {
    const child = path.join(real, name);
    const childReal = await realpathOrNull(child);
    if (childReal === null) continue;
    if (!isInside(root, childReal)) throw escapesProject(ref, `${child} -> ${childReal}`);
    await copyConfined(root, ref, childReal, path.join(dest, name), inner);
  }
}

async function stageProjectFile(
  root: string,
  ref: FileRef,
  src: string,
  dest: string,
): Promise<void> {
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
  await copyConfined(root, ref, real, dest, new Set());
}

async function writeEntry(
  staging: string,
  entry: ContextEntry,
  projectRoot: () => Promise<string>,
): Promise<void> {
  const dest = path.join(staging, contextRelative(entry.path));
  await fs.mkdir(path.dirname(dest), { recursive: true });
  if (entry.source.kind === 'bytes') {
    await fs.writeFile(dest, entry.source.bytes, { mode: entry.mode });
    await fs.chmod(dest, entry.mode);
    return;
  }
  const { key, location, src } = entry.source;
  await stageProjectFile(await projectRoot(), { key, location }, src, dest);
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

/**
 * Writes `plan` as the build context at `contextDir`. Everything is written
 * into a private sibling first and renamed into place only when complete, so
 * a refusal or crash leaves the previous context (or none), never a mix.
 */
export async function stageBuildContext(
  contextDir: string,
  plan: BuildPlan,
  projectDir: string,
): Promise<void> {
  const parent = path.dirname(contextDir);
  const base = path.basename(contextDir);
  await fs.mkdir(parent, { recursive: true, mode: 0o700 });
  await reapStale(parent, base);
  const staging = await fs.mkdtemp(path.join(parent, `.${base}.staging-`));
  let root: Promise<string> | null = null;
  const projectRoot = () => (root ??= fs.realpath(path.resolve(projectDir)));
  try {
    for (const dir of plan.dirs) {
      await fs.mkdir(path.join(staging, contextRelative(dir)), { recursive: true });
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
      await writeEntry(staging, entry, projectRoot);
    }
    await swapIn(staging, contextDir);
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
}

function expandHome(p: string, homeDir: string): string {
  if (p === '~') return homeDir;
  return p.startsWith('~/') ? path.join(homeDir, p.slice(2)) : p;
}

/** Reads every [[context]] `file` declaration, keyed as declared, for planBuild. */
export async function readContextFiles(
  config: EffectiveConfig,
  homeDir: string,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const entry of config.context) {
    const spec = entry.value;
    if (!('file' in spec) || texts.has(spec.file)) continue;
    const location = { file: entry.from.path ?? entry.from.name, key: `context.${spec.name}` };
    const full = expandHome(spec.file, homeDir);
    let info;
    try {
      info = await fs.stat(full);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      throw new ByreError(`context "${spec.name}": ${full} does not exist`, {
        rule: 'context.file-missing',
        remedy: `create ${full}, or remove the [[context]] entry "${spec.name}"`,
        location,
      });
    }
    if (info.size > CONTEXT_FILE_MAX_BYTES) {
      throw new ByreError(`context "${spec.name}": ${full} is larger than 16 MiB`, {
        rule: 'context.file-too-large',
        remedy: 'trim the file; agents truncate long context anyway',
        location,
      });
    }
    texts.set(spec.file, await fs.readFile(full, 'utf8'));
  }
  return texts;
}
