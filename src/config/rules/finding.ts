// What a value rule returns, and the small builders every rule family
// shares. Pure.

import type { PathSegment } from '../locate.js';
import type { RawLayer } from '../schema.js';

export interface Finding {
  rule: string;
  path: PathSegment[];
  message: string;
  fix?: string;
}

export type LayerRule = (layer: RawLayer) => Finding[];
export function finding(rule: string, path: PathSegment[], message: string, fix?: string): Finding {
  return fix === undefined ? { rule, path, message } : { rule, path, message, fix };
}

export const q = (value: string): string => JSON.stringify(value);

export function missing(path: PathSegment[], key: string, what: string): Finding {
  return finding('config.missing-key', [...path, key], `${what} needs ${key}`, `add ${key} = …`);
}

export function removalExtras(
  path: PathSegment[],
  entry: Record<string, unknown>,
  identity: string,
  what: string,
  alsoAllowed: readonly string[] = [],
): Finding[] {
  return Object.keys(entry)
    .filter((key) => key !== identity && !alsoAllowed.includes(key) && entry[key] !== undefined)
    .map((key) =>
      finding(
        'config.removal-extra-keys',
        [...path, key],
        `a ${what} removal marker may set only ${identity}; ${key} has no meaning here`,
        `delete ${key}: a removal marker only names what it removes`,
      ),
    );
}

export function enumFinding(
  rule: string,
  path: PathSegment[],
  what: string,
  value: string,
  allowed: readonly string[],
): Finding[] {
  if (allowed.includes(value)) return [];
  return [
    finding(
      rule,
      path,
      `${what} ${q(value)} invalid (want ${allowed.join('|')})`,
      `set one of: ${allowed.join(', ')}`,
    ),
  ];
}

export function duplicateNames(
  entries: readonly { name?: string | undefined }[],
  list: string,
  what: string,
  rule: string,
): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  entries.forEach((entry, i) => {
    const name = entry.name;
    if (name === undefined) return;
    if (seen.has(name)) {
      out.push(
        finding(
          rule,
          [list, i, 'name'],
          `${what} ${q(name)} is declared twice in this file`,
          'keep one declaration',
        ),
      );
    }
    seen.add(name);
  });
  return out;
}
