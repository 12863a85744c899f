// Pure view-model for the box picker: cursor movement, outcome, and the rows
// the screen shows. No ink, no IO; every string that came from a box (ids,
// labels) is escaped here so the component can print rows verbatim.

import { escapeTerminal } from '../../output/escape.js';

/** One box the picker offers. Fields mirror discovery's view of a running box. */
export interface PickerCandidate {
  id: string;
  engine: string;
  projectId: string;
  workdirId: string;
  label?: string;
}

export type PickerOutcome =
  { kind: 'open' } | { kind: 'chosen'; index: number } | { kind: 'cancelled' };

export interface PickerState {
  cursor: number;
  count: number;
  outcome: PickerOutcome;
}

type PickerKey = 'up' | 'down' | 'home' | 'end' | 'choose' | 'cancel' | 'none';

/** The subset of ink's Key the picker reads; kept structural so the model stays ink-free. */
interface KeyFlags {
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  home?: boolean;
  end?: boolean;
}

export function initialPickerState(count: number): PickerState {
  return { cursor: 0, count, outcome: count === 0 ? { kind: 'cancelled' } : { kind: 'open' } };
}

/** Maps one keypress to a picker action: arrows or j/k move, Enter chooses, Esc / q / Ctrl-C cancel. */
export function pickerKeyFor(input: string, key: KeyFlags): PickerKey {
  if (key.ctrl === true && input === 'c') return 'cancel';
  if (key.escape === true || input === 'q') return 'cancel';
  if (key.return === true) return 'choose';
  if (key.upArrow === true || input === 'k') return 'up';
  if (key.downArrow === true || input === 'j') return 'down';
  if (key.home === true || input === 'g') return 'home';
  if (key.end === true || input === 'G') return 'end';
  return 'none';
}

/** Applies one action. A settled picker ignores further keys; movement wraps. */
export function reducePicker(state: PickerState, action: PickerKey): PickerState {
  if (state.outcome.kind !== 'open' || state.count === 0) return state;
  const last = state.count - 1;
  switch (action) {
    case 'up':
      return { ...state, cursor: state.cursor === 0 ? last : state.cursor - 1 };
    case 'down':
      return { ...state, cursor: state.cursor === last ? 0 : state.cursor + 1 };
    case 'home':
      return { ...state, cursor: 0 };
    case 'end':
      return { ...state, cursor: last };
    case 'choose':
      return { ...state, outcome: { kind: 'chosen', index: state.cursor } };
    case 'cancel':
      return { ...state, outcome: { kind: 'cancelled' } };
    case 'none':
      return state;
  }
}

interface PickerRow {
  text: string;
  selected: boolean;
}

interface PickerView {
  title: string;
  rows: PickerRow[];
  hint: string;
}

const ID_WIDTH = 12;

/** What the screen shows: a title, one escaped row per candidate, and the key hint. */
export function pickerView(candidates: readonly PickerCandidate[], state: PickerState): PickerView {
  const engineWidth = Math.max(0, ...candidates.map((c) => escapeTerminal(c.engine).length));
  const projectWidth = Math.max(0, ...candidates.map((c) => escapeTerminal(c.projectId).length));
  const rows = candidates.map((c, i) => {
    const selected = i === state.cursor;
    const parts = [
      selected ? '>' : ' ',
      escapeTerminal(c.id.slice(0, ID_WIDTH)).padEnd(ID_WIDTH),
      escapeTerminal(c.engine).padEnd(engineWidth),
      escapeTerminal(c.projectId).padEnd(projectWidth),
      escapeTerminal(c.workdirId),
    ];
    if (c.label !== undefined && c.label !== '') parts.push(`(${escapeTerminal(c.label)})`);
    return { text: parts.join('  ').trimEnd(), selected };
  });
  return {
    title: `${candidates.length} boxes are running — pick one:`,
    rows,
    hint: '↑/↓ move · ↵ choose · Esc/q cancel',
  };
}

/** The chosen candidate once the picker settled on one; null while open or after a cancel. */
export function chosenCandidate<T>(candidates: readonly T[], outcome: PickerOutcome): T | null {
  return outcome.kind === 'chosen' ? (candidates[outcome.index] ?? null) : null;
}
