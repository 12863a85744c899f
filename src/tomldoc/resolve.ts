// Where a key path lives in a CST: a value (on a key line, in an inline
// table, or an array item), a table made by a header, a table made by dotted
// keys, or an array of tables; and which lines a table or entry owns.

import type {
  ArrayNode,
  Block,
  InlineEntry,
  InlineTableNode,
  KeyValueStatement,
  Statement,
  TomlDocument,
  TomlPath,
  ValueNode,
} from './cst.js';

type ValueOwner =
  | { kind: 'keyval'; statement: KeyValueStatement; block: Block }
  | { kind: 'inline'; entry: InlineEntry; table: InlineTableNode; path: TomlPath }
  | { kind: 'item'; array: ArrayNode; index: number; path: TomlPath };

export type Target =
  | { kind: 'value'; node: ValueNode; owner: ValueOwner }
  /** A `[table]` or one `[[array]]` element. */
  | { kind: 'table'; block: Block }
  /** A table made by dotted keys (`a.b = 1` makes `a`) inside one block. */
  | { kind: 'dotted'; block: Block; prefix: string[]; statements: KeyValueStatement[] }
  /** A table that exists only as the parent of deeper headers (`[a.b]` makes `a`). */
  | { kind: 'implied'; blocks: Block[] }
  | { kind: 'array-of-tables'; blocks: Block[] }
  /** Inside a dotted key of an inline table: readable, not editable here. */
  | { kind: 'opaque' };

function startsWith(path: TomlPath, prefix: TomlPath): boolean {
  return prefix.length <= path.length && prefix.every((s, n) => path[n] === s);
}

function samePath(a: TomlPath, b: TomlPath): boolean {
  return a.length === b.length && startsWith(a, b);
}

function descend(node: ValueNode, rest: TomlPath, owner: ValueOwner, at: TomlPath): Target | null {
  if (rest.length === 0) return { kind: 'value', node, owner };
  const [head] = rest;
  if (node.kind === 'array' && typeof head === 'number') {
    const item = node.items[head];
    if (!item) return null;
    const path = [...at, head];
    return descend(
      item.value,
      rest.slice(1),
      { kind: 'item', array: node, index: head, path },
      path,
    );
  }
  if (node.kind === 'inline-table' && typeof head === 'string') {
    for (const entry of node.entries) {
      const segments = entry.key.segments;
      if (startsWith(rest, segments)) {
        const path = [...at, ...segments];
        const inner = { kind: 'inline', entry, table: node, path: at } as const;
        return descend(entry.value, rest.slice(segments.length), inner, path);
      }
      if (startsWith(segments, rest)) return { kind: 'opaque' };
    }
  }
  return null;
}

/** What the document holds at `path`, or null when nothing does. */
export function resolvePath(doc: TomlDocument, path: TomlPath): Target | null {
  const dotted: KeyValueStatement[] = [];
  let dottedBlock: Block | null = null;
  for (const block of doc.blocks) {
    if (!startsWith(path, block.path)) continue;
    for (const statement of block.body) {
      if (statement.kind !== 'keyval') continue;
      const full = [...block.path, ...statement.key.segments];
      if (startsWith(path, full)) {
        const owner = { kind: 'keyval', statement, block } as const;
        return descend(statement.value, path.slice(full.length), owner, full);
      }
      const inBlock = path.length > block.path.length;
      if (inBlock && startsWith(full, path) && (dottedBlock === null || dottedBlock === block)) {
        dottedBlock = block;
        dotted.push(statement);
      }
    }
  }
  const table = doc.blocks.find((b) => b.header !== null && samePath(b.path, path));
  if (table) return { kind: 'table', block: table };
  const elements = doc.blocks.filter(
    (b) => b.header?.arrayOfTables === true && samePath(b.path.slice(0, -1), path),
  );
  if (elements.length > 0) return { kind: 'array-of-tables', blocks: elements };
  if (dottedBlock !== null) {
    const prefix = path.slice(dottedBlock.path.length) as string[];
    return { kind: 'dotted', block: dottedBlock, prefix, statements: dotted };
  }
  const deeper = doc.blocks.filter((b) => b.header !== null && startsWith(b.path, path));
  if (deeper.length > 0 && path.length > 0) return { kind: 'implied', blocks: deeper };
  return null;
}

function isBlank(s: Statement): boolean {
  return s.kind === 'trivia' && !s.comment;
}

function isComment(s: Statement): boolean {
  return s.kind === 'trivia' && s.comment;
}

/**
 * The lines a run of consecutive blocks owns, from its header (plus the
 * comment lines directly above it, unless they open the file) to its last
 * key line (plus a comment run directly below it that a blank line or the
 * end closes), and the blank lines that separate it from what comes before
 * (or, at the top of the file, after).
 */
export function ownedLines(
  doc: TomlDocument,
  first: Block,
  last: Block,
): { start: number; end: number } {
  const all = doc.statements;
  const from = all.findIndex((s) => s.start === first.start);
  const lastIndex = all.findIndex((s) => s.start === last.start) + last.body.length;
  let to = lastIndex;
  while (to > from && all[to]?.kind === 'trivia') to--;
  let k = to + 1;
  while (k <= lastIndex && isComment(all[k]!)) k++;
  // A comment run right below the content is its own when a blank line or the
  // end of the file closes it; one that runs into the next header is that header's.
  if (k > to + 1 && (k <= lastIndex || k === all.length)) to = k - 1;
  let start = from;
  while (start > 0 && isComment(all[start - 1]!)) start--;
  if (start === 0) start = from;
  let before = start;
  while (before > 0 && isBlank(all[before - 1]!)) before--;
  let after = to;
  if (before === 0) {
    before = start;
    while (after + 1 < all.length && isBlank(all[after + 1]!)) after++;
    if (after === all.length - 1) after = to;
  }
  return { start: all[before]!.start, end: all[after]!.end };
}

/** Consecutive runs of the blocks under `path` (the table itself and its sub-tables). */
export function subtreeRuns(doc: TomlDocument, path: TomlPath): [Block, Block][] {
  const runs: [Block, Block][] = [];
  let open: [Block, Block] | null = null;
  for (const block of doc.blocks) {
    const inside = block.header !== null && startsWith(block.path, path);
    if (inside && open) open[1] = block;
    else if (inside) {
      open = [block, block];
      runs.push(open);
    } else open = null;
  }
  return runs;
}

/** The end of the last line with content (a key, header or comment), or 0. */
export function contentEnd(doc: TomlDocument): number {
  for (let k = doc.statements.length - 1; k >= 0; k--) {
    const s = doc.statements[k]!;
    if (!isBlank(s)) return s.end;
  }
  return 0;
}

/** Where a new key line goes in the root block that has no key lines yet. */
export function rootInsertPoint(doc: TomlDocument): number {
  const root = doc.blocks[0]!;
  const body = [...root.body];
  if (doc.blocks.length > 1) {
    let k = body.length;
    while (k > 0 && isComment(body[k - 1]!)) k--;
    // Comments directly above the first header are its own, unless they open the file.
    if (k > 0) body.length = k;
  }
  while (body.length > 0 && isBlank(body[body.length - 1]!)) body.pop();
  return body.length > 0 ? body[body.length - 1]!.end : 0;
}
