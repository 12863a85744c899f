// Presets (ADR 0029): a repo may ship `byre.preset`, a complete proposal for
// the project's store config. Cloning gives you a file, never a change: only
// `byre preset apply` writes the store config, after a review, and records an
// `applied` marker (`<sha256 of the preset bytes>\n<source>`). This module
// owns the names, the marker format and the passive drift note develop and
// status print. Pure: readers hand in what they found.

export const PRESET_FILE = 'byre.preset';
/** The retired in-repo spelling: refused with the rename remedy, never read as a preset. */
export const LEGACY_PRESET_FILE = 'byre.config';

export interface AppliedMarker {
  /** sha256 (hex) of the preset bytes that were applied. */
  sha256: string;
  /** Where they came from: an absolute path or an https URL, as applied. */
  source: string;
}

export function renderMarker(marker: AppliedMarker): string {
  return `${marker.sha256}\n${marker.source}`;
}

/** The marker as written, or null when it is not one byre wrote (a tampered or foreign file). */
export function parseMarker(text: string): AppliedMarker | null {
  const [sha256, source, ...rest] = text.replace(/\n$/, '').split('\n');
  if (sha256 === undefined || !/^[0-9a-f]{64}$/.test(sha256)) return null;
  if (source === undefined || source === '' || rest.length > 0) return null;
  return { sha256, source };
}

/** What a reader found at one path: its bytes' sha256, or why there is none. */
export type FileHash =
  { kind: 'ok'; sha256: string } | { kind: 'missing' } | { kind: 'unreadable' };

export interface PresetFacts {
  /** The store's `applied` marker; null when none (or not one byre wrote). */
  marker: AppliedMarker | null;
  /** The store config now. */
  storeConfig: FileHash;
  /** The applied source now, when it is a local path (byre never fetches for a note). */
  source: FileHash | null;
  /** `byre.preset` in the directory the box is for. */
  inTree: FileHash;
  /** The retired `byre.config` in that directory. */
  legacyInTree: boolean;
}

const short = (sha: string): string => sha.slice(0, 12);

/** The passive note develop and status print about presets, or null when there is nothing to say. */
export function presetNote(f: PresetFacts): string | null {
  if (f.marker !== null) {
    const m = f.marker;
    if (f.storeConfig.kind === 'ok' && f.storeConfig.sha256 !== m.sha256) {
      return `preset ${m.source} was applied (${short(m.sha256)}); byre.config has changed since — byre preset inspect ${m.source} shows the difference`;
    }
    if (f.source?.kind === 'ok' && f.source.sha256 !== m.sha256) {
      return `preset ${m.source} has changed since it was applied (${short(m.sha256)} → ${short(f.source.sha256)}); review it with byre preset inspect ${m.source}`;
    }
    if (f.storeConfig.kind === 'missing') {
      return `preset ${m.source} was applied, but byre.config is gone; byre preset apply ${m.source} writes it again`;
    }
    return null;
  }
  if (f.inTree.kind === 'ok') {
    return `this directory ships ${PRESET_FILE}; nothing in it applies until you review it (byre preset inspect) and apply it (byre preset apply)`;
  }
  if (f.inTree.kind === 'unreadable') {
    return `${PRESET_FILE} here is not a regular file of at most 1 MiB; byre ignores it`;
  }
  if (f.legacyInTree) {
    return `this directory ships ${LEGACY_PRESET_FILE}, the retired preset name; byre ignores it (rename it to ${PRESET_FILE} to review it)`;
  }
  return null;
}
