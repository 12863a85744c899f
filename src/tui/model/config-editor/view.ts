// The editor's screen as lines: a header (file, exposure summary, problems),
// the body (rows, or the open form, chooser, help or quit question) scrolled
// to keep the selection visible, and a footer (the last message, or the
// keys). Laid out here to the terminal's width in cells, wrapping at spaces
// and never through a token that fits a line; every string byre did not
// write is escaped. Colour is a decoration of `tone` only: the text alone
// carries the information (NO_COLOR, TERM=dumb). Pure.

import { cellWidth } from '../../../output/cell-width.js';
import { escapeTerminal } from '../../../output/escape.js';
import { exposureParts } from '../../../status/exposure.js';
import { keyHelp } from './rows.js';
import { issueLine } from './derive.js';
import {
  isDirty,
  selectableRows,
  selectedIndex,
  type EditorState,
  type FormOverlay,
} from './state.js';
import type { Derived, EditorWorld, Item, RowItem } from './types.js';

export type LineTone =
  | 'title'
  | 'dim'
  | 'section'
  | 'heading'
  | 'row'
  | 'selected'
  | 'marker'
  | 'warn'
  | 'error'
  | 'info'
  | 'hint';

interface ScreenLine {
  text: string;
  tone: LineTone;
}

interface ScreenInput {
  world: EditorWorld;
  derived: Derived;
  items: readonly Item[];
  state: EditorState;
  width: number;
  height: number;
  /** The first body line shown last time, so the view moves only as far as it must. */
  scroll: number;
}

interface Screen {
  lines: ScreenLine[];
  scroll: number;
  /** Body lines, for page keys. */
  bodyHeight: number;
}

/** The narrowest layout; a narrower terminal still gets 20 cells rather than a broken frame. */
const MIN_WIDTH = 20;
const MIN_HEIGHT = 8;
const SELECT = '› ';
const NOSELECT = '  ';
const LABEL_COLUMN = 16;

/** Split a token wider than `width` after its `/` (else by cells), so no line overruns. */
function splitToken(token: string, width: number): string[] {
  const parts = token.match(/[^/]*\/|[^/]+/g) ?? [token];
  const out: string[] = [];
  let cur = '';
  for (const part of parts) {
    if (cur !== '' && cellWidth(cur + part) > width) {
      out.push(cur);
      cur = '';
    }
    cur += part;
    while (cellWidth(cur) > width) {
      let cut = 0;
      let used = 0;
      for (const ch of cur) {
        const w = cellWidth(ch);
        if (used + w > width) break;
        used += w;
        cut += ch.length;
      }
      out.push(cur.slice(0, Math.max(1, cut)));
      cur = cur.slice(Math.max(1, cut));
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

/**
 * Wrap escaped `text` into lines of at most `width` cells. Breaks at spaces
 * (dropping them); a token wider than a whole line starts its own line and
 * breaks after a `/`, so a path is never cut where a space would do.
 */
export function wrapCells(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  let cur = '';
  for (const match of text.matchAll(/( *)([^ ]+)/g)) {
    const gap = match[1] ?? '';
    const word = match[2] ?? '';
    const joined = cur === '' ? (lines.length === 0 ? gap : '') + word : cur + gap + word;
    if (cellWidth(joined) <= w) {
      cur = joined;
      continue;
    }
    if (cellWidth(word) <= w) {
      if (cur !== '') lines.push(cur);
      cur = word;
      continue;
    }
    if (cur !== '') lines.push(cur);
    const pieces = splitToken(word, w);
    cur = pieces.pop() ?? '';
    lines.push(...pieces);
  }
  if (cur !== '' || lines.length === 0) lines.push(cur);
  return lines;
}

const esc = escapeTerminal;

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - cellWidth(text)));
}

/** `prefix` on the first line, `hang` on the rest; the body wrapped in between. */
function block(
  prefix: string,
  hang: string,
  body: string,
  width: number,
  tone: LineTone,
): ScreenLine[] {
  return wrapCells(body, width - cellWidth(prefix)).map((line, i) => ({
    text: (i === 0 ? prefix : hang) + line,
    tone,
  }));
}

function rowLines(item: RowItem, selected: boolean, width: number): ScreenLine[] {
  const mark = selected ? SELECT : NOSELECT;
  const indent = item.depth === 1 ? '' : '  ';
  const prefix = mark + indent;
  const inner = width - cellWidth(prefix);
  const label = esc(item.label);
  const value = esc(item.value);
  let body = label;
  if (value !== '') {
    const column = item.depth === 1 ? LABEL_COLUMN : 0;
    body =
      column > 0 && cellWidth(label) < column ? pad(label, column) + value : `${label}  ${value}`;
  }
  const tone: LineTone = selected ? 'selected' : item.tone === 'normal' ? 'row' : item.tone;
  const wrapped = wrapCells(body, inner);
  const fitted = wrapped.length > 1 ? wrapCells(body, inner - 2) : wrapped;
  const lines = fitted.map((line, i) => ({
    text: (i === 0 ? prefix : ' '.repeat(cellWidth(prefix) + 2)) + line,
    tone,
  }));
  if (item.origin !== null) {
    const origin = esc(item.origin);
    const last = lines[lines.length - 1];
    if (last !== undefined && cellWidth(last.text) + 2 + cellWidth(origin) <= width) {
      last.text = pad(last.text, width - cellWidth(origin)) + origin;
    } else {
      for (const piece of wrapCells(origin, inner)) {
        lines.push({ text: pad('', width - cellWidth(piece)) + piece, tone });
      }
    }
  }
  return lines;
}

function itemLines(item: Item, selected: boolean, width: number): ScreenLine[] {
  switch (item.kind) {
    case 'section':
      return block('', '', esc(item.title), width, 'section');
    case 'heading': {
      const value = item.value === '' ? '' : `  ${esc(item.value)}`;
      return block(NOSELECT, NOSELECT + '  ', esc(item.label) + value, width, 'heading');
    }
    case 'row':
      return rowLines(item, selected, width);
  }
}

function headerLines(input: ScreenInput, width: number): ScreenLine[] {
  const { world, derived, state } = input;
  const kind =
    world.file.kind === 'project'
      ? 'project'
      : world.file.kind === 'default'
        ? 'global (default.config)'
        : `layer ${esc(world.file.name)}`;
  const s = derived.summary;
  const exposure = [
    ...exposureParts(s),
    `network ${s.network}`,
    ...(s.egress === null ? [] : [`${s.egress} egress`]),
  ].join(' · ');
  const lines: ScreenLine[] = [
    ...block('', '', `byre config · ${kind}${isDirty(state) ? ' · unsaved' : ''}`, width, 'title'),
    ...block('', '', esc(world.file.path), width, 'dim'),
    ...block('exposure: ', '  ', esc(exposure), width, 'info'),
  ];
  const problems = derived.problems;
  if (problems.length > 0) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
    const text = first === undefined ? '' : esc(issueLine(first));
    lines.push(...block('⚠ ', '  ', `${text}${more}`, width, 'warn').slice(0, 2));
  }
  return lines;
}

/** The keys the footer lists, for the rows and for each overlay. */
const KEYS: Readonly<Record<'browse' | NonNullable<EditorState['overlay']>['kind'], string>> = {
  browse: '↑↓ move · ←→ change · ↵ open · x remove · ^s save · ^e $EDITOR · ^q quit · ? help',
  form: '↵ done · Esc cancel · ↑↓ field · ←→ choice · ^u clear · ^e $EDITOR (prose)',
  choose: '↑↓ move · ↵ choose · Esc cancel',
  quit: 's save and quit · d discard and quit · Esc keep editing',
  help: 'any key closes help',
};

function footerLines(input: ScreenInput, width: number): ScreenLine[] {
  const { state } = input;
  if (state.message !== null) {
    const tone: LineTone = state.message.tone === 'error' ? 'error' : 'info';
    return state.message.text
      .split('\n')
      .flatMap((line) => block('', '  ', esc(line), width, tone))
      .slice(0, 3);
  }
  return block('', '', KEYS[state.overlay?.kind ?? 'browse'], width, 'hint');
}

function formLines(
  overlay: FormOverlay,
  width: number,
): { lines: ScreenLine[]; focusLine: number } {
  const lines: ScreenLine[] = [...block('', '', esc(overlay.form.title), width, 'section')];
  let focusLine = 0;
  overlay.form.fields.forEach((field, i) => {
    const focused = i === overlay.focus;
    const value = overlay.values[field.name] ?? '';
    let shown: string;
    if (field.choices !== undefined) {
      shown = `‹ ${esc(value)} ›`;
    } else if (value.includes('\n')) {
      shown = `${esc(value.split('\n')[0] ?? '')} … (${value.split('\n').length} lines; ^e edits)`;
    } else if (focused) {
      shown = `${esc(value.slice(0, overlay.caret))}▏${esc(value.slice(overlay.caret))}`;
    } else {
      shown = esc(value);
    }
    if (value === '' && field.placeholder !== undefined) shown += `  (${esc(field.placeholder)})`;
    if (focused) focusLine = lines.length;
    lines.push(
      ...block(
        `${focused ? SELECT : NOSELECT}${pad(`${field.label}:`, 12)}`,
        ' '.repeat(14),
        shown,
        width,
        focused ? 'selected' : 'row',
      ),
    );
  });
  for (const error of overlay.errors) lines.push(...block('✗ ', '  ', esc(error), width, 'error'));
  return { lines, focusLine };
}

function helpLines(input: ScreenInput, width: number): ScreenLine[] {
  const rows = selectableRows(input.items);
  const current = rows[selectedIndex(input.state, input.items)];
  const forKey = current === undefined ? [] : [keyHelp(current.key)];
  const text = [
    'Keys',
    '↑↓ (j k) move · PgUp PgDn page · Home End',
    '←→ change: switch, toggle, next choice',
    '↵ open: a form, a list of choices',
    'x or Delete remove: this layer’s own entry, or a removal marker for an inherited one',
    '^s save (through byre’s config writer, under the setup lock)',
    '^e $EDITOR: the prose of this row, else the whole file',
    '^q quit (asks when there are unsaved changes)',
    '',
    'Each row shows the value in effect and the layer it came from; changes are written to this file only.',
    ...forKey,
  ];
  return text.flatMap((line) =>
    block('', '  ', esc(line), width, line === 'Keys' ? 'section' : 'row'),
  );
}

function bodyLines(
  input: ScreenInput,
  width: number,
): { lines: ScreenLine[]; focus: [number, number] } {
  const { state, items } = input;
  const overlay = state.overlay;
  if (overlay?.kind === 'form') {
    const { lines, focusLine } = formLines(overlay, width);
    return { lines, focus: [focusLine, lines.length - 1] };
  }
  if (overlay?.kind === 'choose') {
    const lines = [...block('', '', esc(overlay.chooser.title), width, 'section')];
    let focus: [number, number] = [0, 0];
    overlay.chooser.options.forEach((option, i) => {
      const selected = i === overlay.cursor;
      const detail =
        option.detail === undefined || option.detail === '' ? '' : ` — ${esc(option.detail)}`;
      const start = lines.length;
      lines.push(
        ...block(
          selected ? SELECT : NOSELECT,
          '    ',
          esc(option.label) + detail,
          width,
          selected ? 'selected' : 'row',
        ),
      );
      if (selected) focus = [start, lines.length - 1];
    });
    return { lines, focus };
  }
  if (overlay?.kind === 'help') return { lines: helpLines(input, width), focus: [0, 0] };
  if (overlay?.kind === 'quit') {
    return {
      lines: block('', '', `Unsaved changes to ${esc(input.world.file.path)}.`, width, 'warn'),
      focus: [0, 0],
    };
  }
  const rows = selectableRows(items);
  const selected = rows[selectedIndex(state, items)];
  const lines: ScreenLine[] = [];
  let focus: [number, number] = [0, 0];
  for (const item of items) {
    const start = lines.length;
    const isSelected = item.kind === 'row' && item.id === selected?.id;
    lines.push(...itemLines(item, isSelected, width));
    if (isSelected) focus = [start, lines.length - 1];
  }
  return { lines, focus };
}

/** The whole frame: exactly `height` lines or fewer, none wider than `width` cells. */
export function editorScreen(input: ScreenInput): Screen {
  const width = Math.max(MIN_WIDTH, input.width);
  const height = Math.max(MIN_HEIGHT, input.height);
  const header = headerLines(input, width);
  const footer = footerLines(input, width);
  const bodyHeight = Math.max(1, height - header.length - footer.length);
  const { lines, focus } = bodyLines(input, width);
  let scroll = input.state.overlay === null ? input.scroll : 0;
  if (focus[1] >= scroll + bodyHeight) scroll = focus[1] - bodyHeight + 1;
  if (focus[0] < scroll) scroll = focus[0];
  scroll = Math.max(0, Math.min(scroll, Math.max(0, lines.length - bodyHeight)));
  const body = lines.slice(scroll, scroll + bodyHeight);
  return {
    lines: [...header, ...body, ...footer].slice(0, height),
    scroll: input.state.overlay === null ? scroll : input.scroll,
    bodyHeight,
  };
}
