// Text surgery at line granularity: insert whole lines, remove whole lines,
// keeping the document's line ending and its final-newline-or-not state, so
// that an insertion followed by the matching removal gives back the input.

export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Apply non-overlapping splices, all located in the same original text. */
export function applySplices(text: string, splices: readonly Splice[]): string {
  const sorted = [...splices].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Infinity;
  for (const s of sorted) {
    if (s.end > limit) throw new Error('tomldoc: overlapping splices');
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
    limit = s.start;
  }
  return out;
}

/** Offset of the start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset just past the line ending after `offset` (or the text's end). */
export function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl + 1;
}

function endsWithEol(text: string): boolean {
  return text.endsWith('\n');
}

/** Length of the line ending just before `offset` (0 when none). */
function eolBefore(text: string, offset: number): number {
  if (text[offset - 1] !== '\n') return 0;
  return text[offset - 2] === '\r' ? 2 : 1;
}

/**
 * Insert whole lines at a line boundary. At the end of a text with no final
 * newline the lines go after a new line ending and keep that style.
 */
export function insertLines(
  text: string,
  at: number,
  lines: readonly string[],
  eol: string,
): Splice {
  if (at === text.length && text.length > 0 && !endsWithEol(text)) {
    return { start: at, end: at, text: eol + lines.join(eol) };
  }
  return { start: at, end: at, text: lines.map((l) => l + eol).join('') };
}

/**
 * Remove whole lines [start, end). When they run to the end of a text with no
 * final newline, the line ending before them goes too.
 */
export function removeLines(text: string, start: number, end: number): Splice {
  if (end === text.length && !endsWithEol(text) && start > 0) {
    return { start: start - eolBefore(text, start), end, text: '' };
  }
  return { start, end, text: '' };
}
