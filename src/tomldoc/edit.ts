// The edits byre makes to config files, as text in, text out. Each edit
// touches only the bytes it must: the value it replaces, the lines it adds or
// removes. New lines copy the neighbours' indentation, `=` spacing and quote
// style. An edit that finds nothing to do returns its input unchanged.
// Over 500 lines: every edit shares the same span and style helpers; each edit is a short function.

import type {
  ArrayNode,
  Block,
  InlineTableNode,
  KeyValueStatement,
  TomlDocument,
  TomlPath,
  TomlScalar,
  TomlTable,
  TomlValue,
  ValueNode,
} from './cst.js';
import { decodeValue, documentData, isTable, sameValue, valueIn } from './decode.js';
import { parseDocument, TomlDocError } from './parse.js';
import { renderKey, renderKeySegment, renderValue, type QuotePreference } from './render.js';
import {
  contentEnd,
  ownedLines,
  resolvePath,
  rootInsertPoint,
  subtreeRuns,
  type Target,
} from './resolve.js';
import {
  applySplices,
  insertLines,
  lineEnd,
  lineStart,
  removeLines,
  type Splice,
} from './splice.js';

function fail(rule: string, message: string): never {
  throw new TomlDocError(rule, message);
}

function show(path: TomlPath): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : s)).join('.') || '(root)';
}

function splice(doc: TomlDocument, ...splices: Splice[]): string {
  return applySplices(doc.text, splices);
}

function quoteOf(node: ValueNode | undefined): QuotePreference {
  return node?.kind === 'string' && node.style === 'literal' ? 'literal' : 'basic';
}

function lastStringItem(array: ArrayNode): ValueNode | undefined {
  return [...array.items].reverse().find((i) => i.value.kind === 'string')?.value;
}

/** Indentation and `=` spacing of a neighbouring key line, for new ones. */
function lineStyle(doc: TomlDocument, sibling: KeyValueStatement | undefined) {
  if (!sibling) return { indent: '', equals: ' = ', quote: 'basic' as QuotePreference };
  const indent = doc.text.slice(sibling.start, sibling.key.start);
  const equals = doc.text.slice(sibling.key.end, sibling.value.start);
  return {
    indent: /^[ \t]*$/.test(indent) ? indent : '',
    equals: /^[ \t]*=[ \t]*$/.test(equals) ? equals : ' = ',
    quote: quoteOf(sibling.value),
  };
}

function keyLines(block: Block): KeyValueStatement[] {
  return block.body.filter((s): s is KeyValueStatement => s.kind === 'keyval');
}

// ---------------------------------------------------------------- insertions

function insertKeyLine(
  doc: TomlDocument,
  block: Block,
  segments: readonly string[],
  value: TomlValue,
  after: readonly KeyValueStatement[] = keyLines(block),
): string {
  const anchor = after[after.length - 1];
  const style = lineStyle(doc, anchor);
  const line = `${style.indent}${renderKey(segments)}${style.equals}${renderValue(value, style.quote)}`;
  const at = anchor ? anchor.end : block.header ? block.header.end : rootInsertPoint(doc);
  return splice(doc, insertLines(doc.text, at, [line], doc.eol));
}

/** A new `[table]` or `[[array]]` element with its key lines, after `at` (a line boundary). */
function insertBlock(
  doc: TomlDocument,
  at: number,
  header: string,
  body: TomlTable,
  style: BlockStyle,
): string {
  const lines = Object.entries(body).map(
    ([k, v]) => `${style.indent}${renderKeySegment(k)}${style.equals}${renderValue(v)}`,
  );
  const above = doc.statements.find((s) => s.end === at);
  // A header right below a comment would take the comment as its own.
  const blank = style.blankBefore || (above?.kind === 'trivia' && above.comment);
  const separator = doc.text.slice(0, at).trim() === '' || !blank ? [] : [''];
  const text = [...separator, `${style.headerIndent}${header}`, ...lines];
  return splice(doc, insertLines(doc.text, at, text, doc.eol));
}

interface BlockStyle {
  headerIndent: string;
  indent: string;
  equals: string;
  /** A blank line separates it from what comes before. */
  blankBefore: boolean;
}

function plainBlockStyle(): BlockStyle {
  return { headerIndent: '', indent: '', equals: ' = ', blankBefore: true };
}

function insertInlineEntry(
  doc: TomlDocument,
  table: InlineTableNode,
  key: string,
  value: TomlValue,
): string {
  const last = table.entries[table.entries.length - 1];
  if (!last) {
    const entry = `${renderKeySegment(key)} = ${renderValue(value)}`;
    if (table.hasComment)
      return splice(doc, { start: table.start + 1, end: table.start + 1, text: entry });
    return splice(doc, { start: table.start, end: table.end, text: `{ ${entry} }` });
  }
  const previous = table.entries[table.entries.length - 2];
  const gap = previous ? doc.text.slice(previous.end, last.start) : ', ';
  const separator = /^[ \t]*,[ \t]*$/.test(gap) ? gap : ', ';
  const equals = doc.text.slice(last.key.end, last.value.start);
  const entry = `${renderKeySegment(key)}${/^[ \t]*=[ \t]*$/.test(equals) ? equals : ' = '}${renderValue(value, quoteOf(last.value))}`;
  return splice(doc, { start: last.end, end: last.end, text: separator + entry });
}

/** A table value given for a key that does not exist yet. */
function insertKey(doc: TomlDocument, table: TomlPath, key: string, value: TomlValue): string {
  if (table.length === 0) {
    const root = doc.blocks[0]!;
    if (isTable(value) && Object.keys(value).length > 0) {
      return insertBlock(
        doc,
        contentEnd(doc),
        `[${renderKeySegment(key)}]`,
        value,
        plainBlockStyle(),
      );
    }
    return insertKeyLine(doc, root, [key], value);
  }
  const container = resolvePath(doc, table);
  if (container === null) {
    const last = table[table.length - 1];
    if (typeof last === 'number') fail('tomldoc.no-entry', `${show(table)} does not exist`);
    return insertKey(doc, table.slice(0, -1), last as string, { [key]: value });
  }
  switch (container.kind) {
    case 'table':
      return insertKeyLine(doc, container.block, [key], value);
    case 'dotted':
      return insertKeyLine(
        doc,
        container.block,
        [...container.prefix, key],
        value,
        container.statements,
      );
    case 'implied': {
      const lastBlock = container.blocks[container.blocks.length - 1]!;
      const at = ownedLines(doc, lastBlock, lastBlock).end;
      const strings = table.every((s) => typeof s === 'string');
      if (!strings) fail('tomldoc.unsupported', `cannot add a table under ${show(table)}`);
      return insertBlock(
        doc,
        at,
        `[${renderKey(table as string[])}]`,
        { [key]: value },
        plainBlockStyle(),
      );
    }
    case 'value':
      if (container.node.kind === 'inline-table') {
        return insertInlineEntry(doc, container.node, key, value);
      }
      return fail('tomldoc.not-a-table', `${show(table)} is not a table`);
    default:
      return fail('tomldoc.not-a-table', `${show(table)} is not a table`);
  }
}

// ------------------------------------------------------------------ removals

/** Remove one item of an array, or one entry of an inline table, by index. */
function removeListItem(
  doc: TomlDocument,
  container: ArrayNode | InlineTableNode,
  index: number,
): string {
  const items =
    container.kind === 'array'
      ? container.items.map((i) => ({
          start: i.value.start,
          end: i.value.end,
          commaEnd: i.commaEnd,
        }))
      : container.entries;
  const text = doc.text;
  const item = items[index]!;
  const previous = items[index - 1];
  const next = items[index + 1];
  const from = lineStart(text, item.start);
  const alone = text.slice(from, item.start).trim() === '';
  const rest = /^[ \t]*(?:#[^\r\n]*)?(?:\r?\n|$)/.exec(text.slice(item.commaEnd ?? item.end));
  if (alone && rest) {
    const lineSplice = { start: from, end: lineEnd(text, item.commaEnd ?? item.end), text: '' };
    // The last item without a trailing comma takes the one before it off its neighbour.
    if (!next && item.commaEnd === null && previous?.commaEnd) {
      return splice(doc, lineSplice, {
        start: previous.commaEnd - 1,
        end: previous.commaEnd,
        text: '',
      });
    }
    return splice(doc, lineSplice);
  }
  if (next) return splice(doc, { start: item.start, end: next.start, text: '' });
  if (previous) return splice(doc, { start: previous.end, end: item.end, text: '' });
  if (!container.hasComment)
    return splice(doc, { start: container.start + 1, end: container.end - 1, text: '' });
  return splice(doc, { start: item.start, end: item.commaEnd ?? item.end, text: '' });
}

function removeBlocks(doc: TomlDocument, runs: readonly [Block, Block][]): string {
  return splice(
    doc,
    ...runs.map(([first, last]) => {
      const owned = ownedLines(doc, first, last);
      return removeLines(doc.text, owned.start, owned.end);
    }),
  );
}

/** True when a table block holds nothing but blank lines. */
function emptyBlock(block: Block): boolean {
  return block.body.every((s) => s.kind === 'trivia' && !s.comment);
}

function deleteTarget(doc: TomlDocument, path: TomlPath, target: Target): string {
  switch (target.kind) {
    case 'value': {
      const owner = target.owner;
      if (owner.kind === 'keyval') {
        const { statement, block } = owner;
        const others = block.body.filter((s) => s !== statement);
        const isStdTable = block.header !== null && !block.header.arrayOfTables;
        if (isStdTable && emptyBlock({ ...block, body: others })) {
          const ownRuns = subtreeRuns(doc, block.path);
          if (ownRuns.length === 1 && ownRuns[0]![0] === block && ownRuns[0]![1] === block) {
            return removeBlocks(doc, ownRuns);
          }
        }
        return splice(doc, removeLines(doc.text, statement.start, statement.end));
      }
      if (owner.kind === 'inline') {
        const out = removeListItem(doc, owner.table, owner.table.entries.indexOf(owner.entry));
        return dropIfEmpty(out, owner.path);
      }
      return removeListItem(doc, owner.array, owner.index);
    }
    case 'table':
    case 'implied':
    case 'array-of-tables':
      return removeBlocks(doc, subtreeRuns(doc, path));
    case 'dotted': {
      const lines = target.statements.map((s) => removeLines(doc.text, s.start, s.end));
      return splice(doc, ...lines);
    }
    default:
      return fail('tomldoc.unsupported', `cannot remove ${show(path)} here`);
  }
}

// ------------------------------------------------------------------- the API

/**
 * Set the value at `path` (table keys, and indexes into arrays of tables).
 * An existing value is replaced in place; a missing key is added beside its
 * siblings, creating its table when needed. A table value given for an
 * existing table sets each of its keys and removes the others.
 */
export function setValue(text: string, path: TomlPath, value: TomlValue): string {
  const doc = parseDocument(text);
  const key = path[path.length - 1];
  if (key === undefined) return fail('tomldoc.not-a-value', 'the document root is not a value');
  const target = resolvePath(doc, path);
  if (target === null) {
    if (typeof key === 'number') fail('tomldoc.no-entry', `${show(path)} does not exist`);
    return insertKey(doc, path.slice(0, -1), key as string, value);
  }
  if (target.kind === 'value') {
    if (sameValue(decodeValue(target.node), value)) return text;
    const rendered = renderValue(value, quoteOf(target.node));
    return splice(doc, { start: target.node.start, end: target.node.end, text: rendered });
  }
  if (!isTable(value) || target.kind === 'array-of-tables' || target.kind === 'opaque') {
    return fail('tomldoc.not-a-value', `${show(path)} is a table; set its keys instead`);
  }
  let out = text;
  for (const [k, v] of Object.entries(value)) out = setValue(out, [...path, k], v);
  const current = valueIn(documentData(parseDocument(out)), path);
  for (const k of isTable(current) ? Object.keys(current) : []) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) out = deleteValue(out, [...path, k]);
  }
  return out;
}

/**
 * Remove the key, table, array of tables or array item at `path`. A table
 * header left holding nothing goes too, and so does an inline table left
 * empty (unless a comment sits in it). Nothing there: the input back.
 */
export function deleteValue(text: string, path: TomlPath): string {
  const doc = parseDocument(text);
  const target = resolvePath(doc, path);
  if (target === null) return text;
  return deleteTarget(doc, path, target);
}

function arrayAt(doc: TomlDocument, path: TomlPath): ArrayNode | null {
  const target = resolvePath(doc, path);
  if (target === null) return null;
  if (target.kind === 'value' && target.node.kind === 'array') return target.node;
  return fail('tomldoc.not-an-array', `${show(path)} is not an array`);
}

function appendItem(doc: TomlDocument, array: ArrayNode, value: TomlValue): string {
  const text = doc.text;
  const rendered = renderValue(value, quoteOf(lastStringItem(array)));
  const last = array.items[array.items.length - 1];
  if (!last) {
    if (array.hasComment)
      return splice(doc, { start: array.start + 1, end: array.start + 1, text: rendered });
    return splice(doc, { start: array.start, end: array.end, text: `[${rendered}]` });
  }
  const first = array.items[0]!;
  const multiline = text.slice(array.start + 1, first.value.start).includes('\n');
  const afterLast = /^[ \t]*(?:#[^\r\n]*)?\r?\n/.exec(text.slice(last.commaEnd ?? last.value.end));
  if (multiline && afterLast) {
    const from = lineStart(text, last.value.start);
    const lead = text.slice(from, last.value.start);
    const indent = /^[ \t]*$/.test(lead)
      ? lead
      : text.slice(lineStart(text, first.value.start), first.value.start);
    const at = (last.commaEnd ?? last.value.end) + afterLast[0].length;
    const line = {
      start: at,
      end: at,
      text: `${indent}${rendered}${last.commaEnd ? ',' : ''}${doc.eol}`,
    };
    if (last.commaEnd) return splice(doc, line);
    return splice(doc, line, { start: last.value.end, end: last.value.end, text: ',' });
  }
  const previous = array.items[array.items.length - 2];
  const gap = previous ? text.slice(previous.value.end, last.value.start) : ', ';
  const separator = /^[ \t]*,[ \t]*$/.test(gap) ? gap : ', ';
  return splice(doc, { start: last.value.end, end: last.value.end, text: separator + rendered });
}

/** Add `value` to the plain array at `path` unless it is there; creates the key when missing. */
export function addToArray(text: string, path: TomlPath, value: TomlScalar): string {
  const doc = parseDocument(text);
  const array = arrayAt(doc, path);
  if (array === null) return setValue(text, path, [value]);
  if (array.items.some((i) => sameValue(decodeValue(i.value), value))) return text;
  return appendItem(doc, array, value);
}

/** Drop the key of an array (or inline table) left empty, unless a comment sits on it. */
function dropIfEmpty(text: string, path: TomlPath): string {
  const doc = parseDocument(text);
  const target = resolvePath(doc, path);
  if (target?.kind !== 'value' || target.owner.kind !== 'keyval') return text;
  const node = target.node;
  const empty =
    (node.kind === 'array' && node.items.length === 0) ||
    (node.kind === 'inline-table' && node.entries.length === 0);
  if (!empty || node.hasComment || target.owner.statement.comment) return text;
  return deleteValue(text, path);
}

/** Remove every `value` from the plain array at `path`; an array left empty loses its key. */
export function removeFromArray(text: string, path: TomlPath, value: TomlScalar): string {
  let out = text;
  for (;;) {
    const doc = parseDocument(out);
    const array = arrayAt(doc, path);
    if (array === null) return out;
    const index = array.items.findIndex((i) => sameValue(decodeValue(i.value), value));
    if (index < 0) return out === text ? text : dropIfEmpty(out, path);
    out = removeListItem(doc, array, index);
  }
}

/** The elements of the array of tables at `path` whose `key` equals `value`. */
export function findEntries(
  text: string,
  path: TomlPath,
  key: string,
  value: TomlScalar,
): number[] {
  const list = valueIn(documentData(parseDocument(text)), path);
  if (list === undefined) return [];
  if (!Array.isArray(list)) return fail('tomldoc.not-an-array', `${show(path)} is not an array`);
  return list.flatMap((entry, n) => (isTable(entry) && sameValue(entry[key], value) ? [n] : []));
}

function entryStyle(doc: TomlDocument, element: Block): BlockStyle {
  const header = element.header!;
  const line = lineStyle(doc, keyLines(element)[0]);
  let k = doc.statements.indexOf(header) - 1;
  while (
    k >= 0 &&
    doc.statements[k]?.kind === 'trivia' &&
    (doc.statements[k] as { comment: boolean }).comment
  )
    k--;
  const above = doc.statements[k];
  return {
    headerIndent: doc.text.slice(header.start, doc.text.indexOf('[', header.start)),
    indent: line.indent,
    equals: line.equals,
    blankBefore: above === undefined || (above.kind === 'trivia' && !above.comment),
  };
}

/**
 * Add or update the `[[path]]` entry whose `key` equals `entry[key]`: an
 * existing one has each key set in place and the keys not in `entry` removed;
 * a new one goes after the last entry (or at the end), in their style.
 */
export function upsertEntry(text: string, path: TomlPath, key: string, entry: TomlTable): string {
  const id = entry[key];
  if (id === undefined || isTable(id) || Array.isArray(id)) {
    return fail('tomldoc.no-entry', `the entry needs a scalar ${key}`);
  }
  const [index] = findEntries(text, path, key, id);
  if (index !== undefined) return setValue(text, [...path, index], entry);
  const doc = parseDocument(text);
  const target = resolvePath(doc, path);
  if (target?.kind === 'value' && target.node.kind === 'array') {
    return appendItem(doc, target.node, entry);
  }
  if (!path.every((s) => typeof s === 'string')) {
    return fail('tomldoc.unsupported', `cannot add an array of tables under ${show(path)}`);
  }
  const header = `[[${renderKey(path as string[])}]]`;
  if (target?.kind === 'array-of-tables') {
    const element = target.blocks[target.blocks.length - 1]!;
    const runs = subtreeRuns(doc, element.path);
    const lastRun = runs[runs.length - 1]!;
    const owned = ownedLines(doc, lastRun[0], lastRun[1]);
    const end = Math.min(owned.end, contentEndOf(doc, lastRun));
    return insertBlock(doc, end, header, entry, entryStyle(doc, element));
  }
  if (target !== null)
    return fail('tomldoc.not-an-array', `${show(path)} is not an array of tables`);
  return insertBlock(doc, contentEnd(doc), header, entry, plainBlockStyle());
}

/** The end of a run's own lines, without the blank lines after it. */
function contentEndOf(doc: TomlDocument, [first, last]: [Block, Block]): number {
  const owned = ownedLines(doc, first, last);
  const inside = doc.statements.filter((s) => s.start >= first.start && s.end <= owned.end);
  for (let k = inside.length - 1; k >= 0; k--) {
    const s = inside[k]!;
    if (s.kind !== 'trivia' || s.comment) return s.end;
  }
  return owned.end;
}

/** Remove every `[[path]]` entry whose `key` equals `value` (an inline array left empty loses its key). */
export function removeEntry(text: string, path: TomlPath, key: string, value: TomlScalar): string {
  let out = text;
  for (;;) {
    const [index] = findEntries(out, path, key, value);
    if (index === undefined) return out === text ? text : dropIfEmpty(out, path);
    out = deleteValue(out, [...path, index]);
  }
}

/** Make sure a table exists at `path`, adding an empty `[path]` at the end when it does not. */
export function ensureTable(text: string, path: TomlPath): string {
  const doc = parseDocument(text);
  const target = resolvePath(doc, path);
  if (target === null) {
    if (!path.every((s) => typeof s === 'string') || path.length === 0) {
      return fail('tomldoc.unsupported', `cannot create ${show(path)}`);
    }
    return insertBlock(
      doc,
      contentEnd(doc),
      `[${renderKey(path as string[])}]`,
      {},
      plainBlockStyle(),
    );
  }
  if (target.kind === 'value' && target.node.kind !== 'inline-table') {
    return fail('tomldoc.not-a-table', `${show(path)} is not a table`);
  }
  if (target.kind === 'array-of-tables') {
    return fail('tomldoc.not-a-table', `${show(path)} is an array of tables`);
  }
  return text;
}

/**
 * Append each table as one more `[[path]]` entry, at the end of the
 * document: the array of tables is created when missing, and extended when
 * it exists. A value of another kind at `path` is refused (delete it first).
 */
function appendTables(text: string, path: TomlPath, tables: readonly TomlTable[]): string {
  if (path.length === 0 || !path.every((s) => typeof s === 'string')) {
    return fail('tomldoc.unsupported', `cannot append tables at ${show(path)}`);
  }
  const existing = resolvePath(parseDocument(text), path);
  if (existing !== null && existing.kind !== 'array-of-tables') {
    return fail('tomldoc.not-an-array', `${show(path)} is not an array of tables`);
  }
  const header = `[[${renderKey(path as string[])}]]`;
  return tables.reduce((out, table) => {
    const doc = parseDocument(out);
    return insertBlock(doc, contentEnd(doc), header, table, plainBlockStyle());
  }, text);
}

/** One edit, as data: what the config writer is handed. */
export type TomlEdit =
  | { op: 'set'; path: TomlPath; value: TomlValue }
  | { op: 'delete'; path: TomlPath }
  | { op: 'array-add'; path: TomlPath; value: TomlScalar }
  | { op: 'array-remove'; path: TomlPath; value: TomlScalar }
  | { op: 'entry-upsert'; path: TomlPath; key: string; entry: TomlTable }
  | { op: 'entry-remove'; path: TomlPath; key: string; value: TomlScalar }
  | { op: 'table-ensure'; path: TomlPath }
  | { op: 'tables-append'; path: TomlPath; tables: readonly TomlTable[] };

export function applyEdit(text: string, edit: TomlEdit): string {
  switch (edit.op) {
    case 'set':
      return setValue(text, edit.path, edit.value);
    case 'delete':
      return deleteValue(text, edit.path);
    case 'array-add':
      return addToArray(text, edit.path, edit.value);
    case 'array-remove':
      return removeFromArray(text, edit.path, edit.value);
    case 'entry-upsert':
      return upsertEntry(text, edit.path, edit.key, edit.entry);
    case 'entry-remove':
      return removeEntry(text, edit.path, edit.key, edit.value);
    case 'table-ensure':
      return ensureTable(text, edit.path);
    case 'tables-append':
      return appendTables(text, edit.path, edit.tables);
  }
}

/** Apply edits in order; each sees the previous one's result. */
export function applyEdits(text: string, edits: readonly TomlEdit[]): string {
  return edits.reduce(applyEdit, text);
}
