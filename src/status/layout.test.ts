import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_VALUE_LINES,
  MIN_VALUE_WIDTH,
  renderRows,
  type StatusRow,
  wrapValue,
} from './layout.js';

const lines = (page: string): string[] => page.replace(/\n$/, '').split('\n');
const tokens = (text: string): string[] => text.split(/[ \n]+/).filter((t) => t !== '');
/** Where the rendered `page`'s values start: its first line's value, found (ASCII labels: a cell offset). */
const valueColumnOf = (page: string, firstValue: string): number =>
  (lines(page)[0] ?? '').indexOf(firstValue);

const CJK_PATH = '/home/ユーザー/プロジェクト/データ';
// Wider than the widest layout even on its own: it must overhang, never be cut.
const HUGE_PATH = `/home/ユーザー/${'とても長いディレクトリ名/'.repeat(12)}最後`;
const HOLE =
  '🛑 HOLE -- the engine socket is mounted into the box; the agent can start ' +
  'sibling boxes with any host path mounted, so the project boundary does not ' +
  'hold  (skill: byre/docker-socket)';

// ASCII labels throughout, so a cell offset is also a string index.
const page: StatusRow[] = [
  { label: 'Project id', value: 'repo-abc123' },
  { label: 'Project', value: `${CJK_PATH} -> /workspace  (rw)` },
  { label: 'Containment', value: HOLE, kind: 'never-truncate' },
  {
    label: 'Host mounts',
    value: [
      `${HUGE_PATH} -> /huge  (ro)`,
      `${CJK_PATH} -> /data  (ro)`,
      '/home/ユーザー/キャッシュ -> /cache  (rw)',
      '/srv/共有/モデル -> /models  (ro, disabled)',
    ].join(', '),
  },
  { label: 'Skills', value: 'byre/claude         bundled v1.3.1' },
  { label: 'Skills', value: 'pjlsergeant/devlog  installed 1.0.0', continuation: true },
  { label: 'Skills', value: '(--full for package digests)', continuation: true },
  {
    label: 'Host env',
    value:
      '4 keys from host: GIT_AUTHOR_EMAIL, GIT_AUTHOR_NAME, ユーザー_TOKEN, 🛑_MARKER  ' +
      '(env_from_host; --full for sources)',
  },
];

describe('renderRows geometry', () => {
  describe.each([48, 80, 120, 160])('at %i cells', (width) => {
    const full = renderRows(page, { width, tier: 'full' });
    const byDefault = renderRows(page, { width, tier: 'default' });
    const valueColumn = valueColumnOf(full, 'repo-abc123');
    const valueWidth = Math.max(MIN_VALUE_WIDTH, width - valueColumn);

    it.each([
      ['full', full],
      ['default', byDefault],
    ])('%s tier: no line exceeds the width except an overhanging unbreakable token', (_, out) => {
      const over = lines(out).filter((line) => stringWidth(line) > width);
      // HUGE_PATH is wider than any layout, so the exception is exercised.
      expect(over.length).toBeGreaterThan(0);
      for (const line of over) {
        const value = line.slice(valueColumn);
        expect(value, line).not.toContain(' ');
        expect(stringWidth(value), line).toBeGreaterThan(valueWidth);
      }
    });

    it('puts every value line, first or hung, exactly at the value column', () => {
      for (const line of lines(full)) {
        expect(line.slice(0, valueColumn), line).toMatch(/^(\S.*:)? *$/);
        expect(line.slice(valueColumn - 1, valueColumn + 1), line).toMatch(/^ \S$/);
      }
    });

    it('hangs continuation rows and wrapped lines with a blank label', () => {
      const hung = lines(full).filter((line) => line.startsWith(' '));
      expect(hung.length).toBeGreaterThanOrEqual(2);
      for (const line of hung) expect(line).toMatch(new RegExp(`^ {${valueColumn}}\\S`));
      expect(full).toContain(`\n${' '.repeat(valueColumn)}pjlsergeant/devlog `);
    });

    it('never splits a path or any other token, and loses none (full tier)', () => {
      const rendered = tokens(
        lines(full)
          .map((line) => line.slice(valueColumn))
          .join(' '),
      );
      expect(rendered).toEqual(page.flatMap((row) => tokens(row.value)));
      for (const path of [CJK_PATH, HUGE_PATH]) {
        expect(lines(full).some((line) => line.includes(path))).toBe(true);
      }
    });

    it('shows a never-truncate row whole in the default tier', () => {
      const hole = renderRows([page[2] as StatusRow], { width, tier: 'full' });
      expect(byDefault).toContain(hole);
      expect(tokens(hole).join(' ')).toContain(tokens(HOLE).join(' '));
    });
  });
});

describe('renderRows labels', () => {
  it('pads the label column to at least 13 cells, value one gutter space after', () => {
    expect(renderRows([{ label: 'Engine', value: 'docker' }], { width: 80, tier: 'full' })).toBe(
      'Engine:       docker\n',
    );
    // The value column then holds the other 66 cells of 80: 66 fit on one line, 67 do not.
    const fits = `${'x'.repeat(30)} ${'y'.repeat(35)}`;
    expect(renderRows([{ label: 'Engine', value: fits }], { width: 80, tier: 'full' })).toBe(
      `Engine:       ${fits}\n`,
    );
    expect(
      lines(renderRows([{ label: 'Engine', value: `${fits}y` }], { width: 80, tier: 'full' })),
    ).toHaveLength(2);
  });

  it('widens the label column to the longest label plus one for the colon', () => {
    const rows = [
      { label: 'Claude Skills', value: 'a' },
      { label: 'Ports', value: 'none' },
    ];
    expect(renderRows(rows, { width: 80, tier: 'full' })).toBe(
      'Claude Skills: a\nPorts:         none\n',
    );
  });

  it('ignores continuation labels when sizing the column', () => {
    const rows = [
      { label: 'Ports', value: 'none' },
      { label: 'A very long label indeed', value: 'x', continuation: true },
    ];
    expect(renderRows(rows, { width: 80, tier: 'full' })).toBe(
      'Ports:        none\n              x\n',
    );
  });

  it('treats an empty label as a continuation rather than printing a lone colon', () => {
    const out = renderRows(
      [
        { label: 'Skills', value: 'a' },
        { label: '', value: 'b' },
      ],
      { width: 80, tier: 'full' },
    );
    expect(out).toBe('Skills:       a\n              b\n');
  });

  it('pads CJK labels in cells, not code units', () => {
    const out = renderRows([{ label: 'データ', value: 'x' }], { width: 80, tier: 'full' });
    expect(out).toBe('データ:       x\n');
    expect(stringWidth(out.split('x')[0] ?? '')).toBe(14);
  });

  it('keeps the value column at its 24-cell floor even if the page overruns', () => {
    const label = 'An exceptionally long label here'; // 32 cells
    const out = renderRows([{ label, value: 'alpha beta gamma delta epsilon zeta eta' }], {
      width: 48,
      tier: 'full',
    });
    const valueColumn = valueColumnOf(out, 'alpha');
    const widths = lines(out).map((line) => stringWidth(line.slice(valueColumn)));
    for (const w of widths) expect(w).toBeLessThanOrEqual(MIN_VALUE_WIDTH);
    // Wider than the 48-cell page leaves it: the floor, not the page, decided.
    expect(Math.max(...widths)).toBeGreaterThan(48 - valueColumn);
  });

  it('prints an empty value as the bare label with no trailing space', () => {
    expect(renderRows([{ label: 'Ports', value: '' }], { width: 80, tier: 'full' })).toBe(
      'Ports:\n',
    );
  });

  it('renders the spec sample rows as the spec shows them at 80 cells', () => {
    const rows: StatusRow[] = [
      { label: 'Project id', value: 'repo-abc123' },
      { label: 'Template', value: 'byre/go             bundled v1.3.1' },
      { label: 'Project', value: '/repo -> /workspace  (rw)' },
      {
        label: 'Host env',
        value:
          '2 keys from host: GIT_AUTHOR_EMAIL, GIT_AUTHOR_NAME  (env_from_host; --full for sources)',
      },
      {
        label: 'Raw run args',
        value: '--cap-add=SYS_PTRACE   (passed through; not introspected)',
      },
    ];
    expect(renderRows(rows, { width: 80, tier: 'default' })).toBe(
      [
        'Project id:   repo-abc123',
        'Template:     byre/go             bundled v1.3.1',
        'Project:      /repo -> /workspace  (rw)',
        'Host env:     2 keys from host: GIT_AUTHOR_EMAIL,',
        '              GIT_AUTHOR_NAME  (env_from_host; --full for sources)',
        'Raw run args: --cap-add=SYS_PTRACE   (passed through; not introspected)',
        '',
      ].join('\n'),
    );
  });
});

describe('renderRows with ASCII and non-ASCII cells on one page', () => {
  it('pads ASCII labels to a wider non-ASCII one, and truncates with the non-ASCII marker', () => {
    // 'Speicherデータ' is 10 code units and 14 cells: the label column is 15.
    const out = renderRows(
      [
        { label: 'Project', value: 'ascii ' + 'word '.repeat(40) },
        { label: 'Speicherデータ', value: 'e\u0301' },
        { label: '~', value: 'x' },
      ],
      { width: 40, tier: 'default' },
    );
    expect(lines(out)).toEqual([
      'Project:        ascii word word word',
      '                word word word word word',
      '                word word word word word',
      // The marker is byre's own non-ASCII text, wrapped in cells like any value.
      '                … (+6 more lines;',
      '                --full to show)',
      'Speicherデータ: e\u0301',
      '~:              x',
    ]);
  });
});

describe('renderRows escaping', () => {
  it('neutralises ANSI and control characters in labels and values', () => {
    const out = renderRows(
      [
        { label: 'Env\u001b[2J', value: '\u001b[31mred\u001b[0m\nnext\tline\u0007 \u202eevil' },
        { label: 'Egress', value: 'a.example:443\r\u009b2K', kind: 'never-truncate' },
      ],
      { width: 80, tier: 'default' },
    );
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(lines(out)).toHaveLength(2);
    expect(out).toContain('Env\\x1b[2J:');
    expect(out).toContain('\\x1b[31mred\\x1b[0m\\nnext\\tline\\x07 \\u202eevil');
    expect(out).toContain('a.example:443\\r\\x9b2K');
  });

  it('measures the escaped text, so an escape cannot smuggle width past the layout', () => {
    const value = Array.from({ length: 30 }, (_, i) => `k${i}\u001b[0m`).join(', ');
    for (const line of lines(renderRows([{ label: 'Env', value }], { width: 48, tier: 'full' }))) {
      expect(stringWidth(line)).toBeLessThanOrEqual(48);
    }
  });
});

describe('renderRows truncation', () => {
  const list = Array.from({ length: 40 }, (_, i) => `/home/ユーザー/プロジェクト${i}`).join(', ');
  const row: StatusRow = { label: 'Host mounts', value: list };

  it('truncates a long value in the default tier, counting hidden lines and pointing at --full', () => {
    const all = lines(renderRows([row], { width: 80, tier: 'full' }));
    const shown = lines(renderRows([row], { width: 80, tier: 'default' }));
    const hidden = all.length - DEFAULT_MAX_VALUE_LINES;
    expect(hidden).toBeGreaterThan(1);
    expect(shown.slice(0, DEFAULT_MAX_VALUE_LINES)).toEqual(all.slice(0, DEFAULT_MAX_VALUE_LINES));
    expect(shown.slice(DEFAULT_MAX_VALUE_LINES)).toEqual([
      `${' '.repeat(14)}… (+${hidden} more lines; --full to show)`,
    ]);
  });

  it('honours maxValueLines', () => {
    const shown = lines(renderRows([row], { width: 80, tier: 'default', maxValueLines: 1 }));
    expect(shown).toHaveLength(2);
    expect(shown[1]).toMatch(/^ {14}… \(\+\d+ more lines; --full to show\)$/);
  });

  it('wraps the marker itself to the value column when the value column is narrow', () => {
    const label = 'An exceptionally long label here';
    const out = renderRows([{ label, value: list }], { width: 48, tier: 'default' });
    const valueColumn = valueColumnOf(out, '/home');
    const tail = lines(out).slice(DEFAULT_MAX_VALUE_LINES);
    expect(tail.length).toBe(2);
    for (const line of tail) {
      expect(stringWidth(line.slice(valueColumn))).toBeLessThanOrEqual(MIN_VALUE_WIDTH);
    }
    expect(tail.map((line) => line.slice(valueColumn)).join(' ')).toMatch(
      /… \(\+\d+ more lines; --full to show\)/,
    );
  });

  it('shows a value only one line over budget whole: a marker would hide nothing', () => {
    const value = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho';
    const opts = { width: 48, tier: 'default', maxValueLines: 2 } as const;
    expect(wrapValue(value, 34)).toHaveLength(3);
    expect(renderRows([{ label: 'Env', value }], opts)).toBe(
      renderRows([{ label: 'Env', value }], { width: 48, tier: 'full' }),
    );
  });

  it('never truncates in the full tier', () => {
    expect(renderRows([row], { width: 48, tier: 'full' })).not.toContain('--full to show');
  });

  it('never truncates a never-truncate row, however long', () => {
    const long: StatusRow = { ...row, label: 'Containment', kind: 'never-truncate' };
    const out = renderRows([long], { width: 48, tier: 'default' });
    expect(out).toBe(renderRows([long], { width: 48, tier: 'full' }));
    expect(lines(out).length).toBeGreaterThan(DEFAULT_MAX_VALUE_LINES + 1);
  });

  it('truncates continuation rows independently of the row above', () => {
    const out = renderRows(
      [
        { label: 'Skills', value: 'a' },
        { ...row, continuation: true },
      ],
      {
        width: 80,
        tier: 'default',
      },
    );
    expect(lines(out)).toHaveLength(1 + DEFAULT_MAX_VALUE_LINES + 1);
  });
});

describe('wrapValue', () => {
  it.each([
    // [text, width, want]
    ['fits on one line', 40, ['fits on one line']],
    ['', 10, ['']],
    // Prefers the last ", " that keeps the line half full over a later space.
    ['alpha beta, gamma delta epsilon', 20, ['alpha beta,', 'gamma delta epsilon']],
    ['a, b; c d e f', 9, ['a, b;', 'c d e f']],
    ['first-item, b c d e', 16, ['first-item,', 'b c d e']],
    // ...but a separator that would strand a near-empty line loses to a space.
    ['a, bbbbb cccc dddd eeee', 16, ['a, bbbbb cccc', 'dddd eeee']],
    // Plain spaces when there is no separator; the break eats its spaces.
    ['one two three four', 9, ['one two', 'three', 'four']],
    ['x  (rw)  (skill: y)', 8, ['x  (rw)', '(skill:', 'y)']],
    // Unbreakable tokens overhang alone on their own line.
    ['see /a/very/long/path/here ok', 10, ['see', '/a/very/long/path/here', 'ok']],
    ['/a/very/long/path/here', 5, ['/a/very/long/path/here']],
    // Only U+0020 breaks: a no-break space binds.
    ['aaaa\u00a0bbbb cc', 9, ['aaaa\u00a0bbbb', 'cc']],
    // Leading spaces stay on the first line.
    ['  indented text', 20, ['  indented text']],
  ])('%j at %i', (text, width, want) => {
    expect(wrapValue(text, width)).toEqual(want);
  });

  it('measures in cells: CJK and 🛑 count two', () => {
    // 'データ ab' is 6 code units but 9 cells.
    expect(wrapValue('データ ab', 8)).toEqual(['データ', 'ab']);
    expect(wrapValue('🛑 HOLE x', 8)).toEqual(['🛑 HOLE', 'x']);
    expect(wrapValue('🛑 HOLE x', 9)).toEqual(['🛑 HOLE x']);
  });

  it.each([
    // [text, width, want]: ASCII and non-ASCII words side by side on one line.
    ['~~~ ab', 6, ['~~~ ab']],
    ['~~~ ab', 5, ['~~~', 'ab']],
    // A combining accent is two code units and one cell.
    ['e\u0301e\u0301e\u0301 ab', 6, ['e\u0301e\u0301e\u0301 ab']],
    ['ab e\u0301e\u0301e\u0301', 6, ['ab e\u0301e\u0301e\u0301']],
    ['ab e\u0301e\u0301e\u0301 cd', 6, ['ab e\u0301e\u0301e\u0301', 'cd']],
    // A no-break space (U+00A0, the first non-ASCII) is one cell.
    ['a\u00a0b cd', 6, ['a\u00a0b cd']],
    ['データ ab', 9, ['データ ab']],
  ])('measures each word in cells, ASCII or not: %j at %i', (text, width, want) => {
    expect(wrapValue(text, width)).toEqual(want);
  });
});
