// What a `--self-edit` session changed in this project's store (the one
// directory it mounts read-write): `byre.config` as a content diff, which
// applies at the next develop, and every other file as added, changed or
// deleted, the staged build contexts (`context/`: the launcher and the
// Dockerfile; `wiring-context/`: the wiring, adr/0073) among them, with a line saying byre never builds from that copy
// (adr/0048). byre's own working entries (launch records, the setup lock) are
// reported only when what they are changes (a directory turned into a link),
// not for their contents, which byre itself rewrites.
// Pure: the snapshot is taken by store-snapshot.ts.

import { structuredPatch } from 'diff';
import type { FileState } from './report.js';

/** Entries byre itself rewrites during and between sessions: only their own kind is compared. */
export const BYRE_WORKING_ENTRIES = ['launches', 'lock'] as const;

/** The staged build contexts' directories in the store: the base image's and the wiring's (adr/0073). */
const CONTEXT_DIRS = ['context', 'wiring-context'] as const;

export interface StoreSnapshot {
  /** Store-relative path -> state. */
  files: Record<string, FileState>;
  /** `byre.config`'s text when it is a readable regular file; null otherwise. */
  config: string | null;
  complete: boolean;
  unchecked: string[];
}

/** The most diff lines printed; the rest are counted. */
const DIFF_LINE_LIMIT = 200;

function configDiff(before: string | null, after: string | null): string[] {
  if (before === after || before === null || after === null) return [];
  const patch = structuredPatch('byre.config', 'byre.config', before, after, '', '', {
    context: 2,
  });
  const lines = patch.hunks.flatMap((h) => [
    `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    ...h.lines,
  ]);
  const rest = lines.length - DIFF_LINE_LIMIT;
  return rest > 0 ? [...lines.slice(0, DIFF_LINE_LIMIT), `… and ${rest} more diff lines`] : lines;
}

function same(a: FileState, b: FileState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function kindText(s: FileState): string {
  return s.kind === 'file'
    ? ''
    : s.kind === 'symlink'
      ? ` (a symbolic link to ${s.target})`
      : ` (${s.what})`;
}

/**
 * The report's lines (without `byre: `); empty when nothing changed. The
 * config diff is shown whenever the text changed; a config that is no longer
 * a readable regular file is named instead.
 */
export function selfEditReportLines(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const diff = configDiff(before.config, after.config);
  const files: string[] = [];
  const touched = new Set<string>();
  const names = [...new Set([...Object.keys(before.files), ...Object.keys(after.files)])].sort();
  for (const name of names) {
    if (name === 'byre.config' && before.config !== null && after.config !== null) continue;
    const a = before.files[name];
    const b = after.files[name];
    const count = files.length;
    if (a === undefined && b !== undefined) files.push(`added: ${name}${kindText(b)}`);
    else if (a !== undefined && b === undefined) {
      if (after.complete) files.push(`deleted: ${name}`);
    } else if (a !== undefined && b !== undefined && !same(a, b)) {
      files.push(`changed: ${name}${kindText(b)}`);
    }
    const dir = CONTEXT_DIRS.find((d) => name === d || name.startsWith(`${d}/`));
    if (files.length > count && dir !== undefined) touched.add(dir);
  }
  const unchecked = [...new Set([...before.unchecked, ...after.unchecked])];
  if (diff.length === 0 && files.length === 0 && unchecked.length === 0) {
    return ['self-edit: this session changed nothing in the project’s store'];
  }
  const lines: string[] = [];
  if (diff.length > 0) {
    lines.push(
      'self-edit: byre.config changed (it applies at the next develop):',
      ...diff.map((l) => `  ${l}`),
    );
  }
  if (files.length > 0) {
    lines.push('self-edit: other files in the project’s store:', ...files.map((f) => `  ${f}`));
  }
  for (const dir of CONTEXT_DIRS.filter((d) => touched.has(d))) {
    lines.push(
      `self-edit: ${dir}/ is ${dir === 'context' ? 'the build context' : 'the wiring build context'} byre staged; byre stages a fresh one before every build and never builds from this copy. To build by hand, write a fresh one: byre dockerfile --context <new directory>`,
    );
  }
  if (unchecked.length > 0) lines.push(`self-edit: could not check: ${unchecked.join('; ')}`);
  return lines;
}
