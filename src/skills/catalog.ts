// The package catalog: every skill or template byre can see, from the three
// provenances — bundled (embedded in the binary, immutable, `byre/<name>`),
// local (editable dirs under BYRE_HOME) and installed (hash-verified snapshots).
// Reads only; a package that fails validation is listed INVALID, never loaded.
// Over 500 lines: the three provenances decode into one slot shape here.

import path from 'node:path';
import { parseLayer } from '../config/parse.js';
import { configTextIssue, readConfigText } from '../config/read.js';
import { PACKAGE_REF } from '../config/grammar.js';
import { embeddedBytes, embeddedIsExecutable, embeddedPaths, VERSION } from '../embedded.js';
import { ByreError, type ConfigIssue } from '../errors.js';
import { entryNames, pathExists, reachesDirectory } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import { packageRoot } from '../project/store-layout.js';
import { digestHex, packageDigest, sha256Hex } from './digest.js';
import {
  MANIFEST_FILE,
  parseSkillManifest,
  parseTemplatePackage,
  satisfiesRequiresByre,
  type PackageFileEntry,
  type PackageKind,
  type PackageMeta,
} from './manifest/index.js';
import { materializeSkill, memoryTree, type PackageTree } from './materialize.js';
import { fsTree } from './packages/fs-tree.js';
import { packagesDir, readIndex, type IndexEntry } from './packages/index-file.js';
import type { SkillCatalog } from './resolve.js';
import type { Provenance, ResolvedSkill } from './types.js';

/** The most a snapshot file can hold: install's bound on a whole package (FETCH_LIMITS.maxBytes). */
const SNAPSHOT_FILE_MAX_BYTES = 64 * 1024 * 1024;

export const BUNDLED_OWNER = 'byre';

type EntryStatus = 'ok' | 'invalid' | 'shadowed';

export interface CatalogEntry {
  id: string;
  kind: PackageKind;
  provenance: Provenance;
  version: string;
  description: string;
  /** The package directory (local dir or snapshot); null for bundled. */
  dir: string | null;
  /** The manifest path, or a label for bundled packages. */
  file: string;
  digest: string | null;
  /** The manifest's [package] table, when it parsed. */
  meta: PackageMeta | null;
  status: EntryStatus;
  issues: ConfigIssue[];
  /** The resolved skill, for an ok skill package. */
  skill: ResolvedSkill | null;
  /** The template.config text, for an ok template package. */
  templateText: string | null;
  /** The install URI (installed only). */
  uri: string | null;
}

interface CatalogOptions {
  home: string;
  kind: PackageKind;
  /** The running byre's version, for requires_byre. */
  byreVersion?: string;
}

/** Where a local package with `id` lives. */
export function localPackageDir(home: string, kind: PackageKind, id: string): string {
  return path.join(packageRoot(home, kind), ...id.split('/'));
}

function issueFor(file: string, rule: string, message: string, fix: string): ConfigIssue {
  return { rule, message, location: { file }, fix };
}

// ---------------------------------------------------------------- building one entry

interface Source {
  id: string;
  provenance: Provenance;
  kind: PackageKind;
  text: string;
  file: string;
  tree: PackageTree;
  dir: string | null;
  digest: string | null;
  uri: string | null;
  /** Extra problems found while reading (tampering, walk limits). */
  problems: ConfigIssue[];
}

function idProblem(src: Source, meta: PackageMeta | null, version: string): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const declared = meta?.id ?? null;
  if (src.provenance !== 'installed' && declared !== null && declared !== src.id) {
    out.push(
      issueFor(
        src.file,
        'package.id-mismatch',
        `[package] id ${JSON.stringify(declared)} does not match where the package lives (${src.id})`,
        src.provenance === 'local'
          ? `move the directory to ${src.kind === 'skill' ? 'skills' : 'templates'}/${declared}, or fix the id`
          : 'fix the id in the bundled manifest',
      ),
    );
  }
  if (
    src.provenance !== 'bundled' &&
    src.id.split('/')[0] === BUNDLED_OWNER &&
    src.id.includes('/')
  ) {
    out.push(
      issueFor(
        src.file,
        'package.id-reserved',
        `the id ${src.id} is reserved for packages bundled with byre`,
        'fork it under your own id: byre skill fork <id> <owner>/<name>',
      ),
    );
  }
  const requires = meta?.requiresByre ?? null;
  if (requires !== null && !satisfiesRequiresByre(requires, version)) {
    out.push(
      issueFor(
        src.file,
        'package.requires-newer-byre',
        `${src.id} requires byre ${requires}; this is byre ${version}`,
        'upgrade byre',
      ),
    );
  }
  return out;
}

export function buildEntry(src: Source, byreVersion: string): CatalogEntry {
  const base: CatalogEntry = {
    id: src.id,
    kind: src.kind,
    provenance: src.provenance,
    version: '',
    description: '',
    dir: src.dir,
    file: src.file,
    digest: src.digest,
    meta: null,
    status: 'invalid',
    issues: [...src.problems],
    skill: null,
    templateText: null,
    uri: src.uri,
  };
  if (src.kind === 'skill') {
    const parsed = parseSkillManifest(src.text, src.file);
    if (parsed.value === null) return { ...base, issues: [...base.issues, ...parsed.issues] };
    const meta = parsed.value.package;
    const issues = [...base.issues, ...idProblem(src, meta, byreVersion)];
    const described = {
      ...base,
      meta,
      version: meta?.version ?? (src.provenance === 'local' ? 'local' : ''),
      description: parsed.value.description ?? meta?.description ?? '',
    };
    if (issues.length > 0) return { ...described, issues };
    const materialized = materializeSkill({
      id: src.id,
      provenance: src.provenance,
      manifest: parsed.value,
      tree: src.tree,
      file: src.file,
      text: src.text,
      digest: src.digest,
      dir: src.dir,
    });
    if (materialized.value === null) return { ...described, issues: materialized.issues };
    return { ...described, status: 'ok', skill: materialized.value };
  }
  const pkg = parseTemplatePackage(src.text, src.file);
  const bare = src.id.split('/').pop() ?? src.id;
  const body = parseLayer(src.text, { file: src.file, kind: 'template', name: bare });
  const meta = pkg.value;
  const issues = [
    ...base.issues,
    ...pkg.issues,
    ...body.issues,
    ...(pkg.value === null ? [] : idProblem(src, meta, byreVersion)),
  ];
  const described = {
    ...base,
    meta,
    version: meta?.version ?? (src.provenance === 'local' ? 'local' : ''),
    description: meta?.description ?? '',
  };
  if (issues.length > 0) return { ...described, issues };
  return { ...described, status: 'ok', templateText: src.text };
}

// ---------------------------------------------------------------- the three provenances

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

/** The bundled packages' ids, each with its source built only when asked for. */
function bundledSlots(kind: PackageKind): { id: string; source: () => Source | null }[] {
  const root = kind === 'skill' ? 'skills/' : 'templates/';
  const byName = new Map<string, string[]>();
  for (const p of embeddedPaths(root)) {
    const [, name] = p.split('/');
    if (name === undefined || name.startsWith('.')) continue;
    byName.set(name, [...(byName.get(name) ?? []), p]);
  }
  return [...byName].map(([name, paths]) => ({
    id: `${BUNDLED_OWNER}/${name}`,
    source: () => bundledSource(kind, name, paths),
  }));
}

function bundledSource(kind: PackageKind, name: string, paths: readonly string[]): Source | null {
  const root = kind === 'skill' ? 'skills/' : 'templates/';
  const prefix = `${root}${name}/`;
  const manifestPath = `${prefix}${MANIFEST_FILE[kind]}`;
  const manifest = embeddedBytes(manifestPath);
  if (manifest === null) return null;
  const files: Record<string, { content: Uint8Array; executable: boolean }> = {};
  for (const p of paths) {
    const rel = p.slice(prefix.length);
    if (p === manifestPath || rel.split('/').some((s) => s.startsWith('.'))) continue;
    files[rel] = {
      content: embeddedBytes(p) ?? new Uint8Array(),
      executable: embeddedIsExecutable(p),
    };
  }
  return {
    id: `${BUNDLED_OWNER}/${name}`,
    provenance: 'bundled',
    kind,
    text: decode(manifest),
    file: `bundled ${kind} byre/${name} (${MANIFEST_FILE[kind]})`,
    tree: memoryTree(files),
    dir: null,
    digest: null,
    uri: null,
    problems: [],
  };
}

function localSource(home: string, kind: PackageKind, id: string): Source | null {
  const dir = localPackageDir(home, kind, id);
  const file = path.join(dir, MANIFEST_FILE[kind]);
  // The manifest is read like every config file: never through a link, never
  // waiting on a FIFO. A missing one means no package here; a refused one says why.
  const read = readConfigText(file);
  if (read.kind === 'missing') return null;
  const tree = fsTree(dir, [MANIFEST_FILE[kind]]);
  const problems = read.kind === 'ok' ? [] : [configTextIssue(file, read)];
  if (tree.truncated) {
    problems.push(
      issueFor(
        file,
        'package.too-many-files',
        `${dir} holds more files than a package may`,
        'move unrelated files out of the package directory',
      ),
    );
  }
  return {
    id,
    provenance: 'local',
    kind,
    text: read.kind === 'ok' ? read.text : '',
    file,
    tree,
    dir,
    digest: null,
    uri: null,
    problems,
  };
}

/** Local package ids: `<name>` with a manifest, else `<owner>/<name>` one level down. */
function localIds(home: string, kind: PackageKind): string[] {
  const root = packageRoot(home, kind);
  const names = (dir: string): string[] =>
    entryNames(dir)
      .filter(
        (n) => !n.startsWith('.') && PACKAGE_REF.test(n) && reachesDirectory(path.join(dir, n)),
      )
      .sort();
  const ids: string[] = [];
  for (const name of names(root)) {
    if (pathExists(path.join(root, name, MANIFEST_FILE[kind]))) ids.push(name);
    else
      for (const child of names(path.join(root, name))) {
        if (pathExists(path.join(root, name, child, MANIFEST_FILE[kind])))
          ids.push(`${name}/${child}`);
      }
  }
  return ids;
}

/**
 * Read one snapshot and verify it against its digest: every listed payload
 * file must hash to its entry, and the digest over manifest + entries must
 * equal the snapshot's name. Anything else is tampering.
 */
function readSnapshot(
  home: string,
  entry: Pick<IndexEntry, 'id' | 'digest' | 'kind' | 'uri'>,
): Source {
  return readSnapshotDir(path.join(packagesDir(home), digestHex(entry.digest)), entry);
}

/** As readSnapshot, for a snapshot directory anywhere (install verifies its staging copy). */
export function readSnapshotDir(
  dir: string,
  entry: Pick<IndexEntry, 'id' | 'digest' | 'kind' | 'uri'>,
): Source {
  const file = path.join(dir, MANIFEST_FILE[entry.kind]);
  const problems: ConfigIssue[] = [];
  const tampered = (message: string): void => {
    problems.push(
      issueFor(
        file,
        'package.tampered',
        message,
        `reinstall it: byre ${entry.kind} install ${entry.uri || '<manifest-url>'} --digest ${entry.digest}`,
      ),
    );
  };
  // Snapshot files are read never through a link, never waiting on a FIFO,
  // and no larger than install accepts a whole package to be.
  const readStored = (abs: string): Uint8Array | null => {
    try {
      const read = readRegularFile(abs, SNAPSHOT_FILE_MAX_BYTES);
      return read.kind === 'ok' ? new Uint8Array(read.bytes) : null;
    } catch {
      return null;
    }
  };
  const stored = readStored(file);
  if (stored === null) {
    tampered(
      `installed ${entry.kind} ${entry.id}: snapshot ${dir} has no ${MANIFEST_FILE[entry.kind]}`,
    );
  }
  const manifest = stored ?? new Uint8Array();
  const text = decode(manifest);
  const listed = listedFiles(text, file, entry.kind);
  const files: Record<string, { content: Uint8Array; executable: boolean }> = {};
  for (const f of listed) {
    const abs = path.join(dir, ...f.dest.split('/'));
    const content = readStored(abs);
    if (content === null) {
      tampered(`installed ${entry.kind} ${entry.id}: payload ${f.dest} is missing from ${dir}`);
      continue;
    }
    if (sha256Hex(content) !== f.sha256) {
      tampered(
        `installed ${entry.kind} ${entry.id}: payload ${f.dest} does not match its recorded sha256 (modified after install)`,
      );
      continue;
    }
    files[f.dest] = { content, executable: f.executable };
  }
  if (problems.length === 0 && packageDigest(manifest, listed) !== entry.digest) {
    tampered(
      `installed ${entry.kind} ${entry.id}: snapshot content does not match digest ${entry.digest}`,
    );
  }
  return {
    id: entry.id,
    provenance: 'installed',
    kind: entry.kind,
    text,
    file,
    tree: memoryTree(problems.length === 0 ? files : {}),
    dir,
    digest: entry.digest,
    uri: entry.uri,
    problems,
  };
}

/** The [[package.files]] of a manifest, or [] when it does not parse (the parse issue surfaces later). */
export function listedFiles(text: string, file: string, kind: PackageKind): PackageFileEntry[] {
  if (kind === 'skill') return parseSkillManifest(text, file).value?.package?.files ?? [];
  return parseTemplatePackage(text, file).value?.files ?? [];
}

// ---------------------------------------------------------------- the catalog

/**
 * One package the catalog can see, known by id and provenance; its source is
 * read and its manifest parsed (and, for installed ones, verified) only when
 * the entry is first asked for. A command that resolves one skill parses one
 * manifest, not every bundled one.
 */
interface CatalogSlot {
  id: string;
  provenance: Provenance;
  /** An installed package a local one of the same id shadows. */
  shadowed: boolean;
  entry(): CatalogEntry | null;
}

function slot(
  id: string,
  provenance: Provenance,
  shadowed: boolean,
  source: () => Source | null,
  version: string,
): CatalogSlot {
  let built: CatalogEntry | null | undefined;
  return {
    id,
    provenance,
    shadowed,
    entry: () => {
      if (built !== undefined) return built;
      const src = source();
      const entry = src === null ? null : buildEntry(src, version);
      built = entry !== null && shadowed ? { ...entry, status: 'shadowed' } : entry;
      return built;
    },
  };
}

export class PackageCatalog {
  private all: CatalogEntry[] | null = null;

  constructor(
    readonly kind: PackageKind,
    private readonly slots: readonly CatalogSlot[],
  ) {}

  /** Every entry, each built (parsed, verified) on first use. */
  get entries(): readonly CatalogEntry[] {
    this.all ??= this.slots.flatMap((s) => {
      const e = s.entry();
      return e === null ? [] : [e];
    });
    return this.all;
  }

  /** The entry a reference selects, whatever its status; null when nothing matches. */
  find(reference: string): CatalogEntry | null {
    const live = this.slots.filter((s) => !s.shadowed);
    const first = (pick: (s: CatalogSlot) => boolean): CatalogEntry | null => {
      for (const s of live) {
        if (!pick(s)) continue;
        const e = s.entry();
        if (e !== null) return e;
      }
      return null;
    };
    if (reference.startsWith(`${BUNDLED_OWNER}/`)) {
      return first((s) => s.provenance === 'bundled' && s.id === reference);
    }
    const exact =
      first((s) => s.provenance === 'local' && s.id === reference) ??
      first((s) => s.provenance === 'installed' && s.id === reference);
    if (exact !== null) return exact;
    if (reference.includes('/')) return null;
    return first((s) => s.provenance === 'bundled' && s.id === `${BUNDLED_OWNER}/${reference}`);
  }

  /** The ok entry a reference selects; throws when it is invalid. */
  resolve(reference: string): CatalogEntry | null {
    const entry = this.find(reference);
    if (entry === null || entry.status === 'ok') return entry;
    const first = entry.issues[0];
    throw new ByreError(
      `${this.kind} ${entry.id} (${entry.provenance}) cannot be loaded: ${first?.message ?? 'invalid'}`,
      {
        rule: first?.rule ?? 'package.invalid',
        remedy: first?.fix ?? `run byre ${this.kind} validate ${entry.id}`,
        ...(first ? { location: first.location } : {}),
      },
    );
  }

  /** Ids of loadable packages. */
  ids(): string[] {
    return this.entries.filter((e) => e.status === 'ok').map((e) => e.id);
  }

  asSkillCatalog(): SkillCatalog {
    return {
      lookup: (reference) => this.resolve(reference)?.skill ?? null,
      ids: () => this.ids(),
    };
  }

  /** A template's config text by reference, for the config cascade. */
  template(reference: string): { id: string; text: string } | null {
    const entry = this.resolve(reference);
    return entry?.templateText == null ? null : { id: entry.id, text: entry.templateText };
  }
}

/**
 * Every package of one kind from the three provenances. Local packages are
 * read now (their directories are the user's to change, so what is listed is
 * what was there); bundled and installed ones are parsed and verified only
 * when asked for.
 */
export function loadCatalog(options: CatalogOptions): PackageCatalog {
  const { home, kind } = options;
  const version = options.byreVersion ?? VERSION;
  const local = localIds(home, kind).flatMap((id) => {
    const src = localSource(home, kind, id);
    return src === null ? [] : [src];
  });
  const localIdSet = new Set(local.map((s) => s.id));
  const installed = readIndex(home).entries.filter((e) => e.kind === kind);
  return new PackageCatalog(kind, [
    ...bundledSlots(kind).map((b) => slot(b.id, 'bundled', false, b.source, version)),
    ...local.map((src) => slot(src.id, 'local', false, () => src, version)),
    ...installed.map((entry) =>
      slot(
        entry.id,
        'installed',
        localIdSet.has(entry.id),
        () => readSnapshot(home, entry),
        version,
      ),
    ),
  ]);
}
