// The IO side of presets: what develop and status read for the drift note
// (the store's marker and config, the applied source when it is a local
// file, byre.preset and the retired byre.config in the directory), and the
// marker `preset apply` writes. Every read is no-follow, non-blocking and
// capped: the directory and (under --self-edit) the store are box-writable.

import path from 'node:path';

import { MAX_CONFIG_BYTES } from '../config/parse.js';
import {
  LEGACY_PRESET_FILE,
  parseMarker,
  PRESET_FILE,
  renderMarker,
  type AppliedMarker,
  type FileHash,
  type PresetFacts,
} from '../config/preset.js';
import { writeFileAtomic } from '../host/atomic-write.js';
import { entryKind } from '../host/path-view.js';
import { readRegularFile } from '../host/read-regular.js';
import type { ProjectStorePaths } from '../project/store-layout.js';
import { sha256Hex } from '../skills/digest.js';

function hashOf(file: string): FileHash {
  try {
    const read = readRegularFile(file, MAX_CONFIG_BYTES);
    if (read.kind === 'missing') return { kind: 'missing' };
    if (read.kind !== 'ok') return { kind: 'unreadable' };
    return { kind: 'ok', sha256: sha256Hex(read.bytes) };
  } catch {
    return { kind: 'unreadable' };
  }
}

function readMarker(file: string): AppliedMarker | null {
  try {
    const read = readRegularFile(file, 4096);
    return read.kind === 'ok' ? parseMarker(read.bytes.toString('utf8')) : null;
  } catch {
    return null;
  }
}

function present(file: string): boolean {
  return entryKind(file) !== 'missing';
}

/** What the preset note is made of, for the project store and the directory the box is for. */
export function readPresetFacts(project: ProjectStorePaths, dir: string): PresetFacts {
  const marker = readMarker(project.applied);
  const local = marker !== null && path.isAbsolute(marker.source);
  return {
    marker,
    storeConfig: hashOf(project.config),
    source: local && marker !== null ? hashOf(marker.source) : null,
    inTree: hashOf(path.join(dir, PRESET_FILE)),
    legacyInTree: present(path.join(dir, LEGACY_PRESET_FILE)),
  };
}

export async function writeAppliedMarker(
  project: ProjectStorePaths,
  marker: AppliedMarker,
): Promise<void> {
  await writeFileAtomic(project.applied, renderMarker(marker));
}
