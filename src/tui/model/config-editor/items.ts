// The editor's rows: for every key, in its section, the effective entries
// with where each came from, what ↵ ←→ and x do to them at THIS layer, and
// an add row. One builder per RowEditor (rows.ts), so the total table there
// decides every key's rows. Pure; values are escaped by the view.

import type { LayerRef } from '../../../config/types.js';
import {
  EDITOR_ROWS,
  EDITOR_SECTION_TITLES,
  bannedHere,
  EDITOR_KEYS,
  sectionOf,
  sectionsFor,
  type RowEditor,
} from './rows.js';
import type { Derived, EditorWorld, Item } from './types.js';
import { row, type RowBuilder, type RowContext } from './kit.js';
import { buildBuildRows } from './items-build.js';
import { buildCredentialRows } from './items-credentials.js';
import { buildGrantRows } from './items-grants.js';
import { buildOtherRows } from './items-other.js';

// Spread into a total record: a RowEditor with no builder does not compile.
const BUILDERS: Readonly<Record<RowEditor, RowBuilder>> = {
  ...buildGrantRows,
  ...buildCredentialRows,
  ...buildBuildRows,
  ...buildOtherRows,
};

/** A row saying this file kind may not carry the key, and why (the loader's words). */
function bannedRow(ctx: RowContext, why: string): Item[] {
  return [
    row(ctx, 'banned', {
      depth: 1,
      label: EDITOR_ROWS[ctx.key].label,
      value: 'not set in this file',
      tone: 'dim',
      act: { note: why },
    }),
  ];
}

function sameLayer(a: LayerRef, b: LayerRef): boolean {
  return a.kind === b.kind && a.name === b.name;
}

/** Every item of the screen, sections in order, for the edited file's kind. */
export function editorItems(world: EditorWorld, derived: Derived): Item[] {
  const kind = world.file.kind;
  const items: Item[] = [];
  for (const section of sectionsFor(kind)) {
    items.push({
      kind: 'section',
      id: `section:${section}`,
      title: EDITOR_SECTION_TITLES[section],
    });
    for (const key of EDITOR_KEYS) {
      if (sectionOf(key, kind) !== section) continue;
      const ctx: RowContext = {
        key,
        world,
        derived,
        raw: derived.raw,
        here: (ref) => sameLayer(ref, derived.ref),
      };
      const banned = bannedHere(key, kind);
      items.push(
        ...(banned === null ? BUILDERS[EDITOR_ROWS[key].editor](ctx) : bannedRow(ctx, banned)),
      );
    }
  }
  return items;
}
