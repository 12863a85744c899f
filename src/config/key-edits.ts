// The TomlEdits a change to one config key is made of, built from the key
// registry (keys.ts) so every writer (the verbs, the editor, preset apply)
// addresses an entry the same way: by the identity the merge uses. Pure; the
// edits are applied by config/write.ts.

import {
  findEntries,
  getValue,
  parseDocument,
  TomlDateTime,
  type TomlEdit,
  type TomlTable,
  type TomlValue,
} from '../tomldoc/index.js';
import { configKey } from './keys.js';

/** Keys whose value is a list of tables with an identity (`[[mcp]]` by name …). */
export type EntryKey = 'mounts' | 'ports' | 'volumes' | 'mcp' | 'claude_skills' | 'context';
export const ENTRY_KEYS: readonly EntryKey[] = [
  'mounts',
  'ports',
  'volumes',
  'mcp',
  'claude_skills',
  'context',
];

/** Keys whose value is a plain list of strings where `!x` removes an inherited x. */
export type NameListKey = 'apt' | 'skills' | 'egress' | 'egress_offered';
function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof TomlDateTime);
}

export const NAME_LIST_KEYS: readonly NameListKey[] = ['apt', 'skills', 'egress', 'egress_offered'];

/** The field an entry of `key` is identified by. */
function identityField(key: EntryKey): string {
  return configKey(key).identity as string;
}

/** Add or replace (in place, keeping its comments) the entry with `entry`'s identity. */
export function upsertEntry(key: EntryKey, entry: TomlTable): TomlEdit {
  return { op: 'entry-upsert', path: [key], key: identityField(key), entry };
}

/** Remove this file's entries with identity `id` (not a removal marker for it). */
export function removeEntry(key: EntryKey, id: string | number): TomlEdit {
  return { op: 'entry-remove', path: [key], key: identityField(key), value: id };
}

/**
 * The marker that removes an inherited entry: `!id` on its identity, or for
 * ports (identified by a number) `remove = true`.
 */
function removalMarker(key: EntryKey, id: string | number): TomlTable {
  if (key === 'ports') return { container: id, remove: true };
  return { [identityField(key)]: `!${String(id)}` };
}

export function addRemovalMarker(key: EntryKey, id: string | number): TomlEdit {
  return upsertEntry(key, removalMarker(key, id));
}

export function dropRemovalMarker(key: EntryKey, id: string | number): TomlEdit {
  if (key === 'ports') return removeEntry(key, id);
  return removeEntry(key, `!${String(id)}`);
}

/** The indexes of `[[ports]]` entries for `container`, split by whether they are `remove = true` markers. */
function portEntries(
  text: string,
  container: string | number,
): { binds: number[]; markers: number[] } {
  const data = getValue(parseDocument(text), ['ports']);
  const list = Array.isArray(data) ? data : [];
  const at = findEntries(text, ['ports'], 'container', container);
  const isMarker = (n: number): boolean => {
    const entry = list[n];
    return isTable(entry) && entry['remove'] === true;
  };
  return { binds: at.filter((n) => !isMarker(n)), markers: at.filter(isMarker) };
}

/** Does this file's text declare an entry `id` of `key` (a removal marker does not count)? */
export function declaresEntry(text: string, key: EntryKey, id: string | number): boolean {
  if (key === 'ports') return portEntries(text, id).binds.length > 0;
  return findEntries(text, [key], identityField(key), id).length > 0;
}

/** Does this file's text carry the removal marker for `id`? */
export function marksRemoved(text: string, key: EntryKey, id: string | number): boolean {
  if (key === 'ports') return portEntries(text, id).markers.length > 0;
  return findEntries(text, [key], identityField(key), `!${String(id)}`).length > 0;
}

export function addToList(key: NameListKey, value: string): TomlEdit {
  return { op: 'array-add', path: [key], value };
}

export function removeFromList(key: NameListKey, value: string): TomlEdit {
  return { op: 'array-remove', path: [key], value };
}
