// packages/index.toml: which installed id points at which snapshot. byre owns
// the file; a malformed entry is skipped (and reported), never guessed at.

import path from 'node:path';
import { parse as parseToml, stringify } from 'smol-toml';
import { DIGEST } from '../../config/grammar.js';
import { writeFileAtomic } from '../../host/atomic-write.js';
import { describeNotRegular, readRegularFile } from '../../host/read-regular.js';
import { storePaths } from '../../project/store-layout.js';
import type { PackageKind } from '../manifest/index.js';

export interface IndexEntry {
  id: string;
  digest: string;
  version: string;
  kind: PackageKind;
  uri: string;
  installedAt: string;
}

export function packagesDir(home: string): string {
  return storePaths(home).packages;
}

function indexPath(home: string): string {
  return path.join(packagesDir(home), 'index.toml');
}

interface IndexRead {
  entries: IndexEntry[];
  problems: string[];
}

/** The largest index byre reads: a line or three per installed package. */
const INDEX_MAX_BYTES = 4 * 1024 * 1024;

/** The index's text; null when there is none (or it cannot be opened); a problem when it is not a file byre reads. */
function indexText(file: string): string | null | { problem: string } {
  let read;
  try {
    read = readRegularFile(file, INDEX_MAX_BYTES);
  } catch {
    return null;
  }
  switch (read.kind) {
    case 'ok':
      return read.bytes.toString('utf8');
    case 'missing':
      return null;
    case 'not-regular':
      return {
        problem: `${file} is ${describeNotRegular(read.what)}; byre reads only a regular file`,
      };
    case 'too-large':
      return { problem: `${file} is ${read.size} bytes, over the ${INDEX_MAX_BYTES} byre reads` };
  }
}

export function readIndex(home: string): IndexRead {
  const text = indexText(indexPath(home));
  if (text === null) return { entries: [], problems: [] };
  if (typeof text !== 'string') return { entries: [], problems: [text.problem] };
  let table: Record<string, unknown>;
  try {
    table = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    return { entries: [], problems: [`${indexPath(home)}: ${String(error)}`] };
  }
  const packages = table['packages'];
  const entries: IndexEntry[] = [];
  const problems: string[] = [];
  if (packages === null || typeof packages !== 'object') return { entries, problems };
  for (const [id, raw] of Object.entries(packages as Record<string, unknown>)) {
    const e = raw as Record<string, unknown>;
    const digest = e['digest'];
    const kind = e['kind'];
    if (
      typeof digest !== 'string' ||
      !DIGEST.test(digest) ||
      (kind !== 'skill' && kind !== 'template')
    ) {
      problems.push(`${indexPath(home)}: entry ${JSON.stringify(id)} is malformed`);
      continue;
    }
    entries.push({
      id,
      digest,
      kind,
      version: typeof e['version'] === 'string' ? e['version'] : '',
      uri: typeof e['uri'] === 'string' ? e['uri'] : '',
      installedAt: typeof e['installed_at'] === 'string' ? e['installed_at'] : '',
    });
  }
  return { entries, problems };
}

export async function writeIndex(home: string, entries: readonly IndexEntry[]): Promise<void> {
  const packages: Record<string, Record<string, string>> = {};
  for (const e of [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    packages[e.id] = {
      digest: e.digest,
      version: e.version,
      kind: e.kind,
      uri: e.uri,
      installed_at: e.installedAt,
    };
  }
  const header =
    '# Written by byre: installed packages (id -> snapshot). Use `byre skill install|uninstall`.\n';
  await writeFileAtomic(indexPath(home), header + stringify({ packages }) + '\n');
}
