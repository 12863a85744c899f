// Resolves a host path one component at a time, as the kernel (and so the
// engine's bind) would, and records every symbolic link it follows and where
// that link lives. Pure: the filesystem is a view the caller passes in
// (project/host-path-view.ts reads the real one), so the walk is table-tested
// over a fake tree. What to make of the links is box-trees.ts's to decide.

import path from 'node:path';

/** What one path names, without following it. */
type PathKind = 'link' | 'dir' | 'other' | 'missing';

export interface PathView {
  kind(abs: string): PathKind;
  /** The link's text, as readlink(2) gives it; null when it is gone. Only asked of a `link`. */
  readlink(abs: string): string | null;
}

/** One link followed on the way. */
export interface LinkStep {
  /** Where the link itself lives: every directory above it already resolved. */
  at: string;
  /** Its text, as written (relative or absolute). */
  target: string;
}

export interface PathWalk {
  /** The path as given (a relative one is taken from `/`), not normalised: `..` is the kernel's. */
  given: string;
  /** Where it resolves: the deepest existing point, the rest appended as written. */
  resolved: string;
  /** Every link followed, in order (links inside link targets included). */
  links: LinkStep[];
  /** The walk stopped: a component is missing, not a directory, or links loop. */
  stopped: 'missing' | 'not-dir' | 'loop' | null;
}

/** The kernel's limit on links followed in one resolution (Linux MAXSYMLINKS). */
const MAX_LINKS = 40;

function components(p: string): string[] {
  return p.split('/').filter((c) => c !== '' && c !== '.');
}

/**
 * Walks `given` from the root. `..` after a link goes up from where the link
 * led, as the kernel does (so nothing is normalised first); a link's own
 * location is the resolved directory it sits in plus its name.
 */
export function walkPath(given: string, view: PathView): PathWalk {
  const abs = given.startsWith('/') ? given : `/${given}`;
  const links: LinkStep[] = [];
  let current = '/';
  const rest = components(abs);
  while (rest.length > 0) {
    const name = rest.shift() as string;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    const kind = view.kind(next);
    if (kind === 'missing') {
      return { given: abs, resolved: path.join(next, ...rest), links, stopped: 'missing' };
    }
    if (kind === 'link') {
      if (links.length >= MAX_LINKS) {
        return { given: abs, resolved: path.join(next, ...rest), links, stopped: 'loop' };
      }
      const target = view.readlink(next);
      if (target === null) {
        return { given: abs, resolved: path.join(next, ...rest), links, stopped: 'missing' };
      }
      links.push({ at: next, target });
      if (target.startsWith('/')) current = '/';
      rest.unshift(...components(target));
      continue;
    }
    if (kind === 'other' && rest.length > 0) {
      return { given: abs, resolved: path.join(next, ...rest), links, stopped: 'not-dir' };
    }
    current = next;
  }
  return { given: abs, resolved: current, links, stopped: null };
}
