// Text to lossless CST: every byte of the input lands in exactly one
// statement, so printing the statements back gives the input unchanged. It
// accepts TOML 1.0 plus the 1.1 relaxations smol-toml reads (newlines and a
// trailing comma in inline tables, \e and \x escapes); it does not check the
// semantic rules (duplicate keys, redefined tables): the config writer
// re-parses every result with byre's own loader before anything is written.

import {
  TomlDateTime,
  type ArrayNode,
  type Block,
  type HeaderStatement,
  type InlineTableNode,
  type KeyNode,
  type OtherScalarNode,
  type Statement,
  type StringNode,
  type StringStyle,
  type TomlDocument,
  type ValueNode,
} from './cst.js';

/** A document the engine cannot read or an edit it cannot make; `rule` names which. */
export class TomlDocError extends Error {
  readonly rule: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(rule: string, message: string, position?: { line: number; column: number }) {
    super(message);
    this.name = 'TomlDocError';
    this.rule = rule;
    this.line = position?.line;
    this.column = position?.column;
  }
}

const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;
const SCALAR_CHAR = /[A-Za-z0-9_+\-.:]/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

/** 1-based line and column of an offset. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Parser {
  i = 0;
  constructor(private readonly text: string) {}

  fail(message: string, at = this.i): never {
    throw new TomlDocError('tomldoc.syntax', message, positionAt(this.text, at));
  }

  peek(ahead = 0): string {
    return this.text[this.i + ahead] ?? '';
  }

  atEol(): boolean {
    return this.peek() === '\n' || (this.peek() === '\r' && this.peek(1) === '\n');
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }

  /** Skip a comment if one starts here; true when there was one. */
  skipComment(): boolean {
    if (this.peek() !== '#') return false;
    while (this.i < this.text.length && this.peek() !== '\n') this.i++;
    if (this.text[this.i - 1] === '\r') this.i--;
    return true;
  }

  /** Spaces, line endings and comments, as allowed between array items. */
  skipBlank(): boolean {
    let comment = false;
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\n') this.i++;
      else if (c === '\r' && this.peek(1) === '\n') this.i += 2;
      else if (c === '#') comment = this.skipComment() || comment;
      else return comment;
    }
  }

  /** The rest of a line: spaces, an optional comment, then a line ending or the end. */
  endLine(): boolean {
    this.skipSpaces();
    const comment = this.skipComment();
    if (this.i >= this.text.length) return comment;
    if (this.peek() === '\n') this.i++;
    else if (this.peek() === '\r' && this.peek(1) === '\n') this.i += 2;
    else this.fail(`expected the end of the line, found ${JSON.stringify(this.peek())}`);
    return comment;
  }

  statements(): Statement[] {
    const out: Statement[] = [];
    while (this.i < this.text.length) {
      const start = this.i;
      this.skipSpaces();
      const c = this.peek();
      if (c === '' || c === '#' || this.atEol()) {
        const comment = this.endLine();
        out.push({ kind: 'trivia', start, end: this.i, comment });
      } else if (c === '[') {
        out.push(this.header(start));
      } else {
        const key = this.key();
        this.skipSpaces();
        if (this.peek() !== '=') this.fail('expected "=" after a key');
        this.i++;
        this.skipSpaces();
        const value = this.value();
        const comment = this.endLine();
        out.push({ kind: 'keyval', start, end: this.i, key, value, comment });
      }
    }
    return out;
  }

  header(start: number): HeaderStatement {
    const arrayOfTables = this.peek(1) === '[';
    this.i += arrayOfTables ? 2 : 1;
    this.skipSpaces();
    const key = this.key();
    this.skipSpaces();
    const close = arrayOfTables ? ']]' : ']';
    if (!this.text.startsWith(close, this.i)) this.fail(`expected "${close}" to close the header`);
    this.i += close.length;
    this.endLine();
    return { kind: 'header', start, end: this.i, arrayOfTables, key };
  }

  key(): KeyNode {
    const start = this.i;
    const segments: string[] = [];
    let end = this.i;
    for (;;) {
      this.skipSpaces();
      const c = this.peek();
      if (c === '"') {
        if (this.text.startsWith('"""', this.i)) this.fail('a key cannot be a multi-line string');
        segments.push(this.basicString().value);
      } else if (c === "'") {
        if (this.text.startsWith("'''", this.i)) this.fail('a key cannot be a multi-line string');
        segments.push(this.literalString().value);
      } else {
        const from = this.i;
        while (BARE_KEY_CHAR.test(this.peek())) this.i++;
        if (this.i === from) this.fail('expected a key');
        segments.push(this.text.slice(from, this.i));
      }
      end = this.i;
      this.skipSpaces();
      if (this.peek() !== '.') break;
      this.i++;
    }
    this.i = end;
    return { start, end, segments };
  }

  value(): ValueNode {
    const c = this.peek();
    if (c === '"') {
      return this.text.startsWith('"""', this.i) ? this.multiline('"') : this.basicString();
    }
    if (c === "'") {
      return this.text.startsWith("'''", this.i) ? this.multiline("'") : this.literalString();
    }
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    return this.scalar();
  }

  escape(): string {
    const c = this.peek(1);
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      this.i += 2;
      return simple;
    }
    const width = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    const hex = this.text.slice(this.i + 2, this.i + 2 + width);
    if (width === 0 || !new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) {
      this.fail(`invalid escape "\\${c}"`);
    }
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      this.fail(`escape "\\${c}${hex}" is not a Unicode scalar value`);
    }
    this.i += 2 + width;
    return String.fromCodePoint(code);
  }

  basicString(): StringNode {
    const start = this.i;
    this.i++;
    let value = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n' || c === '\r') this.fail('unterminated string', start);
      if (c === '"') break;
      if (c === '\\') value += this.escape();
      else {
        value += c;
        this.i++;
      }
    }
    this.i++;
    return { kind: 'string', start, end: this.i, value, style: 'basic' };
  }

  literalString(): StringNode {
    const start = this.i;
    const close = this.text.indexOf("'", this.i + 1);
    const newline = this.text.slice(this.i + 1, close < 0 ? undefined : close).search(/[\r\n]/);
    if (close < 0 || newline >= 0) this.fail('unterminated string', start);
    const value = this.text.slice(this.i + 1, close);
    this.i = close + 1;
    return { kind: 'string', start, end: this.i, value, style: 'literal' };
  }

  /** `"""…"""` or `'''…'''`: a newline right after the opening is trimmed. */
  multiline(quote: '"' | "'"): StringNode {
    const start = this.i;
    const fence = quote.repeat(3);
    this.i += 3;
    if (this.peek() === '\n') this.i++;
    else if (this.peek() === '\r' && this.peek(1) === '\n') this.i += 2;
    let value = '';
    for (;;) {
      const c = this.peek();
      if (c === '') this.fail('unterminated multi-line string', start);
      if (this.text.startsWith(fence, this.i)) {
        // Up to two more quotes belong to the content: `""""` ends with one inside.
        let run = 3;
        while (this.peek(run) === quote && run < 5) run++;
        value += quote.repeat(run - 3);
        this.i += run;
        break;
      }
      if (quote === '"' && c === '\\') {
        let j = this.i + 1;
        while (this.text[j] === ' ' || this.text[j] === '\t') j++;
        if (this.text[j] === '\n' || (this.text[j] === '\r' && this.text[j + 1] === '\n')) {
          // A line-ending backslash trims every space and line break that follows.
          this.i++;
          while (/[ \t\r\n]/.test(this.peek())) this.i++;
        } else value += this.escape();
        continue;
      }
      value += c;
      this.i++;
    }
    const style: StringStyle = quote === '"' ? 'ml-basic' : 'ml-literal';
    return { kind: 'string', start, end: this.i, value, style };
  }

  /**
   * The items between an opening bracket and `close`, each followed by a
   * comma or the close; blank lines and comments may sit anywhere between.
   */
  delimited<T>(
    close: ']' | '}',
    what: string,
    item: () => T,
  ): { start: number; items: (T & { commaEnd: number | null })[]; hasComment: boolean } {
    const start = this.i;
    this.i++;
    const items: (T & { commaEnd: number | null })[] = [];
    let hasComment = false;
    for (;;) {
      hasComment = this.skipBlank() || hasComment;
      if (this.peek() === close) break;
      if (this.peek() === '') this.fail(`unterminated ${what}`, start);
      const parsed = item();
      hasComment = this.skipBlank() || hasComment;
      if (this.peek() === ',') {
        this.i++;
        items.push({ ...parsed, commaEnd: this.i });
        continue;
      }
      items.push({ ...parsed, commaEnd: null });
      if (this.peek() !== close) this.fail(`expected "," or "${close}" in ${what}`);
      break;
    }
    this.i++;
    return { start, items, hasComment };
  }

  array(): ArrayNode {
    const { start, items, hasComment } = this.delimited(']', 'an array', () => ({
      value: this.value(),
    }));
    return { kind: 'array', start, end: this.i, items, hasComment };
  }

  inlineTable(): InlineTableNode {
    const { start, items, hasComment } = this.delimited('}', 'an inline table', () => {
      const key = this.key();
      this.skipSpaces();
      if (this.peek() !== '=') this.fail('expected "=" after a key');
      this.i++;
      this.skipSpaces();
      const value = this.value();
      return { start: key.start, end: value.end, key, value };
    });
    return { kind: 'inline-table', start, end: this.i, entries: items, hasComment };
  }

  scalar(): ValueNode {
    const start = this.i;
    while (SCALAR_CHAR.test(this.peek())) this.i++;
    // A date and a time may be separated by one space.
    if (
      /^\d{4}-\d{2}-\d{2}$/.test(this.text.slice(start, this.i)) &&
      this.peek() === ' ' &&
      /^\d{2}:/.test(this.text.slice(this.i + 1, this.i + 4))
    ) {
      this.i++;
      while (SCALAR_CHAR.test(this.peek())) this.i++;
    }
    const raw = this.text.slice(start, this.i);
    if (raw === '') this.fail('expected a value');
    const end = this.i;
    const decoded = decodeScalar(raw);
    if (decoded === null) this.fail(`invalid value ${JSON.stringify(raw)}`, start);
    return { ...decoded, start, end };
  }
}

const DEC_INT = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const PREFIXED_INT = /^0(?:x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|o[0-7](?:_?[0-7])*|b[01](?:_?[01])*)$/;
const FLOAT =
  /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|[eE][+-]?\d(?:_?\d)*)$/;
const SPECIAL_FLOAT = /^[+-]?(?:inf|nan)$/;
const DATETIME =
  /^(?:\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

function decodeInteger(raw: string): number | bigint {
  const digits = raw.replace(/_/g, '');
  const n = Number(digits);
  if (Number.isSafeInteger(n)) return n;
  return digits.startsWith('+') ? BigInt(digits.slice(1)) : BigInt(digits);
}

function decodeScalar(raw: string): Pick<OtherScalarNode, 'kind' | 'value'> | null {
  if (raw === 'true' || raw === 'false') return { kind: 'boolean', value: raw === 'true' };
  if (DEC_INT.test(raw) || PREFIXED_INT.test(raw)) {
    return { kind: 'integer', value: decodeInteger(raw) };
  }
  if (SPECIAL_FLOAT.test(raw)) {
    const sign = raw.startsWith('-') ? -1 : 1;
    return { kind: 'float', value: raw.endsWith('nan') ? NaN : sign * Infinity };
  }
  if (FLOAT.test(raw)) return { kind: 'float', value: Number(raw.replace(/_/g, '')) };
  if (DATETIME.test(raw)) return { kind: 'datetime', value: new TomlDateTime(raw) };
  return null;
}

function pathKey(path: readonly (string | number)[]): string {
  return JSON.stringify(path);
}

/** Group statements under their headers and resolve each header's path. */
function buildBlocks(statements: readonly Statement[], textLength: number): Block[] {
  const blocks: Block[] = [{ header: null, path: [], body: [], start: 0, end: textLength }];
  const aotCounts = new Map<string, number>();
  for (const statement of statements) {
    if (statement.kind !== 'header') {
      blocks[blocks.length - 1]?.body.push(statement);
      continue;
    }
    const path: (string | number)[] = [];
    const segments = statement.key.segments;
    segments.forEach((segment, n) => {
      path.push(segment);
      const count = aotCounts.get(pathKey(path));
      if (n === segments.length - 1 && statement.arrayOfTables) {
        aotCounts.set(pathKey(path), (count ?? 0) + 1);
        path.push(count ?? 0);
      } else if (count !== undefined) {
        path.push(count - 1);
      }
    });
    const previous = blocks[blocks.length - 1];
    if (previous) previous.end = statement.start;
    blocks.push({ header: statement, path, body: [], start: statement.start, end: textLength });
  }
  return blocks;
}

/** Parse TOML text into its lossless CST. Throws TomlDocError on a syntax error. */
export function parseDocument(text: string): TomlDocument {
  const statements = new Parser(text).statements();
  const eol = /\r?\n/.exec(text)?.[0] === '\r\n' ? '\r\n' : '\n';
  return { text, eol, statements, blocks: buildBlocks(statements, text.length) };
}

/** The text the statements tile, in order: equal to the parsed input. */
export function printDocument(doc: TomlDocument): string {
  return doc.statements.map((s) => doc.text.slice(s.start, s.end)).join('');
}
