import { describe, expect, it } from 'vitest';

import type { ToolResolution } from '../../engine/host-tools.js';
import { copyPathsToClipboard } from './copy.js';
import {
  clipboardTextForPaths,
  fileUriToPath,
  flavoursFromTypes,
  osc52Sequence,
  parseJxaPaths,
  parseUriList,
  planClipboardCopy,
  planClipboardRead,
} from './plan.js';
import { readClipboard } from './read.js';
import type { RunTool } from './run.js';

type RunResult = Awaited<ReturnType<RunTool>>;

function lookupOf(found: string[], declined: string[] = []): (t: string) => ToolResolution {
  return (tool) =>
    found.includes(tool)
      ? { kind: 'found', path: `/usr/bin/${tool}` }
      : declined.includes(tool)
        ? { kind: 'declined', tool, path: `/work/proj/bin/${tool}`, root: '/work/proj' }
        : { kind: 'absent' };
}

const X11 = { DISPLAY: ':0' };
const WAYLAND = { WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' };

describe('planClipboardCopy', () => {
  it.each<
    [
      string,
      NodeJS.Platform,
      Record<string, string>,
      string[],
      string[],
      boolean,
      string[],
      boolean,
    ]
  >([
    ['macOS pbcopy', 'darwin', {}, ['pbcopy'], [], false, ['pbcopy'], false],
    [
      'wayland: wl-copy then xclip',
      'linux',
      WAYLAND,
      ['wl-copy', 'xclip'],
      [],
      true,
      ['wl-copy', 'xclip'],
      true,
    ],
    ['X11 only skips wl-copy', 'linux', X11, ['wl-copy', 'xclip'], [], false, ['xclip'], false],
    ['no display: nothing but OSC 52', 'linux', {}, ['wl-copy', 'xclip'], [], true, [], true],
    ['pbcopy is macOS only', 'linux', X11, ['pbcopy'], [], true, [], true],
  ])('%s', (_n, platform, env, found, declined, tty, steps, osc52) => {
    const plan = planClipboardCopy({
      platform,
      env,
      lookup: lookupOf(found, declined),
      stderrIsTTY: tty,
    });
    expect(plan.steps.map((s) => s.tool)).toEqual(steps);
    expect(plan.steps.every((s) => s.path.startsWith('/'))).toBe(true);
    expect(plan.osc52).toBe(osc52);
  });

  it('names a declined tool and, with no terminal, says nothing was copied', () => {
    const plan = planClipboardCopy({
      platform: 'linux',
      env: X11,
      lookup: lookupOf([], ['xclip']),
      stderrIsTTY: false,
    });
    expect(plan.steps).toEqual([]);
    expect(plan.notes).toEqual([
      'clipboard: not using xclip — PATH resolves it through /work/proj/bin/xclip, inside /work/proj, which the box can write',
      'clipboard: paths not copied — no usable pbcopy, wl-copy or xclip, and stderr is not a terminal for OSC 52',
    ]);
  });
});

describe('clipboard text and OSC 52', () => {
  it('quotes only paths that need it', () => {
    expect(clipboardTextForPaths(['/inbox/a.pdf', "/inbox/it's here"])).toBe(
      `/inbox/a.pdf '/inbox/it'\\''s here'`,
    );
  });
  it('encodes OSC 52 and wraps it for tmux', () => {
    expect(osc52Sequence('hi', { tmux: false })).toBe('\u001b]52;c;aGk=\u0007');
    expect(osc52Sequence('hi', { tmux: true })).toBe(
      '\u001bPtmux;\u001b\u001b]52;c;aGk=\u0007\u001b\\',
    );
  });
});

function fakeRun(answers: Record<string, Partial<RunResult>>, calls: string[][] = []): RunTool {
  return async (file, args, opts) => {
    calls.push([file, ...args, ...(opts.input === undefined ? [] : [`<${opts.input}`])]);
    const a = answers[[file, ...args].join(' ')] ?? answers[file] ?? { code: 1 };
    return {
      code: a.code === undefined ? 0 : a.code,
      stdout: a.stdout ?? Buffer.alloc(0),
      timedOut: a.timedOut ?? false,
    };
  };
}

describe('copyPathsToClipboard', () => {
  it('falls through a failing tool to the next', async () => {
    const calls: string[][] = [];
    const r = await copyPathsToClipboard(['/inbox/a'], {
      platform: 'linux',
      env: WAYLAND,
      lookup: lookupOf(['wl-copy', 'xclip']),
      stderr: { isTTY: true, write: () => true },
      run: fakeRun({ '/usr/bin/wl-copy': { code: 1 }, '/usr/bin/xclip': { code: 0 } }, calls),
    });
    expect(r).toEqual({
      copied: 'tool',
      tool: 'xclip',
      notes: ['clipboard: wl-copy failed (exit 1)'],
    });
    expect(calls).toEqual([
      ['/usr/bin/wl-copy', '</inbox/a'],
      ['/usr/bin/xclip', '-selection', 'clipboard', '-in', '</inbox/a'],
    ]);
  });

  it('writes OSC 52 to a terminal stderr when no tool works', async () => {
    let written = '';
    const r = await copyPathsToClipboard(['/inbox/a'], {
      platform: 'linux',
      env: {},
      lookup: lookupOf([]),
      stderr: { isTTY: true, write: (s) => (written += s) },
      run: fakeRun({}),
    });
    expect(r.copied).toBe('osc52');
    expect(written).toBe(osc52Sequence('/inbox/a', { tmux: false }));
    expect(r.notes[0]).toMatch(/OSC 52/);
  });

  it('gives up with a note when stderr is not a terminal', async () => {
    const r = await copyPathsToClipboard(['/inbox/a'], {
      platform: 'linux',
      env: X11,
      lookup: lookupOf(['xclip']),
      stderr: { isTTY: false, write: () => true },
      run: fakeRun({ '/usr/bin/xclip': { timedOut: true, code: null } }),
    });
    expect(r.copied).toBe('none');
    expect(r.notes).toEqual([
      'clipboard: xclip failed (timed out)',
      'clipboard: paths not copied — every clipboard tool failed and stderr is not a terminal for OSC 52',
    ]);
  });
});

describe('planClipboardRead', () => {
  it('uses osascript, pngpaste and pbpaste on macOS', () => {
    const p = planClipboardRead({
      platform: 'darwin',
      env: {},
      lookup: lookupOf(['osascript', 'pbpaste']),
    });
    expect(p.types).toBeNull();
    expect(p.files?.path).toBe('/usr/bin/osascript');
    expect(p.image).toBeNull();
    expect(p.text?.args).toEqual(['-Prefer', 'txt']);
    expect(p.notes).toEqual(['clipboard: install pngpaste to deliver clipboard images']);
  });
  it('prefers wl-paste on Wayland, else xclip on X11', () => {
    expect(
      planClipboardRead({
        platform: 'linux',
        env: WAYLAND,
        lookup: lookupOf(['wl-paste', 'xclip']),
      }).types?.tool,
    ).toBe('wl-paste');
    expect(
      planClipboardRead({ platform: 'linux', env: WAYLAND, lookup: lookupOf(['xclip']) }).types
        ?.args,
    ).toEqual(['-selection', 'clipboard', '-out', '-target', 'TARGETS']);
    const none = planClipboardRead({ platform: 'linux', env: {}, lookup: lookupOf(['xclip']) });
    expect([none.files, none.image, none.text]).toEqual([null, null, null]);
    expect(none.notes[0]).toMatch(/cannot read/);
  });
});

describe('parsers', () => {
  it('reads flavours from a type listing', () => {
    expect([...flavoursFromTypes('TARGETS\ntext/uri-list\nUTF8_STRING\n')].sort()).toEqual([
      'files',
      'text',
    ]);
    expect([...flavoursFromTypes('image/png\n')]).toEqual(['image']);
  });
  it('parses uri lists and file URIs', () => {
    expect(parseUriList('# c\r\nfile:///a%20b\r\nhttp://x/y\nfile://localhost/c\n')).toEqual([
      '/a b',
      '/c',
    ]);
    expect(fileUriToPath('file://other-host/x')).toBeNull();
    expect(fileUriToPath('file:///bad%zz')).toBeNull();
  });
  it('parses the JXA JSON answer defensively', () => {
    expect(parseJxaPaths('["/a","/b c"]\n')).toEqual(['/a', '/b c']);
    expect(parseJxaPaths('garbage')).toEqual([]);
    expect(parseJxaPaths('{"a":1}')).toEqual([]);
  });
});

describe('readClipboard', () => {
  const xc = (target: string): string =>
    `/usr/bin/xclip -selection clipboard -out -target ${target}`;

  it('reads files and text but skips the image once files won', async () => {
    const calls: string[][] = [];
    const r = await readClipboard({
      platform: 'linux',
      env: X11,
      lookup: lookupOf(['xclip']),
      run: fakeRun(
        {
          [xc('TARGETS')]: { stdout: Buffer.from('text/uri-list\nimage/png\nUTF8_STRING\n') },
          [xc('text/uri-list')]: { stdout: Buffer.from('file:///x/a.pdf\n') },
          [xc('UTF8_STRING')]: { stdout: Buffer.from('a.pdf') },
        },
        calls,
      ),
    });
    expect(r.snapshot).toEqual({ files: ['/x/a.pdf'], image: null, text: 'a.pdf' });
    expect(calls.map((c) => c.at(-1))).toEqual(['TARGETS', 'text/uri-list', 'UTF8_STRING']);
  });

  it('reads only offered flavours', async () => {
    const r = await readClipboard({
      platform: 'linux',
      env: X11,
      lookup: lookupOf(['xclip']),
      run: fakeRun({
        [xc('TARGETS')]: { stdout: Buffer.from('image/png\n') },
        [xc('image/png')]: { stdout: Buffer.from([1, 2, 3]) },
      }),
    });
    expect(r.snapshot).toEqual({ files: [], image: new Uint8Array([1, 2, 3]), text: null });
  });

  it('abandons the read once the budget is spent', async () => {
    const r = await readClipboard({
      platform: 'darwin',
      env: {},
      lookup: lookupOf(['osascript', 'pngpaste', 'pbpaste']),
      run: fakeRun({ '/usr/bin/osascript': { timedOut: true, code: null } }),
    });
    expect(r.snapshot).toEqual({ files: [], image: null, text: null });
    expect(r.notes).toEqual(['clipboard: the read took over 2 minutes and was abandoned']);
  });
});
