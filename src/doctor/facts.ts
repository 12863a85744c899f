// What `byre doctor` learns about the machine, as plain data: the command
// gathers it (src/commands/doctor.ts, src/doctor/labelled-objects.ts) and the pure
// modules beside this one judge it. Types only; no behaviour.

import type { EngineName } from '../engine/types.js';

export type EngineFact =
  | { name: EngineName; state: 'absent' }
  | { name: EngineName; state: 'declined'; path: string; root: string }
  /** Found, but detection failed: not answering, or refused (old rootless Podman). */
  | {
      name: EngineName;
      state: 'unusable';
      path: string;
      rule: string;
      message: string;
      /** The engine's own words (its stderr's last line), '' when it said nothing. */
      said: string;
      fix: string | null;
    }
  | {
      name: EngineName;
      state: 'ok';
      path: string;
      version: string;
      rootless: boolean;
      keepId: boolean;
      /** Overrides detection accepted (BYRE_ALLOW_ROOTLESS_PODMAN=1). */
      warnings: string[];
    };

export type ToolFact =
  | { tool: string; state: 'found'; path: string }
  | { tool: string; state: 'absent' }
  | { tool: string; state: 'declined'; path: string; root: string };

export interface LimitFacts {
  /** The open-file limits byre (and every engine client it starts) runs with; null when unreadable. */
  nofileSoft: number | null;
  nofileHard: number | null;
  /** Linux only; null elsewhere or when unreadable. */
  inotifyWatches: number | null;
  inotifyInstances: number | null;
}

export type DiskFact =
  | { engine: EngineName; state: 'measured'; root: string; freeBytes: number; totalBytes: number }
  /** The engine keeps images elsewhere (a VM, a remote daemon) or would not say. */
  | { engine: EngineName; state: 'unmeasured'; root: string | null; why: string };

export type BaseFact =
  | { state: 'local'; ref: string; engine: EngineName }
  | { state: 'pullable'; ref: string; engine: EngineName }
  | { state: 'unpullable'; ref: string; engine: EngineName; why: string }
  | { state: 'unknown'; ref: string | null; why: string };

/** One entry of the store, as lstat saw it (symlinks not followed). */
export interface StoreEntry {
  path: string;
  kind: 'dir' | 'file' | 'symlink' | 'other';
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  uid: number;
}

export interface StoreFacts {
  home: string;
  /** Null when the store does not exist yet. */
  entries: StoreEntry[] | null;
  /** The uid byre runs as. */
  uid: number;
}

/** A byre-labelled object on one engine, with the labels doctor judges it by. */
export interface LabelledObject {
  engine: EngineName;
  kind: 'container' | 'volume' | 'image';
  /** Container id, volume name or image id. */
  id: string;
  labels: Readonly<Record<string, string>>;
  /** Containers: whether it runs. */
  running?: boolean;
  /** Images: their tags (`repo:tag`), none for a dangling image. */
  tags?: readonly string[];
}

export type EngineScan =
  | { engine: EngineName; state: 'ok'; objects: LabelledObject[] }
  | { engine: EngineName; state: 'unreached'; message: string };

/** Where a project id stands in this store. */
export type ProjectState =
  { state: 'present' } | { state: 'store_gone' } | { state: 'path_gone'; path: string };
