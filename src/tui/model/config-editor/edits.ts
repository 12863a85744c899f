// The TomlEdits editor actions are made of. Entries are addressed through
// the key registry's edits (config/key-edits.ts: by the identity the merge
// uses), so the editor and the verbs remove and replace the same way; this
// module adds what only the editor needs (raw-line lists, blank form fields).
// Pure; config/write.ts applies the edits.

import {
  addRemovalMarker,
  addToList,
  dropRemovalMarker,
  removeEntry,
  removeFromList,
  upsertEntry,
  type EntryKey,
  type NameListKey,
} from '../../../config/key-edits.js';
import type { TomlEdit, TomlTable, TomlValue } from '../../../tomldoc/index.js';

export { upsertEntry, removeEntry, addRemovalMarker, dropRemovalMarker, type EntryKey };

/** A key whose value is a plain list: names (`!x` drops an inherited x) or raw lines. */
type ListKey = NameListKey | 'dockerfile_pre' | 'dockerfile_post' | 'run_args';

export function listAdd(key: ListKey, value: string): TomlEdit {
  return key === 'dockerfile_pre' || key === 'dockerfile_post' || key === 'run_args'
    ? { op: 'array-add', path: [key], value }
    : addToList(key, value);
}

export function listRemove(key: ListKey, value: string): TomlEdit {
  return key === 'dockerfile_pre' || key === 'dockerfile_post' || key === 'run_args'
    ? { op: 'array-remove', path: [key], value }
    : removeFromList(key, value);
}

/** Set a value at `path`, or delete it when `value` is undefined. */
export function setAt(path: readonly (string | number)[], value: TomlValue | undefined): TomlEdit {
  return value === undefined ? { op: 'delete', path } : { op: 'set', path, value };
}

/** `entry` without the keys a form left blank. */
export function withoutBlanks(entry: Record<string, TomlValue | undefined>): TomlTable {
  const out: TomlTable = {};
  for (const [k, v] of Object.entries(entry)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}
