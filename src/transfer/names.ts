// Names that cross the box boundary: control characters are sanitised (and
// reported by the caller), landing names for stdin are minted, and collision
// candidates follow one rule on both sides (`report.pdf` → `report-2.pdf`).
// Pure.

// C0, DEL, C1, and the Unicode line/paragraph separators and bidi controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Replaces every control character with `_`; `/` is not allowed in one name either. */
export function sanitizeName(name: string): string {
  return name.replace(CONTROL, '_').replace(/\//g, '_');
}

/** A name that cannot be used even after sanitising (`.`, `..`, empty). */
export function isUnusableName(name: string): boolean {
  return name === '' || name === '.' || name === '..';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `stdin-YYYYMMDD-HHMMSS` in local time. */
export function stdinName(now: Date): string {
  return (
    `stdin-${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}` +
    `-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`
  );
}

/**
 * Stem and extension as the box-side script splits them: the extension is
 * the last `.suffix` unless the only dot leads the name (`.env` has none).
 */
function splitName(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return { stem: name, ext: '' };
  return { stem: name.slice(0, dot), ext: name.slice(dot) };
}

export const MAX_UNIQUIFY = 9999;

/** The k-th candidate for `name`: k = 1 is the name itself, then `stem-k.ext`. */
export function candidateName(name: string, k: number): string {
  if (k <= 1) return name;
  const { stem, ext } = splitName(name);
  return `${stem}-${k}${ext}`;
}
