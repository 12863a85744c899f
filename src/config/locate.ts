// Maps a key path (`mounts[1].target`, `env.FOO`) to where it sits in TOML
// text. smol-toml reports syntax-error positions only, so this is a small,
// tolerant scanner: it never judges validity and stops quietly on anything odd.

export type PathSegment = string | number;

/** 1-based line and column. */
interface Position {
  line: number;
  column: number;
}

export type KeyIndex = ReadonlyMap<string, Position>;

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** Render a path the way issues name keys: `mounts[1].target`, `files["./seed"]`. */
export function formatKeyPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (BARE_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Position of a path, falling back to its nearest recorded ancestor. */
export function locateKey(index: KeyIndex, path: readonly PathSegment[]): Position | undefined {
  for (let n = path.length; n > 0; n--) {
    const found = index.get(formatKeyPath(path.slice(0, n)));
    if (found) return found;
  }
  return undefined;
}

interface KeySegment {
  name: string;
  offset: number;
}

/** One place the text defines a key, a table or an array-of-tables element. */
interface Definition {
  key: string;
  depth: number;
  offset: number;
  position: Position;
  /** Defined by a `[table]` or `[[array]]` header. */
  header: boolean;
}

class Scanner {
  private i = 0;
  private readonly lineStarts: number[] = [0];
  readonly positions = new Map<string, Position>();
  /** Every definition in text order, repeats included (positions keeps only the first). */
  readonly definitions: Definition[] = [];
  /** Array-of-tables element counts, keyed by the formatted array path. */
  private readonly aotCounts = new Map<string, number>();

  constructor(private readonly text: string) {
    for (let k = 0; k < text.length; k++) if (text[k] === '\n') this.lineStarts.push(k + 1);
  }

  private positionOf(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.lineStarts[lo] ?? 0) + 1 };
  }

  private record(path: readonly PathSegment[], offset: number, header = false): void {
    const key = formatKeyPath(path);
    const position = this.positionOf(offset);
    if (!this.positions.has(key)) this.positions.set(key, position);
    this.definitions.push({ key, depth: path.length, offset, position, header });
  }

  private peek(ahead = 0): string {
    return this.text[this.i + ahead] ?? '';
  }

  private skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
  }

  private skipComment(): void {
    if (this.peek() !== '#') return;
    while (this.i < this.text.length && this.peek() !== '\n') this.i++;
  }

  /** Whitespace, newlines and comments, as allowed inside arrays. */
  private skipBlank(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') this.i++;
      else if (c === '#') this.skipComment();
      else return;
    }
  }

  private skipToLineEnd(): void {
    while (this.i < this.text.length && this.peek() !== '\n') this.i++;
  }

  scan(): void {
    let table: PathSegment[] = [];
    while (this.i < this.text.length) {
      this.skipBlank();
      if (this.i >= this.text.length) return;
      const start = this.i;
      if (this.peek() === '[') {
        table = this.header();
      } else {
        this.keyValue(table);
      }
      this.skipSpaces();
      this.skipComment();
      if (this.i === start) this.i++;
      if (this.peek() !== '\n' && this.i < this.text.length) this.skipToLineEnd();
    }
  }

  private header(): PathSegment[] {
    const start = this.i;
    const isArray = this.peek(1) === '[';
    this.i += isArray ? 2 : 1;
    this.skipSpaces();
    const segments = this.key();
    const resolved: PathSegment[] = [];
    segments.forEach((segment, n) => {
      resolved.push(segment.name);
      const isLast = n === segments.length - 1;
      const count = this.aotCounts.get(formatKeyPath(resolved));
      if (isLast && isArray) {
        this.record(resolved, start, true);
        const index = count ?? 0;
        this.aotCounts.set(formatKeyPath(resolved), index + 1);
        resolved.push(index);
      } else if (count !== undefined) {
        resolved.push(count - 1);
      } else {
        this.record(resolved, start, true);
      }
    });
    this.record(resolved, start, true);
    this.skipToLineEnd();
    return resolved;
  }

  private keyValue(table: readonly PathSegment[]): void {
    const segments = this.key();
    if (segments.length === 0) return;
    const path: PathSegment[] = [...table];
    for (const segment of segments) {
      path.push(segment.name);
      this.record(path, segment.offset);
    }
    this.skipSpaces();
    if (this.peek() !== '=') return;
    this.i++;
    this.skipSpaces();
    this.value(path);
  }

  private key(): KeySegment[] {
    const segments: KeySegment[] = [];
    for (;;) {
      this.skipSpaces();
      const offset = this.i;
      const c = this.peek();
      let name: string | null;
      if (c === '"') name = this.basicString();
      else if (c === "'") name = this.literalString();
      else name = this.bareKey();
      if (name === null) return segments;
      segments.push({ name, offset });
      this.skipSpaces();
      if (this.peek() !== '.') return segments;
      this.i++;
    }
  }

  private bareKey(): string | null {
    const start = this.i;
    while (/[A-Za-z0-9_-]/.test(this.peek())) this.i++;
    return this.i > start ? this.text.slice(start, this.i) : null;
  }

  private basicString(): string | null {
    if (this.text.startsWith('"""', this.i)) return this.multiline('"""');
    this.i++;
    let raw = '';
    while (this.i < this.text.length && this.peek() !== '"' && this.peek() !== '\n') {
      if (this.peek() === '\\') {
        raw += this.text.slice(this.i, this.i + 2);
        this.i += 2;
      } else {
        raw += this.peek();
        this.i++;
      }
    }
    if (this.peek() !== '"') return null;
    this.i++;
    return unescapeBasic(raw);
  }

  private literalString(): string | null {
    if (this.text.startsWith("'''", this.i)) return this.multiline("'''");
    const end = this.text.indexOf("'", this.i + 1);
    const newline = this.text.indexOf('\n', this.i + 1);
    if (end < 0 || (newline >= 0 && newline < end)) return null;
    const name = this.text.slice(this.i + 1, end);
    this.i = end + 1;
    return name;
  }

  private multiline(quote: string): string | null {
    const from = this.i + 3;
    let k = from;
    for (;;) {
      const end = this.text.indexOf(quote, k);
      if (end < 0) {
        this.i = this.text.length;
        return null;
      }
      if (quote === '"""' && isEscaped(this.text, end)) {
        k = end + 1;
        continue;
      }
      // Up to two extra quotes may close the string (`""""` ends with a quote inside).
      let close = end + 3;
      while (this.text[close] === quote[0] && close - end < 5) close++;
      this.i = close;
      return this.text.slice(from, close - 3);
    }
  }

  private value(path: PathSegment[]): void {
    const c = this.peek();
    if (c === '"') this.basicString();
    else if (c === "'") this.literalString();
    else if (c === '[') this.array(path);
    else if (c === '{') this.inlineTable(path);
    else while (this.i < this.text.length && !/[,\]}\n#]/.test(this.peek())) this.i++;
  }

  private array(path: PathSegment[]): void {
    this.i++;
    for (let index = 0; ; index++) {
      this.skipBlank();
      if (this.i >= this.text.length) return;
      if (this.peek() === ']') {
        this.i++;
        return;
      }
      const start = this.i;
      this.record([...path, index], start);
      this.value([...path, index]);
      this.skipBlank();
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ']') {
        if (this.i === start) this.i++;
        return;
      }
    }
  }

  private inlineTable(path: PathSegment[]): void {
    this.i++;
    for (;;) {
      this.skipBlank();
      if (this.i >= this.text.length) return;
      if (this.peek() === '}') {
        this.i++;
        return;
      }
      const start = this.i;
      this.keyValue(path);
      this.skipBlank();
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== '}') {
        if (this.i === start) this.i++;
        return;
      }
    }
  }
}

function isEscaped(text: string, at: number): boolean {
  let slashes = 0;
  for (let k = at - 1; k >= 0 && text[k] === '\\'; k--) slashes++;
  return slashes % 2 === 1;
}

function unescapeBasic(raw: string): string {
  return raw.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, esc: string) => {
    if (esc.length > 1) return String.fromCodePoint(parseInt(esc.slice(1), 16));
    const simple: Record<string, string> = {
      b: '\b',
      t: '\t',
      n: '\n',
      f: '\f',
      r: '\r',
      e: '\x1b',
    };
    return simple[esc] ?? esc;
  });
}

/** Index every key, table header, array-of-tables element and array element in the text. */
export function indexKeys(text: string): KeyIndex {
  const scanner = new Scanner(text);
  try {
    scanner.scan();
  } catch {
    // A partial index still locates everything before the confusing spot.
  }
  return scanner.positions;
}

/** Every definition in the text, in order; a partial list when the text confuses the scanner. */
function scanDefinitions(text: string): Definition[] {
  const scanner = new Scanner(text);
  try {
    scanner.scan();
  } catch {
    // What was scanned before the confusing spot still counts.
  }
  return scanner.definitions;
}

interface Redefinition {
  key: string;
  /** The second definition is a `[table]` header. */
  table: boolean;
  first: Position;
  again: Position;
}

/**
 * What a "redefine" syntax error at `line`/`column` redefined, and where it
 * was first defined. The parser names neither, only the second position.
 * Candidates are the definitions on that line up to the column, deepest
 * first; the first with an earlier definition of the same key wins.
 */
export function findRedefinition(text: string, line: number, column: number): Redefinition | null {
  const all = scanDefinitions(text);
  const onLine = all.filter((d) => d.position.line === line);
  const upTo = onLine.filter((d) => d.position.column <= column);
  const candidates = (upTo.length > 0 ? upTo : onLine).sort(
    (a, b) => b.depth - a.depth || b.offset - a.offset,
  );
  for (const again of candidates) {
    const first = all.find((d) => d.key === again.key && d.offset < again.offset);
    if (first !== undefined) {
      return { key: again.key, table: again.header, first: first.position, again: again.position };
    }
  }
  return null;
}
