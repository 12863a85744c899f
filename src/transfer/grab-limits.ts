// The caps on what one grab may bring onto the host (adr/0004): the bytes
// received from the box and, for a directory, the entries of its archive.
// Each has a default and a flag; this module owns both and the flag
// grammar. Pure.

import { UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';

const KIB = 1024;

/**
 * 8 GiB: above any build output a project grabs in the normal course (a
 * release binary, a wheel, an image tarball of a few GiB), and a runaway at
 * the ~400 MB/s an exec streams here reaches it in ~20 s.
 */
export const DEFAULT_GRAB_MAX_BYTES = 8 * KIB ** 3;

/**
 * A million entries: more than a large node_modules, and a sixteenth of the
 * inodes of a 256 GB ext4 disk (a runaway of empty files costs 512 bytes of
 * stream each, so the byte cap alone would allow sixteen million).
 */
export const DEFAULT_GRAB_MAX_ENTRIES = 1_000_000;

export interface GrabLimits {
  maxBytes: number;
  maxEntries: number;
}

const DEFAULT_GRAB_LIMITS: GrabLimits = {
  maxBytes: DEFAULT_GRAB_MAX_BYTES,
  maxEntries: DEFAULT_GRAB_MAX_ENTRIES,
};

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  k: KIB,
  m: KIB ** 2,
  g: KIB ** 3,
  t: KIB ** 4,
};

/**
 * `--max-size`: a positive number of bytes, whole or with a unit K, M, G or
 * T (powers of 1024, as docker's `--memory`; `G`, `GB`, `GiB` and `g` are
 * the same). null when it is not one.
 */
function parseByteSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (m === null) return null;
  const unit = UNITS[(m[2] ?? '').toLowerCase()] ?? 1;
  const bytes = Math.floor(Number(m[1]) * unit);
  return bytes >= 1 && Number.isSafeInteger(bytes) ? bytes : null;
}

/** `--max-entries`: a positive whole number. null when it is not one. */
function parseEntryCount(text: string): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 && Number.isSafeInteger(n) ? n : null;
}

/** The caps from the flags (defaults where absent); a value that is not one is a usage error. */
export function grabLimits(options: { maxSize?: string; maxEntries?: string }): GrabLimits {
  const limits = { ...DEFAULT_GRAB_LIMITS };
  if (options.maxSize !== undefined) {
    const bytes = parseByteSize(options.maxSize);
    if (bytes === null) {
      throw new UsageError(`--max-size ${escapeTerminal(options.maxSize)} is not a size`, {
        rule: 'grab.max-size',
        remedy: 'give a number of bytes, or one with a unit: --max-size 500M, --max-size 20G',
      });
    }
    limits.maxBytes = bytes;
  }
  if (options.maxEntries !== undefined) {
    const n = parseEntryCount(options.maxEntries);
    if (n === null) {
      throw new UsageError(
        `--max-entries ${escapeTerminal(options.maxEntries)} is not a positive whole number`,
        { rule: 'grab.max-entries', remedy: 'give a count: --max-entries 2000000' },
      );
    }
    limits.maxEntries = n;
  }
  return limits;
}
