// Acquiring a package: fetch a distribution manifest and its payload within
// the fetch bounds, verify every hash, then snapshot into packages/<digest>/
// (stage, re-verify from disk, rename). A mismatch anywhere installs nothing.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, ByreError } from '../../errors.js';
import { ensurePrivateDir, publishNew } from '../../host/atomic-write.js';
import { pathExists } from '../../host/path-view.js';
import { writeNewFileSync } from '../../host/private-temp.js';
import { removeTree, replaceTree } from '../../host/remove.js';
import { writeFailure } from '../../output/system-error.js';
import { VERSION } from '../../embedded.js';
import { BUNDLED_OWNER, buildEntry, readSnapshotDir, type CatalogEntry } from '../catalog.js';
import { digestHex, packageDigest, sha256Hex } from '../digest.js';
import { MANIFEST_FILE, type PackageFileEntry, type PackageKind } from '../manifest/index.js';
import { listedFiles } from '../catalog.js';
import { memoryTree } from '../materialize.js';
import {
  describeLocation,
  FETCH_LIMITS,
  FetchBudget,
  fetchManifest,
  fetchPayload,
  parseManifestUri,
  type FetchOptions,
} from './fetch.js';
import { packagesDir, readIndex, writeIndex, type IndexEntry } from './index-file.js';

interface FetchedPackage {
  kind: PackageKind;
  /** The URI as the user gave it. */
  uri: string;
  /** Where it was fetched from, after redirects. */
  source: string;
  manifest: Uint8Array;
  files: PackageFileEntry[];
  contents: Map<string, Uint8Array>;
  digest: string;
  /** The package as the catalog would load it (status ok, or invalid with issues). */
  entry: CatalogEntry;
}

/** Fetch and verify a package without installing it. */
export async function fetchPackage(
  uri: string,
  kind: PackageKind,
  options: { cwd: string; fetch?: FetchOptions },
): Promise<FetchedPackage> {
  const location = parseManifestUri(uri, options.cwd);
  const budget = new FetchBudget(options.fetch);
  const { bytes, base } = await fetchManifest(location, budget);
  const source = describeLocation(base);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ByreError(`${source} is not valid UTF-8`, {
      rule: 'skill.toml-syntax',
      remedy: 'check that the URL names the manifest',
    });
  }
  const probe = buildEntry(
    {
      id: '(fetched)',
      provenance: 'installed',
      kind,
      text,
      file: source,
      tree: memoryTree({}),
      dir: null,
      digest: null,
      uri,
      problems: [],
    },
    VERSION,
  );
  const meta = probe.meta;
  if (meta === null) throw new ConfigError(probe.issues);
  if (meta.id === null || meta.version === null) {
    throw new ByreError(`${source} has no [package] id and version`, {
      rule: 'package.not-distributable',
      remedy: `a distribution manifest names its [package] id and version; make one with byre ${kind} pack`,
    });
  }
  if (meta.id.split('/')[0] === BUNDLED_OWNER && meta.id.includes('/')) {
    throw new ByreError(
      `${source} claims the id ${meta.id}, which is reserved for bundled packages`,
      {
        rule: 'package.id-reserved',
        remedy: 'bundled packages ship inside byre; install packages under their own owner',
      },
    );
  }
  if (meta.files === null) {
    throw new ByreError(`${source} lists no [[package.files]]: it is not a distribution manifest`, {
      rule: 'package.not-distributable',
      remedy: `make one with byre ${kind} pack <name>`,
    });
  }
  const files = listedFiles(text, source, kind);
  if (files.length > FETCH_LIMITS.maxFiles) {
    throw new ByreError(
      `${source} lists ${files.length} payload files; the limit is ${FETCH_LIMITS.maxFiles}`,
      {
        rule: 'package.too-many-files',
        remedy: 'ask the author to bundle the payload into fewer files',
      },
    );
  }
  const contents = new Map<string, Uint8Array>();
  for (const file of files) {
    const content = new Uint8Array(await fetchPayload(file.src, base, budget));
    if (sha256Hex(content) !== file.sha256) {
      throw new ByreError(
        `payload ${file.dest} (${file.src}) does not match the sha256 in the manifest`,
        {
          rule: 'package.payload-mismatch',
          remedy:
            'the published files changed after the manifest was made; ask the author to re-pack',
        },
      );
    }
    contents.set(file.dest, content);
  }
  const digest = packageDigest(bytes, files);
  const tree: Record<string, { content: Uint8Array; executable: boolean }> = {};
  for (const f of files)
    tree[f.dest] = { content: contents.get(f.dest) ?? new Uint8Array(), executable: f.executable };
  const entry = buildEntry(
    {
      id: meta.id,
      provenance: 'installed',
      kind,
      text,
      file: source,
      tree: memoryTree(tree),
      dir: null,
      digest,
      uri,
      problems: [],
    },
    VERSION,
  );
  // A relative path would mean nothing in the index later; record where it really was.
  const recorded = location.kind === 'file' ? location.path : uri;
  return {
    kind,
    uri: recorded,
    source,
    manifest: new Uint8Array(bytes),
    files,
    contents,
    digest,
    entry,
  };
}

export function checkExpectedDigest(fetched: FetchedPackage, expected: string | undefined): void {
  if (expected === undefined || expected === fetched.digest) return;
  throw new ByreError(
    `${fetched.source} has digest ${fetched.digest}, not the expected ${expected}; nothing was installed`,
    {
      rule: 'package.digest-mismatch',
      remedy:
        'the package changed since the digest was pinned; check with the author before trusting the new content',
    },
  );
}

/** Writes a snapshot into the fresh staging directory `dir`: every file new, none through a link. */
async function writeSnapshot(dir: string, fetched: FetchedPackage): Promise<void> {
  await ensurePrivateDir(dir);
  writeNewFileSync(path.join(dir, MANIFEST_FILE[fetched.kind]), fetched.manifest, 0o600);
  for (const file of fetched.files) {
    const abs = path.join(dir, ...file.dest.split('/'));
    await ensurePrivateDir(path.dirname(abs));
    writeNewFileSync(
      abs,
      fetched.contents.get(file.dest) ?? new Uint8Array(),
      file.executable ? 0o700 : 0o600,
    );
  }
}

type InstallOutcome = 'installed' | 'unchanged' | 'replaced';

/**
 * Snapshot a fetched, verified package and point the index at it. The caller
 * has already confirmed any replacement. Stages beside the store, re-verifies
 * from disk, then renames into place.
 */
export async function installFetched(
  home: string,
  fetched: FetchedPackage,
  now: Date = new Date(),
): Promise<InstallOutcome> {
  if (fetched.entry.status !== 'ok') throw new ConfigError(fetched.entry.issues);
  const id = fetched.entry.id;
  const root = packagesDir(home);
  await ensurePrivateDir(root);
  const gitignore = path.join(root, '.gitignore');
  if (!pathExists(gitignore)) {
    // Only where nothing is: a link planted there is never written through.
    await publishNew(
      gitignore,
      '# Written by byre: snapshots are reproducible from their manifests.\n*\n',
    );
  }
  const { entries } = readIndex(home);
  const previous = entries.find((e) => e.id === id);
  const target = path.join(root, digestHex(fetched.digest));
  const indexEntry = { id, digest: fetched.digest, kind: fetched.kind, uri: fetched.uri };
  const intact = pathExists(target) && readSnapshotDir(target, indexEntry).problems.length === 0;
  if (previous?.digest === fetched.digest && intact) return 'unchanged';
  if (!intact) {
    const staging = path.join(root, `.staging-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      // Every byte comes from memory: an OS refusal here is the store's.
      await writeSnapshot(staging, fetched).catch((error: unknown) => {
        throw writeFailure(error, target);
      });
      const check = readSnapshotDir(staging, indexEntry);
      const problem = check.problems[0];
      if (problem !== undefined) {
        throw new ByreError(`the staged snapshot failed verification: ${problem.message}`, {
          rule: 'package.digest-mismatch',
          remedy: 'nothing was installed; retry, and report it if it repeats',
        });
      }
      await replaceTree(staging, target);
    } finally {
      // Best effort: a cleanup failure must not hide why the write failed.
      await removeTree(staging).catch(() => undefined);
    }
  }
  const next: IndexEntry = {
    id,
    digest: fetched.digest,
    version: fetched.entry.version,
    kind: fetched.kind,
    uri: fetched.uri,
    installedAt: now.toISOString(),
  };
  await writeIndex(home, [...entries.filter((e) => e.id !== id), next]);
  if (previous !== undefined && previous.digest !== fetched.digest) {
    await removeSnapshotIfUnused(home, previous.digest);
    return 'replaced';
  }
  return 'installed';
}

/** Remove a snapshot directory no index entry points at any more. */
async function removeSnapshotIfUnused(home: string, digest: string): Promise<void> {
  const { entries } = readIndex(home);
  if (entries.some((e) => e.digest === digest)) return;
  await removeTree(path.join(packagesDir(home), digestHex(digest)));
}

/** Drop an installed id from the index and remove its snapshot when unused. */
export async function uninstallPackage(
  home: string,
  id: string,
  kind: PackageKind,
): Promise<IndexEntry> {
  const { entries } = readIndex(home);
  const entry = entries.find((e) => e.id === id && e.kind === kind);
  if (entry === undefined) {
    throw new ByreError(`no installed ${kind} has the id ${id}`, {
      rule: 'package.not-installed',
      remedy: `see byre ${kind} list for what is installed`,
    });
  }
  await writeIndex(
    home,
    entries.filter((e) => e !== entry),
  );
  await removeSnapshotIfUnused(home, entry.digest);
  return entry;
}
