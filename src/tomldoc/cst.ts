// The lossless shape of a TOML document: a tiling of the text into
// statements (every byte belongs to exactly one), with the value nodes inside
// them located by offset. Pure data; parse.ts builds it, edit.ts splices text
// at its offsets. Nothing here ever reformats a byte it was not asked to touch.

/** A key path into the data: table keys, and indexes into arrays (of tables). */
export type TomlPath = readonly (string | number)[];

/** A local date, time or date-time; kept as written, never reinterpreted. */
export class TomlDateTime {
  constructor(readonly raw: string) {}
}

export type TomlScalar = string | number | bigint | boolean | TomlDateTime;
export type TomlValue = TomlScalar | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

/** Half-open byte range [start, end) in the document text (UTF-16 offsets). */
interface Span {
  start: number;
  end: number;
}

export interface KeyNode extends Span {
  /** Decoded segments of a (possibly dotted) key. */
  segments: string[];
}

export type StringStyle = 'basic' | 'literal' | 'ml-basic' | 'ml-literal';

export interface StringNode extends Span {
  kind: 'string';
  value: string;
  style: StringStyle;
}

export interface OtherScalarNode extends Span {
  kind: 'integer' | 'float' | 'boolean' | 'datetime';
  value: number | bigint | boolean | TomlDateTime;
}

interface ArrayItem {
  value: ValueNode;
  /** Offset just past the comma that follows this item, or null. */
  commaEnd: number | null;
}

export interface ArrayNode extends Span {
  kind: 'array';
  items: ArrayItem[];
  /** A comment sits somewhere between the brackets. */
  hasComment: boolean;
}

export interface InlineEntry extends Span {
  key: KeyNode;
  value: ValueNode;
  commaEnd: number | null;
}

export interface InlineTableNode extends Span {
  kind: 'inline-table';
  entries: InlineEntry[];
  hasComment: boolean;
}

export type ValueNode = StringNode | OtherScalarNode | ArrayNode | InlineTableNode;

/** A blank line, or a line holding only a comment. */
interface TriviaStatement extends Span {
  kind: 'trivia';
  comment: boolean;
}

export interface KeyValueStatement extends Span {
  kind: 'keyval';
  key: KeyNode;
  value: ValueNode;
  /** A comment follows the value on its last line. */
  comment: boolean;
}

export interface HeaderStatement extends Span {
  kind: 'header';
  /** `[[name]]` rather than `[name]`. */
  arrayOfTables: boolean;
  key: KeyNode;
}

/** One line (or, for multi-line values, several), including its line ending. */
export type Statement = TriviaStatement | KeyValueStatement | HeaderStatement;

/** A header (or the document's start) and the statements up to the next header. */
export interface Block {
  /** Null for the root block before the first header. */
  header: HeaderStatement | null;
  /** Resolved path, array-of-tables elements as indexes: `volumes[0].seed` is ['volumes', 0, 'seed']. */
  path: (string | number)[];
  /** The statements after the header line, up to the next header. */
  body: Statement[];
  start: number;
  end: number;
}

export interface TomlDocument {
  text: string;
  /** The line ending new lines use: the document's first one, else "\n". */
  eol: '\n' | '\r\n';
  statements: Statement[];
  blocks: Block[];
}
