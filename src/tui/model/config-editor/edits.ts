// The TomlEdits one editor action is made of, addressed the way the merge
// identifies entries (mounts by target, ports by container port, named
// wiring by name), so a change at this layer replaces or removes exactly the
// entry it names. Pure; config/write.ts applies them.

import type { TomlEdit, TomlScalar, TomlTable, TomlValue } from '../../../tomldoc/index.js';

/** Keys whose value is a list of tables with an identity. */
export type EntryKey = 'mounts' | 'ports' | 'volumes' | 'mcp' | 'claude_skills' | 'context';

export const IDENTITY: Readonly<Record<EntryKey, string>> = {
  mounts: 'target',
  ports: 'container',
  volumes: 'name',
  mcp: 'name',
  claude_skills: 'name',
  context: 'name',
};

/** Add or replace (in place) this file's entry with `entry`'s identity. */
export function upsertEntry(key: EntryKey, entry: TomlTable): TomlEdit {
  return { op: 'entry-upsert', path: [key], key: IDENTITY[key], entry };
}

/** Remove this file's entries with identity `id`. */
export function removeEntry(key: EntryKey, id: TomlScalar): TomlEdit {
  return { op: 'entry-remove', path: [key], key: IDENTITY[key], value: id };
}

/** The marker that drops an inherited entry: `!id`, or `remove = true` for a port. */
export function removalMarker(key: EntryKey, id: string | number): TomlEdit {
  if (key === 'ports') return upsertEntry(key, { container: id, remove: true });
  return upsertEntry(key, { [IDENTITY[key]]: `!${String(id)}` });
}

/** Take a removal marker back out, so the inherited entry shows again. */
export function dropMarker(key: EntryKey, id: string | number): TomlEdit {
  return removeEntry(key, key === 'ports' ? id : `!${String(id)}`);
}

export function listAdd(key: string, value: string): TomlEdit {
  return { op: 'array-add', path: [key], value };
}

export function listRemove(key: string, value: string): TomlEdit {
  return { op: 'array-remove', path: [key], value };
}

/** Set a value at `path`, or delete it when `value` is undefined. */
export function setAt(path: readonly (string | number)[], value: TomlValue | undefined): TomlEdit {
  return value === undefined ? { op: 'delete', path } : { op: 'set', path, value };
}

/** `entry` without the keys whose value is empty text (a form field left blank). */
export function withoutBlanks(entry: Record<string, TomlValue | undefined>): TomlTable {
  const out: TomlTable = {};
  for (const [k, v] of Object.entries(entry)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}
