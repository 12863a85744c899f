// Authoring verbs over the store: init, fork, adopt and pack a package, the
// bundled display mirror, and the reverse lookup of which configs name an id.
// Every write is staged and then renamed; a failed check rolls back. Its IO is
// host/'s: a package's files are read never through a link, never waiting on
// a FIFO, under a cap, and written new into a fresh staging directory.
// Over 500 lines: init, fork, adopt and pack share the staged-write and manifest helpers.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { applyEdits, TomlDocError, type TomlEdit } from '../../tomldoc/index.js';
import {
  BUNDLED_NAMES,
  NEW_PACKAGE_ID,
  NONE,
  PACKAGE_REF,
  RETIRED_BUNDLED,
} from '../../config/grammar.js';
import { embeddedBytes, embeddedIsExecutable, embeddedPaths, VERSION } from '../../embedded.js';
import { ByreError, ConfigError } from '../../errors.js';
import { configTextIssue, readConfigText } from '../../config/read.js';
import { ensurePrivateDir } from '../../host/atomic-write.js';
import { canonicalPathSync } from '../../host/canonical.js';
import { linkNewDir } from '../../host/link.js';
import { makeDirsNoFollow, makeUserDirsSync } from '../../host/make-dirs.js';
import { entryKind, listEntries, pathExists } from '../../host/path-view.js';
import { writeNewFileExactModeSync, writeNewFileSync } from '../../host/private-temp.js';
import { readRegularFile } from '../../host/read-regular.js';
import { moveTreeIn, removeEntry, removeTree, replaceTree } from '../../host/remove.js';
import { writeFailure } from '../../output/system-error.js';
import { LAYER_CONFIG_FILE, PROJECT_CONFIG_FILE, storePaths } from '../../project/store-layout.js';
import {
  BUNDLED_OWNER,
  listedFiles,
  loadCatalog,
  localPackageDir,
  type CatalogEntry,
} from '../catalog.js';
import { packageDigest, sha256Hex } from '../digest.js';
import {
  MANIFEST_FILE,
  parseSkillManifest,
  parseTemplatePackage,
  type PackageFileEntry,
  type PackageKind,
  type PackageMeta,
} from '../manifest/index.js';
import { tombstoneInstall } from '../../config/source-hint.js';
import { FETCH_LIMITS } from './fetch.js';
import { fsTree, readPackageFile } from './fs-tree.js';

interface PayloadFile {
  rel: string;
  content: Uint8Array;
  executable: boolean;
}

const q = (s: string): string => JSON.stringify(s);

/** The bundled mirror's version stamp is one short line. */
const STAMP_MAX_BYTES = 256;

// ---------------------------------------------------------------- manifest edits

/**
 * Edits a package manifest through the document engine (ADR 0010): only the
 * bytes an edit must touch change, so the author's comments and layout stay.
 * A manifest the engine cannot read is refused with its location.
 */
function editManifest(text: string, file: string, edits: readonly TomlEdit[]): string {
  try {
    return applyEdits(text, edits);
  } catch (error) {
    if (!(error instanceof TomlDocError)) throw error;
    const at = error.line === undefined ? {} : { line: error.line, column: error.column ?? 1 };
    throw new ByreError(`cannot edit ${file}: ${error.message}`, {
      rule: 'package.manifest-unreadable',
      location: { file, ...at },
      remedy: 'fix the manifest by hand (byre skill validate or byre template validate says where)',
    });
  }
}

/** The manifest under `id`, its old [[package.files]] gone: a fork's manifest, and what pack lists anew. */
export function rebasedManifest(text: string, file: string, id: string): string {
  return editManifest(text, file, [
    { op: 'delete', path: ['package', 'files'] },
    { op: 'set', path: ['package', 'id'], value: id },
  ]);
}

/** The distribution manifest: rebased, then one [[package.files]] entry per payload file. */
export function packedManifest(
  text: string,
  file: string,
  id: string,
  files: readonly PackageFileEntry[],
): string {
  return editManifest(
    rebasedManifest(text, file, id),
    file,
    files.map((f) => ({
      op: 'entry-upsert',
      path: ['package', 'files'],
      key: 'src',
      entry: { src: f.src, dest: f.dest, sha256: f.sha256, executable: f.executable },
    })),
  );
}

function metaOf(text: string, file: string, kind: PackageKind): PackageMeta | null {
  if (kind === 'skill') return parseSkillManifest(text, file).value?.package ?? null;
  return parseTemplatePackage(text, file).value;
}

// ---------------------------------------------------------------- names

/** Why a new local package may not take `id`, or null when it may. Pure. */
function newIdProblem(id: string): { rule: string; message: string; remedy: string } | null {
  const bare = id.startsWith(`${BUNDLED_OWNER}/`) ? id.slice(BUNDLED_OWNER.length + 1) : id;
  const tomb = RETIRED_BUNDLED[bare];
  if (tomb !== undefined) {
    return {
      rule: 'package.id-retired',
      message: `${id} is a retired bundled name: it was ${tomb.fate}, and lives on as ${tomb.successor}`,
      remedy: `pick another name, or install that package: ${tombstoneInstall(tomb)}`,
    };
  }
  if (id === NONE) {
    return {
      rule: 'package.id-reserved',
      message: `${q(id)} is reserved: "none" means no agent or template`,
      remedy: 'pick another name',
    };
  }
  if (id.startsWith(`${BUNDLED_OWNER}/`) || BUNDLED_NAMES.includes(id)) {
    return {
      rule: 'package.id-reserved',
      message: `the id ${id} is reserved for packages bundled with byre`,
      remedy: 'pick another name, e.g. my-<name> or <you>/<name>',
    };
  }
  if (NEW_PACKAGE_ID.test(id)) return null;
  const why = !PACKAGE_REF.test(id)
    ? 'is not a package id'
    : /[A-Z]/.test(id)
      ? 'has upper-case letters'
      : id.includes('.')
        ? 'has a dot'
        : 'is too long';
  return {
    rule: 'package.id-invalid',
    message: `${q(id)} ${why}`,
    remedy:
      'use a bare name ("mytool") or owner/name ("me/mytool"): lower-case letters, digits, "_" and "-", at most 64 each',
  };
}

/** Refuse ids a new local package may not take. */
function checkNewId(home: string, kind: PackageKind, id: string): void {
  const problem = newIdProblem(id);
  if (problem !== null) {
    throw new ByreError(problem.message, { rule: problem.rule, remedy: problem.remedy });
  }
  const dir = localPackageDir(home, kind, id);
  if (entryKind(dir) !== 'missing') {
    throw new ByreError(`${dir} already exists`, {
      rule: 'package.exists',
      remedy: 'pick another id, or remove the existing directory first',
    });
  }
}

// ---------------------------------------------------------------- payload of any provenance

/** Every payload file of a catalog entry (the manifest excluded). */
function payloadOf(entry: CatalogEntry): PayloadFile[] {
  if (entry.provenance === 'bundled') {
    const name = entry.id.slice(`${BUNDLED_OWNER}/`.length);
    const prefix = `${entry.kind === 'skill' ? 'skills' : 'templates'}/${name}/`;
    return embeddedPaths(prefix)
      .filter((p) => p !== `${prefix}${MANIFEST_FILE[entry.kind]}`)
      .filter(
        (p) =>
          !p
            .slice(prefix.length)
            .split('/')
            .some((s) => s.startsWith('.')),
      )
      .map((p) => ({
        rel: p.slice(prefix.length),
        content: embeddedBytes(p) ?? new Uint8Array(),
        executable: embeddedIsExecutable(p),
      }));
  }
  const dir = entry.dir ?? '';
  if (entry.provenance === 'installed') {
    const text = manifestFileText(entry.file);
    return listedFiles(text, entry.file, entry.kind).map((f) => ({
      rel: f.dest,
      content: readPackageFile(path.join(dir, ...f.dest.split('/'))),
      executable: f.executable,
    }));
  }
  const tree = fsTree(dir, [MANIFEST_FILE[entry.kind]]);
  const escaping = tree.list().filter((rel) => tree.escapes(rel));
  if (escaping.length > 0) {
    throw new ByreError(`${dir}/${escaping[0] ?? ''} is a symlink leading outside the package`, {
      rule: 'skill.payload-escapes',
      remedy: 'copy the file into the package instead of linking it',
    });
  }
  return tree.list().map((rel) => ({
    rel,
    content: tree.read(rel) ?? new Uint8Array(),
    executable: tree.executable(rel),
  }));
}

function manifestTextOf(entry: CatalogEntry): string {
  if (entry.provenance === 'bundled') {
    const name = entry.id.slice(`${BUNDLED_OWNER}/`.length);
    const bytes = embeddedBytes(
      `${entry.kind === 'skill' ? 'skills' : 'templates'}/${name}/${MANIFEST_FILE[entry.kind]}`,
    );
    return new TextDecoder().decode(bytes ?? new Uint8Array());
  }
  return manifestFileText(entry.file);
}

/** A stored or local manifest's text, read as any package file is (readPackageFile). */
function manifestFileText(file: string): string {
  return Buffer.from(readPackageFile(file)).toString('utf8');
}

function findEntry(home: string, kind: PackageKind, reference: string): CatalogEntry {
  const entry = loadCatalog({ home, kind }).find(reference);
  if (entry === null) {
    throw new ByreError(`no ${kind} named ${reference}`, {
      rule: 'package.not-found',
      remedy: `see byre ${kind} list`,
    });
  }
  return entry;
}

/** Writes a package into the fresh staging directory `dir`: every file new, none through a link, a payload file's mode exact. */
async function writeTree(
  dir: string,
  manifestName: string,
  manifest: string,
  files: readonly PayloadFile[],
): Promise<void> {
  await ensurePrivateDir(dir);
  writeNewFileSync(path.join(dir, manifestName), manifest, 0o644);
  for (const f of files) {
    const parent = path.posix.dirname(f.rel);
    if (parent !== '.' && !(await makeDirsNoFollow(dir, parent, 0o755))) {
      throw Object.assign(new Error(`${parent} is not a directory`), { code: 'ENOTDIR' });
    }
    const abs = path.join(dir, ...f.rel.split('/'));
    writeNewFileExactModeSync(abs, f.content, f.executable ? 0o755 : 0o644);
  }
}

/** Write a new local package atomically (staging dir + rename), then confirm the catalog loads it. */
async function publishLocal(
  home: string,
  kind: PackageKind,
  id: string,
  manifest: string,
  files: readonly PayloadFile[],
): Promise<CatalogEntry> {
  const dir = localPackageDir(home, kind, id);
  await ensurePrivateDir(path.dirname(dir));
  const staging = path.join(
    path.dirname(dir),
    `.staging-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  try {
    await writeTree(staging, MANIFEST_FILE[kind], manifest, files);
    await moveTreeIn(staging, dir);
  } catch (error) {
    // Every byte comes from memory: an OS refusal here is the store's.
    throw writeFailure(error, dir);
  } finally {
    // Best effort: a cleanup failure must not hide why the write failed.
    await removeTree(staging).catch(() => undefined);
  }
  const entry = loadCatalog({ home, kind }).find(id);
  if (entry?.provenance !== 'local' || entry.status !== 'ok') {
    await removeTree(dir);
    if (entry !== null && entry.issues.length > 0) throw new ConfigError(entry.issues);
    throw new ByreError(`the new ${kind} ${id} did not load as a local package; nothing was kept`, {
      rule: 'package.not-local',
      remedy: `check ${dir} and retry`,
    });
  }
  return entry;
}

// ---------------------------------------------------------------- verbs

/** Copy any package (bundled, installed or local) to a new, editable local one. */
export async function forkPackage(
  home: string,
  kind: PackageKind,
  from: string,
  newId: string,
): Promise<CatalogEntry> {
  const source = findEntry(home, kind, from);
  checkNewId(home, kind, newId);
  const manifest = rebasedManifest(manifestTextOf(source), source.file, newId);
  return publishLocal(home, kind, newId, manifest, payloadOf(source));
}

function scaffold(kind: PackageKind, id: string): { manifest: string; files: PayloadFile[] } {
  if (kind === 'template') {
    return {
      manifest:
        `# ${id}: a template — the base image and defaults a project starts from.\n` +
        `base = "debian:bookworm"\n` +
        `# apt = ["build-essential"]\n# egress_offered = ["registry.example.com"]\n\n` +
        `[package]\nid = ${q(id)}\nversion = "0.1.0"\nkind = "template"\npackage_api = 1\ndescription = ${q(`${id} (local template)`)}\n`,
      files: [],
    };
  }
  return {
    manifest:
      `# ${id}: a local skill. See docs/SKILLS.md for every key.\n` +
      `description = ${q(`${id} (local skill)`)}\n\n` +
      `[package]\nid = ${q(id)}\nversion = "0.1.0"\nkind = "skill"\npackage_api = 1\n\n` +
      `[build]\napt = []\n# node = 22\n# dockerfile = ["RUN echo raw build line"]\n# files = { "bin/tool" = "/usr/local/bin/tool" }\n\n` +
      `[runtime]\n# egress = ["api.example.com"]\n\n` +
      `[context]\nfile = "context.md"\n`,
    files: [
      {
        rel: 'context.md',
        content: new TextEncoder().encode(`# ${id}\n\nTell the agent what this skill gives it.\n`),
        executable: false,
      },
    ],
  };
}

export async function initPackage(
  home: string,
  kind: PackageKind,
  id: string,
): Promise<CatalogEntry> {
  checkNewId(home, kind, id);
  const { manifest, files } = scaffold(kind, id);
  return publishLocal(home, kind, id, manifest, files);
}

/** Symlink a checkout into the store at the path its manifest id names; roll back unless it loads as local. */
export async function adoptPackage(
  home: string,
  kind: PackageKind,
  dir: string,
): Promise<CatalogEntry> {
  let real: string;
  try {
    real = canonicalPathSync(dir);
  } catch {
    throw new ByreError(`${dir} does not exist`, {
      rule: 'package.not-found',
      remedy: 'name the package directory to adopt',
    });
  }
  const file = path.join(real, MANIFEST_FILE[kind]);
  // Read as the catalog will read it once adopted: never through a link,
  // never waiting on a FIFO, under the config cap; refused with the issue the
  // catalog would raise.
  const read = readConfigText(file);
  if (read.kind === 'missing') {
    throw new ByreError(`${dir} has no ${MANIFEST_FILE[kind]}`, {
      rule: 'package.manifest-missing',
      remedy: `adopt the directory that holds the package's ${MANIFEST_FILE[kind]}`,
    });
  }
  if (read.kind !== 'ok') throw new ConfigError([configTextIssue(file, read)]);
  const text = read.text;
  const meta = metaOf(text, file, kind);
  const id = meta?.id ?? null;
  if (id === null) {
    throw new ByreError(`${file} names no [package] id, so byre cannot tell where to adopt it`, {
      rule: 'package.id-missing',
      remedy: `add [package] id = "owner/name" (fix any validation errors first: byre ${kind} validate)`,
    });
  }
  if (id.startsWith(`${BUNDLED_OWNER}/`)) {
    throw new ByreError(`the id ${id} is reserved for packages bundled with byre`, {
      rule: 'package.id-reserved',
      remedy: `fork it instead: byre ${kind} fork ${id} <new-id>`,
    });
  }
  const target = localPackageDir(home, kind, id);
  if (entryKind(target) !== 'missing') {
    throw new ByreError(`${target} already exists`, {
      rule: 'package.exists',
      remedy: 'remove or rename the existing local package first',
    });
  }
  await ensurePrivateDir(path.dirname(target));
  await linkNewDir(real, target);
  const entry = loadCatalog({ home, kind }).find(id);
  if (entry?.provenance !== 'local' || entry.status !== 'ok') {
    await removeEntry(target);
    if (entry !== null && entry.issues.length > 0) throw new ConfigError(entry.issues);
    throw new ByreError(
      `${dir} did not load as the local ${kind} ${id}; the link was rolled back`,
      {
        rule: 'package.not-local',
        remedy: `run byre ${kind} validate on the package and fix what it reports`,
      },
    );
  }
  return entry;
}

interface Packed {
  id: string;
  text: string;
  digest: string;
  files: PackageFileEntry[];
}

/**
 * Build the distribution manifest of a local package: its manifest minus any
 * old [[package.files]], plus one entry per payload file (src = dest =
 * package-relative path). Reads everything; writes nothing.
 */
export function packPackage(
  home: string,
  kind: PackageKind,
  name: string,
  exclude: readonly string[] = [],
): Packed {
  const entry = findEntry(home, kind, name);
  if (entry.provenance !== 'local') {
    throw new ByreError(`${entry.id} is ${entry.provenance}; pack works on local packages`, {
      rule: 'package.not-local',
      remedy: `fork it first: byre ${kind} fork ${entry.id} <new-id>`,
    });
  }
  if (entry.status !== 'ok') throw new ConfigError(entry.issues);
  if (entry.meta?.version == null) {
    throw new ByreError(`${entry.file} has no [package] version`, {
      rule: 'package.version-missing',
      remedy: 'add [package] version = "1.0.0" before packing',
    });
  }
  const payload = payloadOf(entry).filter((f) => !exclude.includes(f.rel));
  if (payload.length > FETCH_LIMITS.maxFiles) {
    throw new ByreError(
      `${entry.id} has ${payload.length} payload files; install accepts at most ${FETCH_LIMITS.maxFiles}`,
      {
        rule: 'package.too-many-files',
        remedy: 'remove files the package does not need, or archive them into one',
      },
    );
  }
  const total = payload.reduce((n, f) => n + f.content.length, 0);
  if (total > FETCH_LIMITS.maxBytes) {
    throw new ByreError(`${entry.id} payload is ${total} bytes; install accepts at most 64 MiB`, {
      rule: 'package.too-large',
      remedy: 'slim the package down',
    });
  }
  const files: PackageFileEntry[] = payload.map((f) => ({
    src: f.rel,
    dest: f.rel,
    sha256: sha256Hex(f.content),
    executable: f.executable,
  }));
  const text = packedManifest(manifestFileText(entry.file), entry.file, entry.id, files);
  return {
    id: entry.id,
    text,
    digest: packageDigest(new TextEncoder().encode(text), files),
    files,
  };
}

// ---------------------------------------------------------------- bundled mirror

/**
 * Keep BYRE_HOME/bundled/ a read-only copy of the embedded packages, for
 * people to read. Regenerated when the version stamp differs; never loaded.
 */
export async function syncBundledMirror(home: string, version: string = VERSION): Promise<boolean> {
  const dir = path.join(home, 'bundled');
  const stamp = path.join(dir, '.byre-version');
  try {
    const read = readRegularFile(stamp, STAMP_MAX_BYTES);
    if (read.kind === 'ok' && read.bytes.toString('utf8').trim() === version) return false;
  } catch {
    // unreadable: regenerate
  }
  const staging = path.join(
    home,
    `.bundled-staging-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  try {
    for (const p of [...embeddedPaths('skills/'), ...embeddedPaths('templates/')]) {
      const abs = path.join(staging, ...p.split('/'));
      makeUserDirsSync(path.dirname(abs), 0o755);
      writeNewFileExactModeSync(
        abs,
        embeddedBytes(p) ?? new Uint8Array(),
        embeddedIsExecutable(p) ? 0o555 : 0o444,
      );
    }
    writeNewFileSync(
      path.join(staging, 'README'),
      'Written by byre: a display copy of the packages bundled in this byre binary.\n' +
        'byre never loads from here; edits are overwritten. To change one: byre skill fork byre/<name> <new-id>\n',
      0o666,
    );
    writeNewFileSync(path.join(staging, '.byre-version'), `${version}\n`, 0o666);
    await replaceTree(staging, dir);
  } finally {
    // Best effort: a cleanup failure must not hide why the write failed.
    await removeTree(staging).catch(() => undefined);
  }
  return true;
}

// ---------------------------------------------------------------- who references an id

interface Reference {
  file: string;
  key: string;
}

function configFiles(home: string): string[] {
  const paths = storePaths(home);
  const out = [paths.defaultConfig];
  const sub = (dir: string, file: string): void => {
    try {
      for (const name of listEntries(dir).sort()) out.push(path.join(dir, name, file));
    } catch {
      // no such dir
    }
  };
  sub(paths.projects, PROJECT_CONFIG_FILE);
  sub(paths.layers, LAYER_CONFIG_FILE);
  return out.filter((f) => pathExists(f));
}

/** Config files (projects, layers, default) that name `id` (or its bare name, for bundled aliases). */
export function findReferences(home: string, kind: PackageKind, id: string): Reference[] {
  const names = new Set([id]);
  const out: Reference[] = [];
  for (const file of configFiles(home)) {
    // Links followed, as the user's own config may be one (a FIFO never waited on, the config cap).
    const read = readConfigText(file, true);
    if (read.kind !== 'ok') continue;
    let table: Record<string, unknown>;
    try {
      table = parseToml(read.text) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (kind === 'skill') {
      const skills = table['skills'];
      if (Array.isArray(skills) && skills.some((s) => typeof s === 'string' && names.has(s)))
        out.push({ file, key: 'skills' });
      const agent = table['agent'];
      if (typeof agent === 'string' && names.has(agent)) out.push({ file, key: 'agent' });
    } else {
      const template = table['template'];
      if (typeof template === 'string' && names.has(template)) out.push({ file, key: 'template' });
    }
  }
  return out;
}
