// "Did you mean …?" for a misspelt key or name: the one known name closest to
// what was written, when it is close enough to be a typo. Pure.

/** Case and `-`/`_` are not what a typo is made of. */
function fold(word: string): string {
  return word.toLowerCase().replace(/-/g, '_');
}

/** Edit distance counting an adjacent swap as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** How many edits still read as a typo of a word this long. */
function tolerance(length: number): number {
  if (length <= 4) return 1;
  if (length <= 8) return 2;
  return 3;
}

/**
 * The candidate nearest to `word`, or null when none is close: within one
 * edit for short words, two for middling, three for long ones; ties go to the
 * earlier candidate.
 */
export function nearestName(word: string, candidates: readonly string[]): string | null {
  const folded = fold(word);
  let best: { name: string; distance: number } | null = null;
  for (const name of candidates) {
    if (name === word) continue;
    const distance = editDistance(folded, fold(name));
    if (distance > tolerance(Math.max(folded.length, name.length))) continue;
    if (distance >= name.length) continue;
    if (best === null || distance < best.distance) best = { name, distance };
  }
  return best?.name ?? null;
}
