// The status page's row funnel: label/value rows in, finished text out. It owns
// label-column width, wrapping in terminal cells, and default-tier truncation.
// Pure and colourless; it never decides WHICH rows exist, and never cuts a token.

import { cellWidth } from '../output/cell-width.js';
import { escapeTerminal } from '../output/escape.js';

export type StatusRow = {
  label: string;
  value: string;
  /** A blank-label row continuing the row above; its label is not shown. */
  continuation?: boolean;
  /** `never-truncate`: claim degradations and containment disclosures, shown whole in every tier. */
  kind?: 'normal' | 'never-truncate';
};

export type StatusTier = 'default' | 'full';

type RenderRowsOptions = {
  /** Target width in terminal cells (see layoutWidth). */
  width: number;
  tier: StatusTier;
  /** Default-tier line budget per value; defaults to DEFAULT_MAX_VALUE_LINES. */
  maxValueLines?: number;
};

/** The label column (label plus `:`) is never narrower than this. */
const MIN_LABEL_COLUMN = 13;
/** The value column keeps at least this many cells, even if the page then overruns. */
export const MIN_VALUE_WIDTH = 24;
/** Default-tier wrapped lines shown before a value is truncated. */
export const DEFAULT_MAX_VALUE_LINES = 3;

const GUTTER = ' ';

/** The marker that replaces hidden lines; byre's own text, so not escaped. */
function truncationMarker(hiddenLines: number): string {
  return `… (+${hiddenLines} more lines; --full to show)`;
}

type Word = { text: string; width: number; gap: string };

// Words are runs of non-space; `gap` is the run of spaces before the word.
// Only U+0020 is a break opportunity: a no-break space stays inside its token.
function splitWords(text: string): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(/( *)([^ ]+)/g)) {
    const gap = match[1] ?? '';
    const word = match[2] ?? '';
    words.push({ text: word, width: cellWidth(word), gap });
  }
  return words;
}

// A break after a word ending in `,` or `;` follows the row grammar's list and
// clause separators (", " and "; "), so it is preferred over a plain space.
function isSeparatorBreak(word: Word): boolean {
  return word.text.endsWith(',') || word.text.endsWith(';');
}

/**
 * Wrap `text` (already escaped) into lines of at most `width` cells.
 *
 * Breaks only at spaces, preferring the last ", " or "; " on the line when that
 * keeps the line at least half full (otherwise a leading short item would
 * strand a near-empty line), then the last space that fits. A token wider than
 * `width` is never cut: it sits alone on its line and overhangs. Spaces at a
 * break are dropped; spaces inside a line (the grammar's two-space gaps) are kept.
 */
export function wrapValue(text: string, width: number): string[] {
  const words = splitWords(text);
  const first = words[0];
  if (first === undefined) return [''];
  // Leading spaces belong to the first line only; a break drops them.
  const lines: string[] = [];
  let start = 0;
  let lead = first.gap;
  while (start < words.length) {
    // Greedy: the furthest word that still fits, at least one word per line.
    let end = start;
    let used = cellWidth(lead) + (words[start]?.width ?? 0);
    const widths: number[] = [used];
    for (let next = start + 1; next < words.length; next++) {
      const word = words[next];
      if (word === undefined) break;
      const grown = used + word.gap.length + word.width;
      if (grown > width) break;
      used = grown;
      end = next;
      widths.push(used);
    }
    if (end < words.length - 1) {
      for (let k = end; k >= start; k--) {
        const word = words[k];
        const lineWidth = widths[k - start] ?? 0;
        if (word !== undefined && isSeparatorBreak(word) && lineWidth * 2 >= width) {
          end = k;
          break;
        }
      }
    }
    lines.push(lead + joinWords(words, start, end));
    start = end + 1;
    lead = '';
  }
  return lines;
}

function joinWords(words: Word[], start: number, end: number): string {
  let line = '';
  for (let i = start; i <= end; i++) {
    const word = words[i];
    if (word === undefined) continue;
    line += (i === start ? '' : word.gap) + word.text;
  }
  return line;
}

// Whether a row's value may be cut short in this tier.
function mayTruncate(row: StatusRow, tier: StatusTier): boolean {
  return tier === 'default' && row.kind !== 'never-truncate';
}

// Truncating a value only one line over budget would trade one hidden line for
// one marker line, so a value is shown whole unless at least two lines hide.
function truncateLines(lines: string[], budget: number, valueWidth: number): string[] {
  if (lines.length <= budget + 1) return lines;
  const hidden = lines.length - budget;
  return [...lines.slice(0, budget), ...wrapValue(truncationMarker(hidden), valueWidth)];
}

/** Column geometry shared by every row of one page, in terminal cells. */
type StatusColumns = {
  /** Width of `Label:` plus padding. */
  labelColumn: number;
  /** Cell offset where every value line starts (label column plus gutter). */
  valueColumn: number;
  /** Cells a value line may fill before it wraps (never below MIN_VALUE_WIDTH). */
  valueWidth: number;
};

/** The page geometry for `rows` at `width`. */
function columnsFor(rows: readonly StatusRow[], width: number): StatusColumns {
  let longest = 0;
  for (const row of rows) {
    if (isContinuation(row)) continue;
    longest = Math.max(longest, cellWidth(escapeTerminal(row.label)));
  }
  const labelColumn = Math.max(MIN_LABEL_COLUMN, longest + 1);
  const valueColumn = labelColumn + GUTTER.length;
  const valueWidth = Math.max(MIN_VALUE_WIDTH, width - valueColumn);
  return { labelColumn, valueColumn, valueWidth };
}

// A row with an empty label reads as a continuation whether or not it says so;
// printing a lone ":" would be a layout bug, not information.
function isContinuation(row: StatusRow): boolean {
  return row.continuation === true || row.label === '';
}

/**
 * Lay status rows out as text: `Label:` padded to the label column, the value
 * wrapped and hung at the value column. Every label and value is escaped here,
 * so callers pass raw strings. Returns the page with a trailing newline per line.
 */
export function renderRows(rows: readonly StatusRow[], opts: RenderRowsOptions): string {
  const { labelColumn, valueColumn, valueWidth } = columnsFor(rows, opts.width);
  const budget = Math.max(1, Math.floor(opts.maxValueLines ?? DEFAULT_MAX_VALUE_LINES));
  const hang = ' '.repeat(valueColumn);
  let out = '';
  for (const row of rows) {
    let lines = wrapValue(escapeTerminal(row.value), valueWidth);
    if (mayTruncate(row, opts.tier)) lines = truncateLines(lines, budget, valueWidth);
    const head = isContinuation(row) ? hang : labelCell(row.label, labelColumn) + GUTTER;
    lines.forEach((line, i) => {
      // Only ASCII spaces are trimmed: a trailing no-break space is content.
      out += `${(i === 0 ? head : hang) + line}`.replace(/ +$/, '') + '\n';
    });
  }
  return out;
}

function labelCell(label: string, labelColumn: number): string {
  const text = `${escapeTerminal(label)}:`;
  return text + ' '.repeat(Math.max(0, labelColumn - cellWidth(text)));
}
