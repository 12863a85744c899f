// A reader for git's config syntax, written for hostile input: the box writes
// `.git/config`, and byre must see what git on the host would run later
// without running git (adr/0035). It yields every key and value with its
// line, or the first line it cannot read; it follows no include (the include
// keys are reported themselves). Pure.

export interface GitConfigEntry {
  /** `section[.subsection].name`; section and name lowercased, the subsection as written. */
  key: string;
  /** null for a bare `name` (git reads it as true). */
  value: string | null;
  line: number;
}

type GitConfigParse =
  { ok: true; entries: GitConfigEntry[] } | { ok: false; line: number; message: string };

const NAME = /^[A-Za-z][A-Za-z0-9-]*/;
const SECTION = /^[A-Za-z0-9.-]+$/;

class ParseFailure extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

interface Cursor {
  text: string;
  pos: number;
  line: number;
}

function skipSpace(c: Cursor): void {
  while (c.pos < c.text.length && (c.text[c.pos] === ' ' || c.text[c.pos] === '\t')) c.pos++;
}

function atLineEnd(c: Cursor): boolean {
  const ch = c.text[c.pos];
  return ch === undefined || ch === '\n' || ch === '#' || ch === ';';
}

function skipToLineEnd(c: Cursor): void {
  while (c.pos < c.text.length && c.text[c.pos] !== '\n') c.pos++;
}

/** `[section]`, `[section "sub"]` or the old `[section.sub]`; the cursor is past `[`. */
function readHeader(c: Cursor): string {
  let name = '';
  while (c.pos < c.text.length && /[A-Za-z0-9.-]/.test(c.text[c.pos] ?? ''))
    name += c.text[c.pos++];
  if (!SECTION.test(name)) throw new ParseFailure(c.line, 'a section header without a name');
  const ch = c.text[c.pos];
  if (ch === ']') {
    c.pos++;
    // The old `[section.sub]` spelling lowercases its subsection too.
    return name.toLowerCase();
  }
  if (ch !== ' ' && ch !== '\t') throw new ParseFailure(c.line, 'a malformed section header');
  skipSpace(c);
  if (c.text[c.pos] !== '"') throw new ParseFailure(c.line, 'a subsection not in quotes');
  c.pos++;
  let sub = '';
  for (;;) {
    const s = c.text[c.pos++];
    if (s === undefined || s === '\n') throw new ParseFailure(c.line, 'an unterminated subsection');
    if (s === '"') break;
    if (s === '\\') {
      const e = c.text[c.pos++];
      if (e === undefined || e === '\n')
        throw new ParseFailure(c.line, 'a subsection escape at a line end');
      sub += e;
      continue;
    }
    sub += s;
  }
  if (c.text[c.pos] !== ']') throw new ParseFailure(c.line, 'a malformed section header');
  c.pos++;
  return `${name.toLowerCase()}.${sub}`;
}

/** A value after `=`: quotes, escapes and line continuations as git reads them. */
function readValue(c: Cursor): string {
  let out = '';
  let pendingSpace = '';
  let quoted = false;
  for (;;) {
    const ch = c.text[c.pos];
    if (ch === undefined || ch === '\n') {
      if (quoted) throw new ParseFailure(c.line, 'an unterminated quote');
      return out;
    }
    if (!quoted && (ch === '#' || ch === ';')) {
      skipToLineEnd(c);
      return out;
    }
    c.pos++;
    if (!quoted && (ch === ' ' || ch === '\t')) {
      if (out !== '') pendingSpace += ch;
      continue;
    }
    out += pendingSpace;
    pendingSpace = '';
    if (ch === '"') {
      quoted = !quoted;
      continue;
    }
    if (ch === '\\') {
      const e = c.text[c.pos++];
      if (e === '\n') {
        c.line++;
        continue;
      }
      const map: Record<string, string> = { n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' };
      const mapped = e === undefined ? undefined : map[e];
      if (mapped === undefined) throw new ParseFailure(c.line, 'an unknown escape in a value');
      out += mapped;
      continue;
    }
    out += ch;
  }
}

export function parseGitConfig(text: string): GitConfigParse {
  // git reads CRLF as a line end, like LF.
  const c: Cursor = { text: text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n'), pos: 0, line: 1 };
  const entries: GitConfigEntry[] = [];
  let section: string | null = null;
  try {
    while (c.pos < c.text.length) {
      skipSpace(c);
      const ch = c.text[c.pos];
      if (ch === '\n') {
        c.pos++;
        c.line++;
        continue;
      }
      if (atLineEnd(c)) {
        skipToLineEnd(c);
        continue;
      }
      if (ch === '[') {
        c.pos++;
        section = readHeader(c);
        skipSpace(c);
        if (atLineEnd(c)) {
          skipToLineEnd(c);
          continue;
        }
      }
      const name = NAME.exec(c.text.slice(c.pos, c.pos + 256))?.[0];
      if (name === undefined)
        throw new ParseFailure(c.line, 'a line that is neither a section nor a key');
      if (section === null) throw new ParseFailure(c.line, 'a key before any section');
      c.pos += name.length;
      const line = c.line;
      skipSpace(c);
      let value: string | null = null;
      if (c.text[c.pos] === '=') {
        c.pos++;
        skipSpace(c);
        value = readValue(c);
      } else if (!atLineEnd(c)) {
        throw new ParseFailure(c.line, 'a key followed by something other than "="');
      } else {
        skipToLineEnd(c);
      }
      entries.push({ key: `${section}.${name.toLowerCase()}`, value, line });
    }
  } catch (error) {
    if (error instanceof ParseFailure)
      return { ok: false, line: error.line, message: error.message };
    throw error;
  }
  return { ok: true, entries };
}

/** `section`, `subsection` (or null) and `name` of a key. */
function splitKey(key: string): { section: string; sub: string | null; name: string } {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return {
    section: key.slice(0, first),
    sub: first === last ? null : key.slice(first + 1, last),
    name: key.slice(last + 1),
  };
}

/** Plain keys whose value git, or a tool it starts, runs or follows. */
const EXEC_KEYS = new Set([
  'core.hookspath',
  'core.fsmonitor',
  'core.sshcommand',
  'core.pager',
  'core.editor',
  'core.askpass',
  'core.gitproxy',
  'core.worktree',
  'core.alternaterefscommand',
  'credential.helper',
  'init.templatedir',
  'gpg.program',
  'sequence.editor',
  'diff.external',
  'diff.tool',
  'merge.tool',
  'web.browser',
  'uploadpack.packobjectshook',
  'extensions.worktreeconfig',
  'include.path',
  'protocol.allow',
  'ssh.variant',
]);

/** Sections whose every subsection key can run a command or redirect one. */
const EXEC_SECTIONS = new Set([
  'filter',
  'diff',
  'merge',
  'difftool',
  'mergetool',
  'credential',
  'gpg',
  'includeif',
  'browser',
  'man',
  'trailer',
  'url',
  'protocol',
]);

/**
 * Whether a key can make git on the host run something, run it elsewhere,
 * or read more config: hooks, fsmonitor, pagers, editors, credential
 * helpers, filters and diff/merge drivers, shell aliases (`!…`), includes.
 */
export function isExecRelevant(entry: Pick<GitConfigEntry, 'key' | 'value'>): boolean {
  if (EXEC_KEYS.has(entry.key)) return true;
  const { section, sub, name } = splitKey(entry.key);
  if (section === 'alias' || (section === 'submodule' && name === 'update')) {
    return (entry.value ?? '').trimStart().startsWith('!');
  }
  if (section === 'pager') return true;
  if (section === 'remote' && (name === 'uploadpack' || name === 'receivepack' || name === 'vcs')) {
    return true;
  }
  return sub !== null && EXEC_SECTIONS.has(section);
}
