// The layout of a staged delivery: top-level item n lives at `00000n/<name>`
// in the tar the box extracts, so the box learns names only from the archive.
// The 'flat' layout (the archive a remote byre's `--tar -` reads) puts items
// at the top, uniquified among themselves. Names are sanitised (renames
// reported) and uniquified per directory; a path that would land under a file,
// or twice, is refused. Pure.

import { ByreError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import { MAX_UNIQUIFY, candidateName, isUnusableName, sanitizeName } from './names.js';

interface Rename {
  from: string;
  to: string;
}

interface Node {
  kind: 'file' | 'dir';
  /** Original child name → staged child name. */
  children: Map<string, string>;
  /** Staged child names in use. */
  used: Set<string>;
}

const MAX_ITEMS = 999_999;

/** 'staged': the box-side tar layout; 'flat': a plain archive for a remote `deliver --tar -`. */
export type StageLayout = 'staged' | 'flat';

function itemDir(index: number): string {
  return String(index).padStart(6, '0');
}

function clean(original: string): string {
  const name = sanitizeName(original);
  return isUnusableName(name) ? '_' : name;
}

export class StagePlan {
  readonly renames: Rename[] = [];
  private readonly nodes = new Map<string, Node>();
  private items = 0;
  /** Top-level names in use (the flat layout only). */
  private readonly top: Node = { kind: 'dir', children: new Map(), used: new Set() };

  constructor(readonly layout: StageLayout = 'staged') {}

  /** A new top-level item; returns its staged path. */
  addItem(name: string, kind: 'file' | 'dir'): string {
    this.items += 1;
    if (this.items > MAX_ITEMS) {
      throw new ByreError(`more than ${MAX_ITEMS} top-level items in one delivery`, {
        rule: 'transfer.too-many-items',
      });
    }
    let path: string;
    if (this.layout === 'flat') {
      // Two sources with one basename must not merge on the far side.
      path = this.note(name, this.uniqueIn(this.top, clean(name)));
      this.top.used.add(path);
    } else {
      path = `${itemDir(this.items)}/${this.note(name, clean(name))}`;
    }
    this.nodes.set(path, { kind, children: new Map(), used: new Set() });
    return path;
  }

  /**
   * Places `components` (original names) under the item at `itemPath`,
   * creating missing parents as directories; returns the staged path and
   * the parent directories that were implicitly created (for the archive).
   */
  place(
    itemPath: string,
    components: readonly string[],
    kind: 'file' | 'dir',
  ): { path: string; parents: string[] } {
    let path = itemPath;
    const parents: string[] = [];
    for (let i = 0; i < components.length; i++) {
      const node = this.nodes.get(path);
      const original = components[i] ?? '';
      const last = i === components.length - 1;
      if (node === undefined || node.kind !== 'dir') {
        throw new ByreError(`"${escapeTerminal(components.join('/'))}" would land under a file`, {
          rule: 'transfer.path-under-file',
        });
      }
      const existing = node.children.get(original);
      if (existing !== undefined) {
        const child = `${path}/${existing}`;
        const childNode = this.nodes.get(child);
        if (last) {
          if (kind === 'dir' && childNode?.kind === 'dir') return { path: child, parents };
          throw new ByreError(`"${escapeTerminal(components.join('/'))}" appears twice`, {
            rule: 'transfer.duplicate-entry',
          });
        }
        path = child;
        continue;
      }
      const staged = this.note(original, this.uniqueIn(node, clean(original)));
      node.children.set(original, staged);
      node.used.add(staged);
      const child = `${path}/${staged}`;
      const childKind = last ? kind : 'dir';
      this.nodes.set(child, { kind: childKind, children: new Map(), used: new Set() });
      if (!last) parents.push(child);
      path = child;
    }
    return { path, parents };
  }

  private note(from: string, to: string): string {
    if (from !== to) this.renames.push({ from, to });
    return to;
  }

  private uniqueIn(node: Node, name: string): string {
    for (let k = 1; k <= MAX_UNIQUIFY; k++) {
      const c = candidateName(name, k);
      if (!node.used.has(c)) return c;
    }
    throw new ByreError(`no free name for "${escapeTerminal(name)}"`, {
      rule: 'transfer.no-free-name',
    });
  }
}
