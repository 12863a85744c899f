// `[sources]` hints: where a package the config names can be installed from.
// byre never fetches on its own; a missing package's error prints the
// install command the hint spells, with the layer that gave it; a retired
// bundled name's tombstone spells its own pinned install. Pure.

import { shellQuote } from '../output/shell-quote.js';
import type { RetiredBundled } from './grammar.js';
import { layerLabel, type SourceHint, type Sourced } from './types.js';

type PackageKindName = 'skill' | 'template';

/** `byre <kind> install <uri> [--digest …]`, shell-quoted, plus who hinted it. */
export function installHint(kind: PackageKindName, hint: Sourced<SourceHint>): string {
  const argv = ['byre', kind, 'install', hint.value.uri];
  if (hint.value.digest !== undefined) argv.push('--digest', hint.value.digest);
  return `${shellQuote(argv)}  (hint from ${layerLabel(hint.from)})`;
}

/** The pinned install a retired bundled name's tombstone carries, shell-quoted. */
export function tombstoneInstall(tomb: RetiredBundled): string {
  return shellQuote(['byre', 'skill', 'install', tomb.uri, '--digest', tomb.digest]);
}

/** The hint for the first of `ids` that has one (a reference can be known by more than one id). */
export function findHint(
  sources: Readonly<Record<string, Sourced<SourceHint>>>,
  ids: readonly string[],
): Sourced<SourceHint> | null {
  for (const id of ids) {
    const hint = sources[id];
    if (hint !== undefined && hint.value.uri !== '') return hint;
  }
  return null;
}
