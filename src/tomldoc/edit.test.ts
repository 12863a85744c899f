import { parse as smolParse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import {
  addToArray,
  applyEdits,
  deleteValue,
  ensureTable,
  findEntries,
  removeEntry,
  removeFromArray,
  setValue,
  upsertEntry,
  type TomlEdit,
} from './edit.js';
import type { TomlTable } from './cst.js';
import { TomlDocError } from './parse.js';

const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('setValue', () => {
  it.each([
    [
      'replaces a value in place, keeping the comment',
      'a = "x"  # why\n',
      ['a'],
      'y',
      'a = "y"  # why\n',
    ],
    ['keeps a literal string literal', "a = 'x'\n", ['a'], 'y', "a = 'y'\n"],
    [
      'falls back to basic when literal cannot hold it',
      "a = 'x'\n",
      ['a'],
      "it's",
      'a = "it\'s"\n',
    ],
    [
      'adds a root key after the last one',
      'a = 1\n\n[t]\nb = 2\n',
      ['c'],
      true,
      'a = 1\nc = true\n\n[t]\nb = 2\n',
    ],
    [
      'adds a root key below the file comment, not above a header',
      lines('# file', '', '# about t', '[t]', 'b = 2'),
      ['c'],
      1,
      lines('# file', 'c = 1', '', '# about t', '[t]', 'b = 2'),
    ],
    ['adds to an empty document', '', ['a'], 'x', 'a = "x"\n'],
    ['adds after comments only', '# c\n', ['a'], 'x', '# c\na = "x"\n'],
    ['keeps a missing final newline', 'a = 1', ['b'], 2, 'a = 1\nb = 2'],
    ['keeps CRLF', 'a = 1\r\n', ['b'], 2, 'a = 1\r\nb = 2\r\n'],
    ['copies indentation and spacing', '[t]\n  a=1\n', ['t', 'b'], 2, '[t]\n  a=1\n  b=2\n'],
    ['adds into a table with no keys', '[t]\n\n[u]\n', ['t', 'a'], 1, '[t]\na = 1\n\n[u]\n'],
    ['quotes keys that need it', '', ['a b'], 1, '"a b" = 1\n'],
    [
      'creates a missing table at the end',
      'a = 1\n',
      ['credentials', 'identity'],
      'k',
      'a = 1\n\n[credentials]\nidentity = "k"\n',
    ],
    [
      'adds into an inline table',
      'env = { A = "1" }\n',
      ['env', 'B'],
      '2',
      'env = { A = "1", B = "2" }\n',
    ],
    ['fills an empty inline table', 'env = {}\n', ['env', 'B'], '2', 'env = { B = "2" }\n'],
    [
      'adds beside dotted keys',
      'env.A = "1"\nx = 1\n',
      ['env', 'B'],
      '2',
      'env.A = "1"\nenv.B = "2"\nx = 1\n',
    ],
    [
      'adds into an array-of-tables entry',
      '[[m]]\nn = "a"\n[[m]]\nn = "b"\n',
      ['m', 1, 'x'],
      1,
      '[[m]]\nn = "a"\n[[m]]\nn = "b"\nx = 1\n',
    ],
    [
      'adds a sub-table to an entry inline',
      '[[mcp]]\nname = "a"\nurl = "https://x"\n',
      ['mcp', 0, 'headers', 'A'],
      'b',
      '[[mcp]]\nname = "a"\nurl = "https://x"\nheaders = { A = "b" }\n',
    ],
    ['escapes what a basic string must', '', ['a'], 'q"\\\n\u0001', 'a = "q\\"\\\\\\n\\u0001"\n'],
    ['writes arrays and tables on one line', '', ['a'], ['x', 1], 'a = ["x", 1]\n'],
    [
      'writes a new root table as a header',
      'a = 1\n',
      ['defaults'],
      { skip_questions: true },
      'a = 1\n\n[defaults]\nskip_questions = true\n',
    ],
  ] as const)('%s', (_, text, path, value, expected) => {
    const out = setValue(text, path, value as never);
    expect(out).toBe(expected);
    expect(() => smolParse(out)).not.toThrow();
  });

  it('changes nothing when the value is already there', () => {
    const text = 'a = [ "x" ,1 ]  # same\nb = { c = 0x1 }\n';
    expect(setValue(text, ['a'], ['x', 1])).toBe(text);
    expect(setValue(text, ['b'], { c: 1 })).toBe(text);
  });

  it('sets each key of a table value and removes the others', () => {
    const text = lines('[defaults]', '# kept', 'skip_questions = true', 'shared_auth = ["claude"]');
    expect(setValue(text, ['defaults'], { skip_questions: false })).toBe(
      lines('[defaults]', '# kept', 'skip_questions = false'),
    );
  });

  it.each([
    ['a = 1\n', ['a', 'b'], 'tomldoc.not-a-table'],
    ['[[m]]\n', ['m'], 'tomldoc.not-a-value'],
    ['[[m]]\n', ['m', 3, 'x'], 'tomldoc.no-entry'],
    ['', [], 'tomldoc.not-a-value'],
  ] as const)('refuses %j at %j', (text, path, rule) => {
    expect(() => setValue(text, path, 1)).toThrow(TomlDocError);
    expect(() => setValue(text, path, 1)).toThrow(expect.objectContaining({ rule }));
  });
});

describe('deleteValue', () => {
  it.each([
    ['a key line', 'a = 1\nb = 2 # x\nc = 3\n', ['b'], 'a = 1\nc = 3\n'],
    ['the last line without a final newline', 'a = 1\nb = 2', ['b'], 'a = 1'],
    ['an inline entry', 'e = { A = "1", B = "2" }\n', ['e', 'A'], 'e = { B = "2" }\n'],
    ['the last inline entry', 'e = { A = "1", B = "2" }\n', ['e', 'B'], 'e = { A = "1" }\n'],
    ['an inline table left empty, with its key', 'a = 1\ne = { A = "1" }\n', ['e', 'A'], 'a = 1\n'],
    [
      'but not one with a comment on its line',
      'e = { A = "1" } # keep\n',
      ['e', 'A'],
      'e = {} # keep\n',
    ],
    ['a table left empty', 'a = 1\n\n[t]\nk = 1\n', ['t', 'k'], 'a = 1\n'],
    ['but not a table holding a comment', '[t]\n# note\nk = 1\n', ['t', 'k'], '[t]\n# note\n'],
    [
      'a whole table and its sub-tables',
      'a = 1\n\n[t]\nk = 1\n[t.u]\nj = 2\n\n[v]\n',
      ['t'],
      'a = 1\n\n[v]\n',
    ],
    [
      'an entry with the comment above it',
      lines('[[m]]', 'n = 1', '', '# two', '[[m]]', 'n = 2', '', '[x]'),
      ['m', 1],
      lines('[[m]]', 'n = 1', '', '[x]'),
    ],
    [
      'a first entry, with the blank line after it',
      lines('[[m]]', 'n = 1', '', '[[m]]', 'n = 2'),
      ['m', 0],
      lines('[[m]]', 'n = 2'),
    ],
    [
      'but never the comment that opens the file',
      lines('# file', '[[m]]', 'n = 1', '', '[x]'),
      ['m'],
      lines('# file', '', '[x]'),
    ],
    ['an array item', 'a = [1, 2, 3]\n', ['a', 1], 'a = [1, 3]\n'],
    ['dotted keys under a prefix', 'e.A = 1\ne.B = 2\nx = 3\n', ['e'], 'x = 3\n'],
    ['nothing when nothing is there', 'a = 1\n', ['b', 'c'], 'a = 1\n'],
  ] as const)('%s', (_, text, path, expected) => {
    expect(deleteValue(text, path)).toBe(expected);
  });
});

describe('addToArray and removeFromArray', () => {
  it.each([
    ['one line', 'a = ["x", "y"]\n', 'a = ["x", "y", "z"]\n'],
    ['one line, tight', 'a = ["x","y"]\n', 'a = ["x","y","z"]\n'],
    ['one line, trailing comma', 'a = ["x",]\n', 'a = ["x", "z",]\n'],
    ['empty', 'a = []\n', 'a = ["z"]\n'],
    ['missing', 'b = 1\n', 'b = 1\na = ["z"]\n'],
    ['multi-line, trailing comma', 'a = [\n  "x",  # c\n]\n', 'a = [\n  "x",  # c\n  "z",\n]\n'],
    [
      'multi-line, no trailing comma',
      'a = [\n    "x" # c\n]\n',
      'a = [\n    "x", # c\n    "z"\n]\n',
    ],
    ['multi-line CRLF', 'a = [\r\n  "x",\r\n]\r\n', 'a = [\r\n  "x",\r\n  "z",\r\n]\r\n'],
    ['literal neighbours', "a = ['x']\n", "a = ['x', 'z']\n"],
  ] as const)('adds to %s, and removing restores it', (_, text, added) => {
    const out = addToArray(text, ['a'], 'z');
    expect(out).toBe(added);
    expect(removeFromArray(out, ['a'], 'z')).toBe(text === 'a = []\n' ? '' : text);
  });

  it('does not add a value twice', () => {
    expect(addToArray('a = ["x"]\n', ['a'], 'x')).toBe('a = ["x"]\n');
  });

  it('adds and removes `!name` markers like any value', () => {
    const text = 'skills = ["byre/claude"]\n';
    const out = addToArray(text, ['skills'], '!byre/firewall');
    expect(out).toBe('skills = ["byre/claude", "!byre/firewall"]\n');
    expect(removeFromArray(out, ['skills'], '!byre/firewall')).toBe(text);
  });

  it.each([
    ['a first item', 'a = [\n  "x",\n  "y",\n]\n', 'x', 'a = [\n  "y",\n]\n'],
    ['every copy', 'a = ["x", "y", "x"]\n', 'x', 'a = ["y"]\n'],
    [
      'the last item, taking its neighbour’s comma',
      'a = [\n  "x", # c\n  "y"\n]\n',
      'y',
      'a = [\n  "x" # c\n]\n',
    ],
    ['down to nothing, dropping the key', 'b = 1\na = ["x"]\n', 'x', 'b = 1\n'],
    ['down to nothing, keeping a commented key', 'a = ["x"] # keep\n', 'x', 'a = [] # keep\n'],
    ['nothing that is not there', 'a = ["x"]\n', 'q', 'a = ["x"]\n'],
  ] as const)('removes %s', (_, text, value, expected) => {
    expect(removeFromArray(text, ['a'], value)).toBe(expected);
  });

  it('refuses an array edit on a value that is not an array', () => {
    expect(() => addToArray('a = 1\n', ['a'], 'x')).toThrow(
      expect.objectContaining({ rule: 'tomldoc.not-an-array' }),
    );
  });
});

describe('upsertEntry and removeEntry', () => {
  const config = lines(
    '# byre project config',
    'agent = "claude"',
    '',
    '# servers',
    '[[mcp]]',
    'name = "github"  # the main one',
    'command = ["npx", "-y", "gh"]',
    'env = ["GITHUB_TOKEN"]',
    '',
    '[[mounts]]',
    'host = "~/src"',
    'target = "/src"',
  );

  it('appends a new entry after the last of its kind', () => {
    const out = upsertEntry(config, ['mcp'], 'name', { name: 'fs', command: ['fs'] });
    expect(out).toBe(
      config.replace(
        'env = ["GITHUB_TOKEN"]\n',
        'env = ["GITHUB_TOKEN"]\n\n[[mcp]]\nname = "fs"\ncommand = ["fs"]\n',
      ),
    );
    expect(removeEntry(out, ['mcp'], 'name', 'fs')).toBe(config);
  });

  it('appends the first entry of a kind at the end', () => {
    const out = upsertEntry(config, ['ports'], 'container', { container: 8080, host: 0 });
    expect(out).toBe(`${config}\n[[ports]]\ncontainer = 8080\nhost = 0\n`);
    expect(removeEntry(out, ['ports'], 'container', 8080)).toBe(config);
  });

  it('updates an entry in place: set keys, removed keys, comments kept', () => {
    const out = upsertEntry(config, ['mcp'], 'name', {
      name: 'github',
      url: 'https://api.example/mcp',
      env: ['GITHUB_TOKEN'],
    });
    expect(out).toBe(
      config.replace(
        'command = ["npx", "-y", "gh"]\nenv = ["GITHUB_TOKEN"]\n',
        'env = ["GITHUB_TOKEN"]\nurl = "https://api.example/mcp"\n',
      ),
    );
  });

  it('writes a closure as an entry whose name is `!name`', () => {
    const out = upsertEntry(config, ['mcp'], 'name', { name: '!github' });
    expect(out).toContain('\n[[mcp]]\nname = "!github"\n');
    expect(findEntries(out, ['mcp'], 'name', '!github')).toEqual([1]);
  });

  it('follows a compact, indented style', () => {
    const text = lines('[[m]]', '  n = "a"', '[[m]]', '  n = "b"', '[x]');
    const out = upsertEntry(text, ['m'], 'n', { n: 'c' });
    expect(out).toBe(
      lines('[[m]]', '  n = "a"', '[[m]]', '  n = "b"', '[[m]]', '  n = "c"', '[x]'),
    );
    expect(removeEntry(out, ['m'], 'n', 'c')).toBe(text);
  });

  it('edits an inline array of tables', () => {
    const text = 'ports = [{ container = 80 }]\n';
    const out = upsertEntry(text, ['ports'], 'container', { container: 81 });
    expect(out).toBe('ports = [{ container = 80 }, { container = 81 }]\n');
    expect(removeEntry(out, ['ports'], 'container', 81)).toBe(text);
    expect(removeEntry(text, ['ports'], 'container', 80)).toBe('');
  });

  it('removes an entry with its sub-tables', () => {
    const text = lines(
      '[[volumes]]',
      'name = "a"',
      '[volumes.seed]',
      'host = "~/x"',
      '',
      '[[volumes]]',
      'name = "b"',
    );
    expect(removeEntry(text, ['volumes'], 'name', 'a')).toBe(lines('[[volumes]]', 'name = "b"'));
  });

  it('refuses an entry without its key', () => {
    expect(() => upsertEntry('', ['mcp'], 'name', { url: 'x' })).toThrow(
      expect.objectContaining({ rule: 'tomldoc.no-entry' }),
    );
  });
});

describe('ensureTable', () => {
  it.each([
    ['adds a missing table', 'a = 1\n', 'a = 1\n\n[credentials]\n'],
    ['leaves an existing one', '[credentials]\nx = 1\n', '[credentials]\nx = 1\n'],
    ['accepts an inline one', 'credentials = {}\n', 'credentials = {}\n'],
  ])('%s', (_, text, expected) => {
    expect(ensureTable(text, ['credentials'])).toBe(expected);
  });

  it('refuses a path holding a value', () => {
    expect(() => ensureTable('credentials = 1\n', ['credentials'])).toThrow(
      expect.objectContaining({ rule: 'tomldoc.not-a-table' }),
    );
  });
});

describe("applyEdits' tables-append: one more [[path]] entry per table", () => {
  const append = (text: string, tables: TomlTable[]): string =>
    applyEdits(text, [{ op: 'tables-append', path: ['inject', 'GITHUB_TOKEN'], tables }]);

  it('creates the array of tables at the end, a blank line before each entry', () => {
    const out = append('[env_from_host]\nGITHUB_TOKEN = "injected:x"\n', [
      { hosts: ['api.github.com'], bearer: true },
      { hosts: ['github.com'], basic: 'x-access-token' },
    ]);
    expect(out).toBe(
      lines(
        '[env_from_host]',
        'GITHUB_TOKEN = "injected:x"',
        '',
        '[[inject.GITHUB_TOKEN]]',
        'hosts = ["api.github.com"]',
        'bearer = true',
        '',
        '[[inject.GITHUB_TOKEN]]',
        'hosts = ["github.com"]',
        'basic = "x-access-token"',
      ),
    );
    expect(smolParse(out)).toEqual({
      env_from_host: { GITHUB_TOKEN: 'injected:x' },
      inject: {
        GITHUB_TOKEN: [
          { hosts: ['api.github.com'], bearer: true },
          { hosts: ['github.com'], basic: 'x-access-token' },
        ],
      },
    });
  });

  it('extends an existing array of tables, after whatever follows it', () => {
    const text = lines('[[inject.GITHUB_TOKEN]]', 'hosts = ["a.example"]', '', '[env]', 'X = "1"');
    const out = append(text, [{ hosts: ['b.example'], bearer: true }]);
    expect(smolParse(out)).toEqual({
      env: { X: '1' },
      inject: {
        GITHUB_TOKEN: [{ hosts: ['a.example'] }, { hosts: ['b.example'], bearer: true }],
      },
    });
    expect(out.startsWith(text)).toBe(true);
  });

  it('refuses a path holding another kind of value', () => {
    expect(() => append('[inject]\nGITHUB_TOKEN = [{ hosts = ["a.example"] }]\n', [{}])).toThrow(
      expect.objectContaining({ rule: 'tomldoc.not-an-array' }),
    );
  });
});

describe('hand-written configs survive add-then-remove byte for byte', () => {
  const handWritten = [
    lines(
      '# My project. Keep this comment!',
      '',
      'template = "node"     # node 20',
      "agent    = 'claude'",
      'skills = [',
      '    "byre/firewall",   # locked down',
      ']',
      'egress = ["api.github.com"]',
      '',
      '[env]',
      '# the log level',
      'LOG = "debug"',
      '',
      '# ---- grants ----',
      '[[mounts]]',
      "host   = '~/notes'",
      "target = '/notes'",
      'mode   = "ro"   # never rw',
      '',
      '[[ports]]',
      'container = 3000',
    ),
    'agent = "claude"\r\n# CRLF and no final newline\r\n[[mcp]]\r\nname = "a"\r\nurl = "https://a.example"',
    lines('# only a comment'),
  ];
  const edits: TomlEdit[][] = [
    [
      {
        op: 'entry-upsert',
        path: ['mcp'],
        key: 'name',
        entry: { name: 'gh', command: ['gh-mcp'], env: ['GH_TOKEN'] },
      },
    ],
    [
      {
        op: 'entry-upsert',
        path: ['mounts'],
        key: 'target',
        entry: { host: '~/data', target: '/data', mode: 'rw' },
      },
    ],
    [{ op: 'entry-upsert', path: ['ports'], key: 'container', entry: { container: 8080 } }],
    [
      {
        op: 'entry-upsert',
        path: ['context'],
        key: 'name',
        entry: { name: 'style', text: 'Be brief.\nAlways.' },
      },
    ],
    [{ op: 'set', path: ['env', 'NEW'], value: 'x' }],
    [{ op: 'set', path: ['env_from_host', 'TZ'], value: 'tz:' }],
    [{ op: 'set', path: ['credentials', 'identity'], value: 'AGE-SECRET-KEY-1X' }],
    [{ op: 'set', path: ['defaults', 'skip_questions'], value: true }],
    [{ op: 'array-add', path: ['skills'], value: '!byre/claude' }],
    [{ op: 'array-add', path: ['egress'], value: '!evil.example' }],
    [{ op: 'set', path: ['seed_prefs'], value: false }],
  ];
  const undo = (edit: TomlEdit): TomlEdit => {
    switch (edit.op) {
      case 'entry-upsert':
        return {
          op: 'entry-remove',
          path: edit.path,
          key: edit.key,
          value: edit.entry[edit.key] as string,
        };
      case 'array-add':
        return { op: 'array-remove', path: edit.path, value: edit.value };
      default:
        return { op: 'delete', path: edit.path };
    }
  };

  it.each(handWritten.flatMap((text, n) => edits.map((e) => [n, e[0]!.op, e, text] as const)))(
    'config %i: %s',
    (_, __, edit, text) => {
      const out = applyEdits(text, edit);
      expect(out).not.toBe(text);
      expect(() => smolParse(out)).not.toThrow();
      expect(applyEdits(out, edit.map(undo).reverse())).toBe(text);
    },
  );

  it('all edits at once, undone in reverse', () => {
    for (const text of handWritten) {
      const all = edits.flat();
      const out = applyEdits(text, all);
      expect(applyEdits(out, all.map(undo).reverse())).toBe(text);
    }
  });
});
