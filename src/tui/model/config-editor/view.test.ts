import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';

import { Session } from '../../../../test/support/editor.js';
import { editorScreen, wrapCells } from './view.js';

function screen(s: Session, width: number, height: number, scroll = 0) {
  const ctx = s.context();
  return editorScreen({ ...ctx, state: s.state, width, height, scroll });
}

const LONG =
  '[[mounts]]\nhost = "/home/u/src/a-rather-long-project-name/shared-library"\ntarget = "/opt/shared-library"\n' +
  '[[context]]\nname = "style"\ntext = "Prefer small functions; explain why, not what, in every comment you write."\n';

describe('wrapCells', () => {
  it.each([
    ['breaks at spaces', 'alpha beta gamma', 11, ['alpha beta', 'gamma']],
    ['keeps a fitting token whole', 'a /opt/shared-library', 20, ['a', '/opt/shared-library']],
    ['breaks a too-long path after a slash', '/aaaa/bbbb/cccc', 11, ['/aaaa/bbbb/', 'cccc']],
    ['counts wide characters as two cells', '日本語 x', 6, ['日本語', 'x']],
  ])('%s', (_name, text, width, lines) => {
    expect(wrapCells(text, width)).toEqual(lines);
  });
});

describe('the screen', () => {
  for (const [width, height] of [
    [48, 16],
    [80, 24],
    [160, 50],
  ] as const) {
    it(`at ${width}×${height} every line fits and the frame is at most ${height} lines`, () => {
      const s = new Session({ text: LONG });
      for (let i = 0; i < 40; i++) {
        const out = screen(s.press('down'), width, height);
        expect(out.lines.length).toBeLessThanOrEqual(height);
        for (const line of out.lines)
          expect(stringWidth(line.text), line.text).toBeLessThanOrEqual(width);
      }
    });
  }

  it('at 48 columns no token that fits a line is cut', () => {
    const s = new Session({ text: LONG });
    const text = screen(s, 48, 60)
      .lines.map((l) => l.text)
      .join('\n');
    for (const token of [
      '/opt/shared-library',
      'project',
      'GIT_COMMITTER_EMAIL',
      'git:user.email',
    ]) {
      expect(text).toContain(token);
    }
  });

  it('the selected row carries a marker, not only a colour', () => {
    const s = new Session({ text: LONG });
    s.select('mounts:m:/opt/shared-library');
    const lines = screen(s, 80, 30).lines;
    const selected = lines.filter((l) => l.tone === 'selected');
    expect(selected[0]?.text.startsWith('› ')).toBe(true);
    expect(lines.filter((l) => l.text.startsWith('› '))).toHaveLength(1);
  });

  it('escapes strings byre did not write', () => {
    const s = new Session({ text: 'env = { A = "x\\u001b[2Jy" }\n' });
    const text = screen(s, 80, 60)
      .lines.map((l) => l.text)
      .join('\n');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('x\\x1b[2Jy');
  });

  it('keeps the selection in view as it moves past the bottom', () => {
    const s = new Session({ text: LONG });
    let scroll = 0;
    for (let i = 0; i < 30; i++) {
      const out = screen(s.press('down'), 48, 16, scroll);
      scroll = out.scroll;
      expect(out.lines.some((l) => l.tone === 'selected')).toBe(true);
    }
    expect(scroll).toBeGreaterThan(0);
  });

  it('the header counts egress under an allowlist only', () => {
    const header = (text: string) =>
      screen(new Session({ text }), 160, 30)
        .lines.map((l) => l.text)
        .find((l) => l.startsWith('exposure: ')) ?? '';
    expect(header('egress = ["pypi.org"]\n')).toMatch(/· network open$/);
  });

  it('shows the file, unsaved state and the exposure summary in the header', () => {
    const s = new Session({ text: LONG });
    s.select('mounts:m:/opt/shared-library').press('right');
    const text = screen(s, 160, 30)
      .lines.map((l) => l.text)
      .join('\n');
    expect(text).toContain('byre config · project · unsaved');
    expect(text).toContain('/store/projects/app-123abc/byre.config');
    expect(text).toContain(
      'exposure: /workspace rw · 0 host mounts (+1 disabled) · 0 ports · 6 env vars · network open',
    );
  });

  it('names a cascade problem, located, in the header', () => {
    const s = new Session({ text: '[[mounts]]\nhost = "/gone"\ntarget = "/g"\n', hostPaths: [] });
    const text = screen(s, 120, 30)
      .lines.map((l) => l.text)
      .join('\n');
    expect(text).toMatch(
      /⚠ byre\.config:2:\d+ mounts\[0\]\.host: mount host "\/gone" does not exist/,
    );
  });
});
