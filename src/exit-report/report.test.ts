import { describe, expect, it } from 'vitest';
import {
  exitReport,
  exitReportLines,
  type Category,
  type ConfigState,
  type FileState,
  type PointerState,
  type TreeSnapshot,
} from './report.js';

const file = (digest: string): FileState => ({ kind: 'file', digest });
const cat = <T>(items: Record<string, T>, complete = true): Category<T> => ({ items, complete });
const snap = (over: Partial<TreeSnapshot> = {}): TreeSnapshot => ({
  pointers: cat<PointerState>({ '.git': { kind: 'other', what: 'a directory' } }),
  configs: cat<ConfigState>({
    '.git/config': { kind: 'entries', entries: [], hooksBases: ['/w'] },
  }),
  hooks: cat<FileState>({}),
  envFiles: cat<FileState>({ '.env': file('a') }),
  taskFiles: cat<FileState>({ Makefile: file('m') }),
  unchecked: [],
  ...over,
});
const report = (before: TreeSnapshot, after: TreeSnapshot, checkedOut = false) =>
  exitReport({ before, after, checkedOutThisSession: checkedOut });

describe('exitReport', () => {
  it('an untouched tree reports nothing at all', () => {
    expect(exitReportLines(report(snap(), snap()))).toEqual([]);
  });

  it.each<[string, Partial<TreeSnapshot>, Partial<TreeSnapshot>, string[]]>([
    [
      'a config key added and one changed',
      {
        configs: cat({
          '.git/config': { kind: 'entries', entries: ['core.pager=less'], hooksBases: ['/w'] },
        }),
      },
      {
        configs: cat({
          '.git/config': {
            kind: 'entries',
            entries: ['core.hookspath=.githooks', 'core.pager=sh x'],
            hooksBases: ['/w'],
          },
        }),
      },
      [
        'git config .git/config: core.hookspath = ".githooks" (added)',
        'git config .git/config: core.pager = "sh x" (added)',
        'git config .git/config: core.pager = "less" (removed)',
      ],
    ],
    [
      'a new config file (config.worktree)',
      {},
      {
        configs: cat({
          '.git/config': { kind: 'entries', entries: [], hooksBases: ['/w'] },
          '.git/config.worktree': {
            kind: 'entries',
            entries: ['core.fsmonitor'],
            hooksBases: ['/w'],
          },
        }),
      },
      ['git config .git/config.worktree: core.fsmonitor (no value) (added)'],
    ],
    [
      'a multi-valued key gaining a second value',
      {
        configs: cat({
          c: { kind: 'entries', entries: ['credential.helper=a'], hooksBases: ['/w'] },
        }),
      },
      {
        configs: cat({
          c: {
            kind: 'entries',
            entries: ['credential.helper=a', 'credential.helper=a'],
            hooksBases: ['/w'],
          },
        }),
      },
      ['git config c: credential.helper = "a" (added)'],
    ],
    [
      'hooks added, changed, deleted, and one turned into a link',
      { hooks: cat({ 'h/a': file('1'), 'h/b': file('2'), 'h/c': file('3') }) },
      {
        hooks: cat<FileState>({
          'h/a': file('1'),
          'h/b': file('9'),
          'h/d': file('4'),
          'h/c': { kind: 'symlink', target: '/tmp/x' },
        }),
      },
      ['hook changed: h/b', 'hook changed: h/c (a symbolic link to /tmp/x)', 'hook added: h/d'],
    ],
    [
      '.env files',
      {},
      { envFiles: cat({ '.env': file('b'), 'web/.envrc': file('c') }) },
      ['.env file changed: .env', '.env file added: web/.envrc'],
    ],
    [
      'task files',
      {},
      {
        taskFiles: cat<FileState>({
          Makefile: file('n'),
          'package.json "scripts"': file('s'),
          '.vscode': { kind: 'symlink', target: '/etc' },
        }),
      },
      [
        'task file added: .vscode (a symbolic link to /etc)',
        'task file changed: Makefile',
        'task file added: package.json "scripts"',
      ],
    ],
    [
      'an incomplete walk reports no deletions',
      { hooks: cat({ 'h/a': file('1') }) },
      { hooks: cat({}, false) },
      [],
    ],
  ])('%s', (_name, before, after, want) => {
    expect(report(snap(before), snap(after)).changes).toEqual(want);
  });

  it('a session that checked the worktree out does not report the .env or task files it brought', () => {
    const after = snap({
      envFiles: cat({ '.env': file('a'), '.env.example': file('x') }),
      taskFiles: cat({ Makefile: file('m'), justfile: file('j') }),
    });
    expect(report(snap(), after, true).changes).toEqual([]);
    expect(exitReportLines(report(snap(), after, true))).toEqual([]);
  });

  it('names what could not be checked, and a config that stopped parsing', () => {
    const after = snap({
      configs: cat({ '.git/config': { kind: 'unreadable', why: 'line 3: an unknown escape' } }),
      unchecked: ['hooks beyond the first 500'],
    });
    const r = report(snap(), after);
    expect(r.changes).toEqual([]);
    expect(r.unchecked).toEqual([
      'hooks beyond the first 500',
      'git config .git/config, changed into something byre cannot read (line 3: an unknown escape)',
    ]);
    expect(exitReportLines(r)).toEqual([
      'notice: could not check: hooks beyond the first 500; git config .git/config, changed into something byre cannot read (line 3: an unknown escape)',
    ]);
  });
});

describe('exitReportLines', () => {
  it('prints the same first changes however many there are, then a count of the rest, worded as a notice', () => {
    /** The change lines printed for `n` new hooks, after checking they and the count add up to `n`. */
    const printed = (n: number): string[] => {
      const hooks = Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`h/${String(i).padStart(3, '0')}`, file('x')]),
      );
      const lines = exitReportLines(report(snap(), snap({ hooks: cat(hooks) })));
      expect(lines[0]).toMatch(/^notice: while this session ran/);
      expect(lines.at(-1)).toMatch(/it does not block or undo them/);
      expect(lines.join('\n')).not.toMatch(/contain|protect|safe/i);
      const shown = lines.filter((l) => l.startsWith('  hook added'));
      const rest = lines.flatMap((l) => /^ {2}… and (\d+) more$/.exec(l)?.[1] ?? []);
      expect(rest).toHaveLength(1);
      expect(shown.length + Number(rest[0])).toBe(n);
      return shown;
    };
    const few = printed(60);
    expect(few.length).toBeGreaterThan(0);
    expect(printed(120)).toEqual(few);
  });

  it('cuts a long value', () => {
    const long = `core.pager=${'x'.repeat(500)}`;
    const lines = exitReportLines(
      report(
        snap(),
        snap({ configs: cat({ c: { kind: 'entries', entries: [long], hooksBases: ['/w'] } }) }),
      ),
    );
    expect(lines[1]?.length).toBeLessThan(200);
    expect(lines[1]).toContain('…');
  });
});
