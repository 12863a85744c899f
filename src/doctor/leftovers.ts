// Which byre-labelled engine objects are leftovers: labelled with this store
// and with a project whose store directory, or whose recorded directory, is
// gone. Objects of another store, objects without byre's store label and
// anything not shaped like byre's are never leftovers (adr/0015). A project's
// store folder whose recorded directory is gone is one too. Pure.

import { LABEL } from '../gen/names.js';
import type { EngineName } from '../engine/types.js';
import { isValidProjectId } from '../project/identity.js';
import type { EngineScan, LabelledObject, ProjectState } from './facts.js';

export interface Leftover {
  engine: EngineName;
  kind: LabelledObject['kind'];
  /** Container id, volume name or image id: what removal is asked for. */
  id: string;
  tags: readonly string[];
  project: string;
  reason: 'store_gone' | 'path_gone';
  /** The directory the store recorded for the project (path_gone only). */
  recordedPath: string | null;
  /** A running box is listed, never removed. */
  running: boolean;
}

/** A project's folder in the store (config, build log, launch records) whose directory is gone. */
export interface StoreFolder {
  project: string;
  /** The folder: ~/.byre/projects/<id>. */
  dir: string;
  /** The directory the store recorded for the project. */
  recordedPath: string;
}

export interface LeftoverReport {
  leftovers: Leftover[];
  folders: StoreFolder[];
  /** Labelled by another byre store (another user, another BYRE_HOME): left alone. */
  otherStore: number;
  /** byre-labelled but without a store label (made by an older byre): left alone. */
  unattributed: number;
  unreached: { engine: EngineName; message: string }[];
}

const KIND_ORDER = { container: 0, volume: 1, image: 2 } as const;

/**
 * `storeFolders`: every project folder in this store, by id. One whose
 * recorded directory is gone is a leftover; one without a record proves
 * nothing gone and stays.
 */
export function classifyLeftovers(
  scans: readonly EngineScan[],
  storeTag: string,
  projectState: (id: string) => ProjectState,
  storeFolders: readonly { project: string; dir: string }[] = [],
): LeftoverReport {
  const report: LeftoverReport = {
    leftovers: [],
    folders: [],
    otherStore: 0,
    unattributed: 0,
    unreached: [],
  };
  const states = new Map<string, ProjectState>();
  const helpers = new Set<string>();
  const stateOf = (id: string): ProjectState => {
    let s = states.get(id);
    if (s === undefined) {
      s = projectState(id);
      states.set(id, s);
    }
    return s;
  };
  for (const scan of scans) {
    if (scan.state === 'unreached') {
      report.unreached.push({ engine: scan.engine, message: scan.message });
      continue;
    }
    for (const o of scan.objects) {
      // A helper in a box's network names its box's project apart (adr/0076).
      const helper = o.kind === 'container' && (o.labels[LABEL.helper] ?? '') !== '';
      const project = helper ? o.labels[LABEL.helper] : o.labels[LABEL.project];
      const store = o.labels[LABEL.store];
      if (project === undefined || !isValidProjectId(project) || store === undefined) {
        report.unattributed += 1;
        continue;
      }
      if (store !== storeTag) {
        report.otherStore += 1;
        continue;
      }
      const state = stateOf(project);
      if (state.state === 'present') continue;
      report.leftovers.push({
        engine: o.engine,
        kind: o.kind,
        id: o.id,
        tags: [...(o.tags ?? [])].sort(),
        project,
        reason: state.state,
        recordedPath: state.state === 'path_gone' ? state.path : null,
        running: o.running === true,
      });
      if (helper) helpers.add(o.id);
    }
  }
  for (const f of storeFolders) {
    const state = stateOf(f.project);
    if (state.state === 'path_gone') report.folders.push({ ...f, recordedPath: state.path });
  }
  report.folders.sort((a, b) => cmp(a.project, b.project));
  // Helpers before the boxes whose network they join: podman will not remove such a box first.
  const rank = (l: Leftover): number => KIND_ORDER[l.kind] * 2 + (helpers.has(l.id) ? 0 : 1);
  report.leftovers.sort(
    (a, b) =>
      rank(a) - rank(b) || cmp(a.engine, b.engine) || cmp(a.project, b.project) || cmp(a.id, b.id),
  );
  return report;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** How a leftover reads in a list: `docker volume byre-x-1a2b3c-state`. */
export function describeLeftover(l: Leftover): string {
  const what =
    l.kind === 'container'
      ? l.id.slice(0, 12)
      : l.kind === 'image'
        ? l.tags.length > 0
          ? l.tags.join(', ')
          : `${l.id.replace(/^sha256:/, '').slice(0, 12)} (untagged)`
        : l.id;
  return `${l.engine} ${l.kind} ${what}`;
}

/** How a store folder reads in a list, beside the objects. */
export function describeStoreFolder(f: StoreFolder): string {
  return `store folder ${f.dir}`;
}

/** Why a store folder is a leftover, in words. */
export function storeFolderReason(f: StoreFolder): string {
  return `project ${f.project}: its directory ${f.recordedPath} is gone`;
}

/** Why it is a leftover, in words. */
export function leftoverReason(l: Leftover): string {
  if (l.reason === 'store_gone') return `project ${l.project} has no store here any more`;
  return `project ${l.project}: its directory ${l.recordedPath ?? '?'} is gone`;
}

/**
 * The engine calls that remove `l`, in order: a container by id, a volume by
 * name, an image by each tag (removing the last tag removes the image) or by
 * id when it has none. Never forced: an object in use stays, and says so.
 */
export function removalTargets(l: Leftover): string[] {
  if (l.kind === 'image' && l.tags.length > 0) return [...l.tags];
  return [l.id];
}

/** Launch record hashes on disk that no box on any engine points at; null when an engine went unasked. */
export function staleLaunchRecords(
  scans: readonly EngineScan[],
  onDisk: Readonly<Record<string, readonly string[]>>,
): { project: string; hash: string }[] | null {
  if (scans.some((s) => s.state === 'unreached')) return null;
  const referenced = new Set<string>();
  for (const s of scans) {
    if (s.state !== 'ok') continue;
    for (const o of s.objects) {
      const hash = o.kind === 'container' ? o.labels[LABEL.launch] : undefined;
      if (hash !== undefined) referenced.add(hash);
    }
  }
  return Object.entries(onDisk)
    .flatMap(([project, hashes]) =>
      hashes.filter((h) => !referenced.has(h)).map((hash) => ({ project, hash })),
    )
    .sort((a, b) => cmp(a.project, b.project) || cmp(a.hash, b.hash));
}
