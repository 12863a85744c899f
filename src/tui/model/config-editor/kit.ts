// The pieces every row builder shares: origin tags, row constructors, and
// the context a builder reads. Pure.

import type { RawLayer } from '../../../config/schema.js';
import type { LayerRef, Sourced } from '../../../config/types.js';
import type { TomlEdit } from '../../../tomldoc/index.js';
import { EDITOR_ROWS, type ConfigKey, type RowEditor } from './rows.js';
import type {
  Change,
  Derived,
  EditorWorld,
  Item,
  Opener,
  RowActions,
  RowItem,
  RowTone,
} from './types.js';

/** How a row names the layer a value came from. */
export function originTag(ref: LayerRef): string {
  switch (ref.kind) {
    case 'core':
      return 'built-in';
    case 'default':
      return 'default';
    case 'template':
      return `template:${ref.name}`;
    case 'layer':
      return `layer:${ref.name}`;
    case 'project':
      return 'project';
  }
}

export const skillTag = (id: string): string => `skill:${id}`;

/** What every row builder gets. */
export interface RowContext {
  key: ConfigKey;
  world: EditorWorld;
  derived: Derived;
  /** This file's own values. */
  raw: RawLayer;
  here(ref: LayerRef): boolean;
}

export function row(
  ctx: RowContext,
  id: string,
  fields: {
    label: string;
    value?: string;
    origin?: string | null;
    here?: boolean;
    depth?: 1 | 2;
    tone?: RowTone;
    act?: RowActions;
  },
): RowItem {
  return {
    kind: 'row',
    id: `${ctx.key}:${id}`,
    key: ctx.key,
    depth: fields.depth ?? 2,
    label: fields.label,
    value: fields.value ?? '',
    origin: fields.origin ?? null,
    here: fields.here ?? false,
    tone: fields.tone ?? 'normal',
    act: fields.act ?? {},
  };
}

export function heading(ctx: RowContext, value = ''): Item {
  return {
    kind: 'heading',
    id: `${ctx.key}:heading`,
    key: ctx.key,
    label: EDITOR_ROWS[ctx.key].label,
    value,
  };
}

export function sourcedRow<T>(
  ctx: RowContext,
  entry: Sourced<T>,
): { origin: string; here: boolean } {
  return { origin: originTag(entry.from), here: ctx.here(entry.from) };
}

/** An inherited value that this layer cannot unset: what x says instead. */
export function noUnset(what: string, from: LayerRef): string {
  return `${what} has no unset: ${originTag(from)} set it; override the value here instead`;
}

export type RowBuilder = (ctx: RowContext) => Item[];

export type RowBuilders = Partial<Record<RowEditor, RowBuilder>>;

/** The changes a cycle through `options` makes, from the current one. */
export function cycleThrough<T>(
  options: readonly T[],
  current: T,
  same: (a: T, b: T) => boolean,
  change: (next: T) => Change,
): (direction: 1 | -1) => Change | null {
  return (direction) => {
    if (options.length < 2) return null;
    const at = Math.max(
      0,
      options.findIndex((o) => same(o, current)),
    );
    const next = options[(at + direction + options.length) % options.length];
    return next === undefined ? null : change(next);
  };
}

/** The "+ add …" row closing a key's rows. */
export function addRow(ctx: RowContext, label: string, open: Opener): RowItem {
  return row(ctx, 'add', { label: `+ ${label}`, tone: 'dim', act: { open } });
}

/** A removal marker this layer carries (`!name`, `remove = true`): x takes it back. */
export function markerRow(ctx: RowContext, id: string, label: string, undo: TomlEdit): RowItem {
  return row(ctx, `marker:${id}`, {
    label,
    value: 'removed here',
    origin: originTag(ctx.derived.ref),
    here: true,
    tone: 'marker',
    act: {
      remove: { edits: [undo], says: `removal of ${label} taken back` },
      note: 'a removal marker: x takes it back',
    },
  });
}

/** A two-state row: ←→ flips it, and ↵ offers the flip as its one choice. */
export function switchActs(
  title: string,
  label: string,
  flip: Change,
): Pick<RowActions, 'cycle' | 'open'> {
  return {
    cycle: () => flip,
    open: { kind: 'choose', chooser: { title, initial: 0, options: [{ label, change: flip }] } },
  };
}
