// The editor as a state machine: keys in, a new state out, and at most one
// effect for the IO shell to run (save, $EDITOR, re-read the layers below,
// exit). Every change to the buffer is applied as TomlEdits and re-checked
// with the loader's rules before it is accepted; a refused change leaves the
// buffer as it was and says why, located. Pure.
// Over 500 lines: one reducer; each key handler is a short function over the same state.

import type { ConfigIssue } from '../../../errors.js';
import { applyEdits, TomlDocError, type TomlEdit } from '../../../tomldoc/index.js';
import { belowKey, derive, issueLine, newProblems, parseBuffer } from './derive.js';
import type {
  Below,
  Change,
  ChooserSpec,
  Derived,
  EditorWorld,
  FormSpec,
  Item,
  RowItem,
} from './types.js';

export interface FormOverlay {
  kind: 'form';
  form: FormSpec;
  values: Record<string, string>;
  focus: number;
  caret: number;
  errors: string[];
}

type Overlay =
  | FormOverlay
  | { kind: 'choose'; chooser: ChooserSpec; cursor: number }
  | { kind: 'help' }
  | { kind: 'quit' };

/** What $EDITOR's text goes back into. */
type ExternalPurpose =
  | { kind: 'file' }
  | { kind: 'prose'; apply: (text: string) => Change }
  | { kind: 'field'; field: string };

type Effect =
  | { kind: 'save' }
  | { kind: 'external'; text: string; suffix: '.toml' | '.md'; purpose: ExternalPurpose }
  | { kind: 'reload-below'; key: string }
  /** Delete a machine-scoped volume's data on every engine (never while a byre session runs). */
  | { kind: 'clear-volume'; volume: string }
  | { kind: 'exit' };

export interface EditorState {
  text: string;
  /** The file as opened or last saved: the buffer is unsaved when it differs. */
  saved: string;
  /** The edits since the last save, to re-apply over a file that changed on disk; null once $EDITOR replaced the buffer. */
  pending: TomlEdit[] | null;
  below: Below;
  /** The selected row's id, and its position among selectable rows (kept when the id goes). */
  cursor: string | null;
  cursorAt: number;
  overlay: Overlay | null;
  message: { text: string; tone: 'info' | 'error' } | null;
  effect: Effect | null;
  /** Quit once the save in flight lands. */
  exitAfterSave: boolean;
  /** The buffer to put back if the layers a change selected cannot be read. */
  revertTo: { text: string; pending: TomlEdit[] | null } | null;
  /** A whole-file $EDITOR result that did not load, offered again at the next ^e. */
  draft: string | null;
}

type EditorKey =
  | {
      name:
        | 'up'
        | 'down'
        | 'left'
        | 'right'
        | 'enter'
        | 'escape'
        | 'tab'
        | 'backtab'
        | 'backspace'
        | 'delete'
        | 'home'
        | 'end'
        | 'pageup'
        | 'pagedown';
    }
  | { name: 'ctrl'; char: string }
  | { name: 'text'; text: string };

export type EditorEvent =
  | { kind: 'key'; key: EditorKey }
  /** `rebased`: the file had changed on disk and this session's edits were applied over it. */
  | { kind: 'saved'; text: string; rebased?: boolean }
  | { kind: 'save-failed'; message: string }
  | { kind: 'below-loaded'; below: Below; issues: readonly ConfigIssue[] }
  | { kind: 'external-done'; text: string | null; error?: string }
  | { kind: 'volume-cleared'; message: string; ok: boolean };

/** What a reducer step reads besides the state: computed by the caller from the same state. */
export interface EditorContext {
  world: EditorWorld;
  derived: Derived;
  items: readonly Item[];
  /** Body lines a page key moves by. */
  page: number;
}

export function initialEditorState(text: string, below: Below): EditorState {
  return {
    text,
    saved: text,
    pending: [],
    below,
    cursor: null,
    cursorAt: 0,
    overlay: null,
    message: null,
    effect: null,
    exitAfterSave: false,
    revertTo: null,
    draft: null,
  };
}

export const isDirty = (s: EditorState): boolean => s.text !== s.saved;

export function selectableRows(items: readonly Item[]): RowItem[] {
  return items.filter((i): i is RowItem => i.kind === 'row');
}

/** The selected row: the one with the remembered id, else the one at the remembered position. */
export function selectedIndex(state: EditorState, items: readonly Item[]): number {
  const rows = selectableRows(items);
  if (rows.length === 0) return -1;
  const byId = state.cursor === null ? -1 : rows.findIndex((r) => r.id === state.cursor);
  return byId >= 0 ? byId : Math.min(Math.max(0, state.cursorAt), rows.length - 1);
}

function info(state: EditorState, text: string): EditorState {
  return { ...state, message: { text, tone: 'info' } };
}

function fail(state: EditorState, text: string): EditorState {
  return { ...state, message: { text, tone: 'error' } };
}

function moveTo(state: EditorState, items: readonly Item[], index: number): EditorState {
  const rows = selectableRows(items);
  const at = Math.min(Math.max(0, index), rows.length - 1);
  return { ...state, cursor: rows[at]?.id ?? null, cursorAt: at, message: null };
}

/** The issues a change would introduce, each on one located line; empty when it may be applied. */
function refusal(
  next: string,
  state: EditorState,
  ctx: EditorContext,
): { issues: string[]; reload: boolean } {
  const parsed = parseBuffer(next, ctx.world.file);
  if (parsed.raw === null) return { issues: parsed.issues.map(issueLine), reload: false };
  if (belowKey(parsed.raw, ctx.world.file) !== state.below.key) return { issues: [], reload: true };
  const after = derive(next, state.below, ctx.world);
  return {
    issues: newProblems(ctx.derived.problems, after.problems).map(issueLine),
    reload: false,
  };
}

type Applied = { ok: true; state: EditorState } | { ok: false; issues: string[] };

/** Apply a change to the buffer, or say (located) why the loader would refuse the result. */
function applyChange(state: EditorState, change: Change, ctx: EditorContext): Applied {
  let next: string;
  try {
    next = applyEdits(state.text, change.edits);
  } catch (error) {
    if (!(error instanceof TomlDocError)) throw error;
    return {
      ok: false,
      issues: [`cannot edit this file here: ${error.message}; ^e edits it in $EDITOR`],
    };
  }
  if (next === state.text) return { ok: true, state: info(state, 'nothing changed') };
  const { issues, reload } = refusal(next, state, ctx);
  if (issues.length > 0) return { ok: false, issues };
  const pending = state.pending === null ? null : [...state.pending, ...change.edits];
  const accepted: EditorState = {
    ...state,
    text: next,
    pending,
    message: { text: change.says, tone: 'info' },
  };
  if (!reload) return { ok: true, state: accepted };
  const key = belowKey(parseBuffer(next, ctx.world.file).raw, ctx.world.file);
  return {
    ok: true,
    state: {
      ...accepted,
      effect: { kind: 'reload-below', key },
      revertTo: { text: state.text, pending: state.pending },
    },
  };
}

function applyOrSay(state: EditorState, change: Change, ctx: EditorContext): EditorState {
  const applied = applyChange(state, change, ctx);
  return applied.ok ? applied.state : fail(state, applied.issues.join('\n'));
}

function openForm(state: EditorState, form: FormSpec): EditorState {
  const values = Object.fromEntries(form.fields.map((f) => [f.name, f.initial]));
  const first = form.fields[0]?.initial ?? '';
  return {
    ...state,
    message: null,
    overlay: { kind: 'form', form, values, focus: 0, caret: first.length, errors: [] },
  };
}

function browseKey(state: EditorState, key: EditorKey, ctx: EditorContext): EditorState {
  const rows = selectableRows(ctx.items);
  const at = selectedIndex(state, ctx.items);
  const current = rows[at];
  if (key.name === 'ctrl') {
    switch (key.char) {
      case 's':
        return isDirty(state)
          ? { ...state, effect: { kind: 'save' } }
          : info(state, 'nothing to save');
      case 'q':
      case 'c':
        return isDirty(state)
          ? { ...state, overlay: { kind: 'quit' }, message: null }
          : { ...state, effect: { kind: 'exit' } };
      case 'e':
        if (current?.act.prose !== undefined) {
          return {
            ...state,
            effect: {
              kind: 'external',
              text: current.act.prose.text,
              suffix: '.md',
              purpose: { kind: 'prose', apply: current.act.prose.apply },
            },
          };
        }
        return {
          ...state,
          effect: {
            kind: 'external',
            text: state.draft ?? state.text,
            suffix: '.toml',
            purpose: { kind: 'file' },
          },
        };
      default:
        return state;
    }
  }
  if (key.name === 'text') {
    if (key.text === '?') return { ...state, overlay: { kind: 'help' }, message: null };
    if (key.text === 'x') return removeCurrent(state, current, ctx);
    if (key.text === 'j') return moveTo(state, ctx.items, at + 1);
    if (key.text === 'k') return moveTo(state, ctx.items, at - 1);
    return state;
  }
  switch (key.name) {
    case 'up':
      return moveTo(state, ctx.items, at - 1);
    case 'down':
      return moveTo(state, ctx.items, at + 1);
    case 'pageup':
      return moveTo(state, ctx.items, at - ctx.page);
    case 'pagedown':
      return moveTo(state, ctx.items, at + ctx.page);
    case 'home':
      return moveTo(state, ctx.items, 0);
    case 'end':
      return moveTo(state, ctx.items, rows.length - 1);
    case 'delete':
      return removeCurrent(state, current, ctx);
    case 'left':
    case 'right': {
      const change = current?.act.cycle?.(key.name === 'right' ? 1 : -1) ?? null;
      if (change === null) return current?.act.open ? info(state, '↵ opens this row') : state;
      return applyOrSay(state, change, ctx);
    }
    case 'enter': {
      if (current === undefined) return state;
      const open = current.act.open;
      if (open?.kind === 'form') return openForm(state, open.form);
      if (open?.kind === 'choose') {
        return {
          ...state,
          message: null,
          overlay: { kind: 'choose', chooser: open.chooser, cursor: open.chooser.initial },
        };
      }
      return info(state, current.act.note ?? 'nothing to open here');
    }
    default:
      return state;
  }
}

function removeCurrent(
  state: EditorState,
  current: RowItem | undefined,
  ctx: EditorContext,
): EditorState {
  const remove = current?.act.remove;
  if (remove === undefined) return info(state, current?.act.note ?? 'nothing to remove here');
  if (typeof remove === 'string') return info(state, remove);
  return applyOrSay(state, remove, ctx);
}

function fieldAt(overlay: FormOverlay) {
  return overlay.form.fields[overlay.focus];
}

function withForm(state: EditorState, overlay: FormOverlay): EditorState {
  return { ...state, overlay };
}

function focusField(overlay: FormOverlay, focus: number): FormOverlay {
  const count = overlay.form.fields.length;
  const next = (focus + count) % count;
  const value = overlay.values[overlay.form.fields[next]?.name ?? ''] ?? '';
  return { ...overlay, focus: next, caret: value.length };
}

function setField(overlay: FormOverlay, value: string, caret: number): FormOverlay {
  const field = fieldAt(overlay);
  if (field === undefined) return overlay;
  return { ...overlay, values: { ...overlay.values, [field.name]: value }, caret, errors: [] };
}

function submitForm(state: EditorState, overlay: FormOverlay, ctx: EditorContext): EditorState {
  const built = overlay.form.build(overlay.values);
  if (!('edits' in built)) {
    const focus = overlay.form.fields.findIndex((f) => f.name === built.field);
    return withForm(state, { ...focusField(overlay, Math.max(0, focus)), errors: [built.message] });
  }
  const applied = applyChange(state, built, ctx);
  if (!applied.ok) return withForm(state, { ...overlay, errors: applied.issues });
  return { ...applied.state, overlay: null };
}

function formKey(
  state: EditorState,
  overlay: FormOverlay,
  key: EditorKey,
  ctx: EditorContext,
): EditorState {
  const field = fieldAt(overlay);
  if (field === undefined) return { ...state, overlay: null };
  const value = overlay.values[field.name] ?? '';
  const { caret } = overlay;
  if (key.name === 'ctrl') {
    if (key.char === 'u') return withForm(state, setField(overlay, '', 0));
    if (key.char === 'e') {
      if (field.prose !== true)
        return withForm(state, { ...overlay, errors: ['^e writes prose fields in $EDITOR'] });
      return {
        ...state,
        effect: {
          kind: 'external',
          text: value,
          suffix: '.md',
          purpose: { kind: 'field', field: field.name },
        },
      };
    }
    if (key.char === 'c' || key.char === 'q') return { ...state, overlay: null, message: null };
    return state;
  }
  if (key.name === 'text') {
    if (field.choices !== undefined) return state;
    const typed = key.text.replace(/[\u0000-\u001f\u007f]/g, '');
    return withForm(
      state,
      setField(overlay, value.slice(0, caret) + typed + value.slice(caret), caret + typed.length),
    );
  }
  switch (key.name) {
    case 'escape':
      return { ...state, overlay: null, message: null };
    case 'enter':
      return submitForm(state, overlay, ctx);
    case 'up':
    case 'backtab':
      return withForm(state, focusField(overlay, overlay.focus - 1));
    case 'down':
    case 'tab':
      return withForm(state, focusField(overlay, overlay.focus + 1));
    case 'left':
    case 'right': {
      const step = key.name === 'right' ? 1 : -1;
      if (field.choices !== undefined) {
        const at = Math.max(0, field.choices.indexOf(value));
        const next =
          field.choices[(at + step + field.choices.length) % field.choices.length] ?? value;
        return withForm(state, setField(overlay, next, next.length));
      }
      return withForm(state, {
        ...overlay,
        caret: Math.min(Math.max(0, caret + step), value.length),
      });
    }
    case 'home':
      return withForm(state, { ...overlay, caret: 0 });
    case 'end':
      return withForm(state, { ...overlay, caret: value.length });
    case 'backspace':
    case 'delete':
      if (field.choices !== undefined || caret === 0) return state;
      return withForm(
        state,
        setField(overlay, value.slice(0, caret - 1) + value.slice(caret), caret - 1),
      );
    default:
      return state;
  }
}

function chooseKey(
  state: EditorState,
  overlay: Extract<Overlay, { kind: 'choose' }>,
  key: EditorKey,
  ctx: EditorContext,
): EditorState {
  const count = overlay.chooser.options.length;
  switch (key.name) {
    case 'escape':
      return { ...state, overlay: null };
    case 'up':
      return { ...state, overlay: { ...overlay, cursor: Math.max(0, overlay.cursor - 1) } };
    case 'down':
      return { ...state, overlay: { ...overlay, cursor: Math.min(count - 1, overlay.cursor + 1) } };
    case 'home':
      return { ...state, overlay: { ...overlay, cursor: 0 } };
    case 'end':
      return { ...state, overlay: { ...overlay, cursor: Math.max(0, count - 1) } };
    case 'enter': {
      const option = overlay.chooser.options[overlay.cursor];
      if (option === undefined || 'keep' in option) return { ...state, overlay: null };
      if ('clearVolume' in option) {
        return {
          ...state,
          overlay: null,
          effect: { kind: 'clear-volume', volume: option.clearVolume },
          message: { text: `clearing ${option.clearVolume}…`, tone: 'info' },
        };
      }
      const applied = applyChange(state, option.change, ctx);
      return applied.ok
        ? { ...applied.state, overlay: null }
        : fail({ ...state, overlay: null }, applied.issues.join('\n'));
    }
    case 'ctrl':
      return key.char === 'c' || key.char === 'q' ? { ...state, overlay: null } : state;
    default:
      return state;
  }
}

function quitKey(state: EditorState, key: EditorKey): EditorState {
  if ((key.name === 'text' && key.text === 's') || (key.name === 'ctrl' && key.char === 's')) {
    return { ...state, overlay: null, exitAfterSave: true, effect: { kind: 'save' } };
  }
  if (key.name === 'text' && key.text === 'd')
    return { ...state, overlay: null, effect: { kind: 'exit' } };
  if (key.name === 'escape' || (key.name === 'text' && key.text === 'n'))
    return { ...state, overlay: null };
  return state;
}

function onKey(state: EditorState, key: EditorKey, ctx: EditorContext): EditorState {
  const overlay = state.overlay;
  if (overlay === null) return browseKey(state, key, ctx);
  switch (overlay.kind) {
    case 'form':
      return formKey(state, overlay, key, ctx);
    case 'choose':
      return chooseKey(state, overlay, key, ctx);
    case 'help':
      return { ...state, overlay: null };
    case 'quit':
      return quitKey(state, key);
  }
}

function externalDone(
  state: EditorState,
  text: string | null,
  error: string | undefined,
  ctx: EditorContext,
): EditorState {
  const effect = state.effect;
  const cleared = { ...state, effect: null };
  if (effect?.kind !== 'external') return cleared;
  if (text === null) return fail(cleared, error ?? '$EDITOR did not finish; nothing changed');
  const purpose = effect.purpose;
  switch (purpose.kind) {
    case 'field': {
      const overlay = cleared.overlay;
      if (overlay?.kind !== 'form') return cleared;
      const value = text.replace(/\n+$/, '');
      return {
        ...cleared,
        overlay: {
          ...overlay,
          values: { ...overlay.values, [purpose.field]: value },
          caret: value.length,
          errors: [],
        },
      };
    }
    case 'prose':
      return applyOrSay(cleared, purpose.apply(text.replace(/\n+$/, '')), ctx);
    case 'file': {
      if (text === cleared.text) return info({ ...cleared, draft: null }, 'no change in $EDITOR');
      const parsed = parseBuffer(text, ctx.world.file);
      if (parsed.raw === null) {
        return fail(
          { ...cleared, draft: text },
          `${parsed.issues.map(issueLine).join('\n')}\nnot taken: ^e reopens your text in $EDITOR`,
        );
      }
      const key = belowKey(parsed.raw, ctx.world.file);
      // The same rules as a form's edit: refused for what the text breaks.
      const broken =
        key === state.below.key
          ? newProblems(ctx.derived.problems, derive(text, state.below, ctx.world).problems)
          : [];
      if (broken.length > 0) {
        return fail(
          { ...cleared, draft: text },
          `${broken.map(issueLine).join('\n')}\nnot taken: ^e reopens your text in $EDITOR`,
        );
      }
      return {
        ...cleared,
        text,
        pending: null,
        draft: null,
        message: { text: 'taken from $EDITOR (not saved yet)', tone: 'info' },
        ...(key === state.below.key
          ? {}
          : {
              effect: { kind: 'reload-below', key },
              revertTo: { text: state.text, pending: state.pending },
            }),
      };
    }
  }
}

export function reduceEditor(
  state: EditorState,
  event: EditorEvent,
  ctx: EditorContext,
): EditorState {
  switch (event.kind) {
    case 'key':
      if (state.effect === null) return onKey(state, event.key, ctx);
      // ^q typed while a save is in flight quits once it lands (a failed save keeps the screen).
      if (state.effect.kind === 'save' && event.key.name === 'ctrl' && event.key.char === 'q') {
        return { ...state, exitAfterSave: true };
      }
      return state;
    case 'saved':
      return {
        ...state,
        text: event.text,
        saved: event.text,
        pending: [],
        effect: state.exitAfterSave ? { kind: 'exit' } : null,
        message: {
          text:
            event.rebased === true
              ? `saved ${ctx.world.file.path}: it had changed on disk, and your changes were applied over it`
              : `saved ${ctx.world.file.path}`,
          tone: 'info',
        },
      };
    case 'save-failed':
      return {
        ...state,
        effect: null,
        exitAfterSave: false,
        message: { text: event.message, tone: 'error' },
      };
    case 'below-loaded': {
      // A change of template or parent is refused for what it breaks, as any
      // edit: the layers it brings must load, and the result must pass the
      // same rules the old text did.
      const issues =
        state.revertTo === null || event.issues.length > 0
          ? event.issues
          : newProblems(
              derive(state.revertTo.text, state.below, ctx.world).problems,
              derive(state.text, event.below, ctx.world).problems,
            );
      if (issues.length > 0 && state.revertTo !== null) {
        return {
          ...state,
          ...state.revertTo,
          revertTo: null,
          effect: null,
          message: { text: `${issues.map(issueLine).join('\n')}\nnot taken`, tone: 'error' },
        };
      }
      return { ...state, below: event.below, revertTo: null, effect: null };
    }
    case 'external-done':
      return externalDone(state, event.text, event.error, ctx);
    case 'volume-cleared':
      return {
        ...state,
        effect: null,
        message: { text: event.message, tone: event.ok ? 'info' : 'error' },
      };
  }
}

/** The subset of ink's Key the editor reads; structural, so the model stays ink-free. */
interface InkKeyFlags {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
}

/**
 * One read from the terminal as the editor's keys. Text that arrives in one
 * read with control bytes in it (a paste, or keys typed faster than a frame)
 * is split, so `abc⏎` is three letters then Enter, not a lost Enter.
 */
export function editorKeysFor(input: string, key: InkKeyFlags): EditorKey[] {
  const named = Object.entries(key).some(([k, v]) => v === true && k !== 'shift' && k !== 'meta');
  if (named || !/[\u0000-\u001f\u007f]/.test(input) || input.length === 1) {
    const one = editorKeyFor(input, key);
    return one === null ? [] : [one];
  }
  const keys: EditorKey[] = [];
  for (const part of input.match(/[\u0000-\u001f\u007f]|[^\u0000-\u001f\u007f]+/g) ?? []) {
    const code = part.charCodeAt(0);
    if (part.length > 1 || (code >= 0x20 && code !== 0x7f)) keys.push({ name: 'text', text: part });
    else if (part === '\r' || part === '\n') keys.push({ name: 'enter' });
    else if (part === '\t') keys.push({ name: 'tab' });
    else if (part === '\u007f' || part === '\b') keys.push({ name: 'backspace' });
    else if (code >= 1 && code <= 26)
      keys.push({ name: 'ctrl', char: String.fromCharCode(code + 96) });
  }
  return keys;
}

/** One keypress as the editor reads it; null for keys it ignores. */
function editorKeyFor(input: string, key: InkKeyFlags): EditorKey | null {
  if (key.upArrow === true) return { name: 'up' };
  if (key.downArrow === true) return { name: 'down' };
  if (key.leftArrow === true) return { name: 'left' };
  if (key.rightArrow === true) return { name: 'right' };
  if (key.pageUp === true) return { name: 'pageup' };
  if (key.pageDown === true) return { name: 'pagedown' };
  if (key.home === true) return { name: 'home' };
  if (key.end === true) return { name: 'end' };
  if (key.return === true || input === '\n') return { name: 'enter' };
  if (key.escape === true) return { name: 'escape' };
  if (key.tab === true) return { name: key.shift === true ? 'backtab' : 'tab' };
  if (key.backspace === true) return { name: 'backspace' };
  if (key.delete === true) return { name: 'delete' };
  if (key.ctrl === true && /^[a-z]$/.test(input)) return { name: 'ctrl', char: input };
  const text = input.replace(/[\u0000-\u001f\u007f]/g, '');
  return text === '' ? null : { name: 'text', text };
}
