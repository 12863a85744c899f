import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../../test/support/golden.js';
import { testTempDir } from '../../../test/support/temp.js';

import { ByreError } from '../../errors.js';
import type { ToolResolution } from '../../engine/host-tools.js';
import { renderDesktopEntry } from './desktop.js';
import { renderDropletScript } from './droplet.js';
import { isByreIcon, renderIconIcns, renderIconPng } from './icon.js';
import { GUI_PATH_TAIL, hasGeneratedMarker, readIdentity, resolveDeliverApp } from './identity.js';
import { installDeliverApp, type RunCommand } from './install.js';
import { renderWorkflowDocument } from './quick-action.js';

const BYRE = '/opt/byre/bin/byre';

describe('generators (golden)', () => {
  it('renders the default .desktop entry', () => {
    expectGolden('deliver-app.desktop', renderDesktopEntry(resolveDeliverApp({ byrePath: BYRE })));
  });
  it('renders a labelled ssh .desktop entry', () => {
    const app = resolveDeliverApp({
      byrePath: BYRE,
      ssh: 'ssh://me@build.example:2222',
      box: 'ab12',
      remoteByre: '/home/me/bin/byre',
    });
    expectGolden('deliver-app-ssh.desktop', renderDesktopEntry(app));
  });
  it('renders the droplet AppleScript', () => {
    expectGolden(
      'deliver-app-droplet.applescript',
      renderDropletScript(resolveDeliverApp({ byrePath: BYRE, box: 'ab12' })),
    );
  });
  it('renders the Quick Action document', () => {
    expectGolden(
      'deliver-app-document.wflow',
      renderWorkflowDocument(resolveDeliverApp({ byrePath: BYRE })),
    );
  });
});

describe('quoting', () => {
  /** The generated app, its box baked in as `box`. */
  const boxed = (box: string) => resolveDeliverApp({ byrePath: BYRE, box });

  it.each([
    ['/usr/bin/byre', '/usr/bin/byre'],
    ['/Apps/My Byre/byre', '"/Apps/My Byre/byre"'],
    ['50%', '"50%%"'],
    ['a"b$c`d\\e', '"a\\\\"b\\\\$c\\\\`d\\\\\\\\e"'],
  ])('desktop Exec %j', (arg, want) => {
    const exec = renderDesktopEntry(boxed(arg))
      .split('\n')
      .find((l) => l.startsWith('Exec='));
    expect(exec).toBe(`Exec=${BYRE} deliver --box ${want} -- %F`);
  });
  it('AppleScript strings escape backslash and quote', () => {
    const property = renderDropletScript(boxed('a"b\\c'))
      .split('\n')
      .find((l) => l.startsWith('property deliverCommand'));
    expect(property).toBe(
      `property deliverCommand : "PATH=\\"$PATH:${GUI_PATH_TAIL}\\" ${BYRE} deliver --box 'a\\"b\\\\c'"`,
    );
  });
});

describe('identity', () => {
  it.each([
    ['ssh://host', 'host'],
    ['ssh://me@host.example:2222', 'host.example-2222'],
    ['ssh://[::1]:22', '1-22'],
  ])('labels %s as %s', (ssh, want) => {
    expect(resolveDeliverApp({ byrePath: BYRE, ssh }).label).toBe(want);
  });
  it('labels and identifies only labelled installs', () => {
    expect(resolveDeliverApp({ byrePath: BYRE }).identity).toBeNull();
    const a = resolveDeliverApp({ byrePath: BYRE, ssh: 'ssh://h', label: 'work' });
    const b = resolveDeliverApp({
      byrePath: '/elsewhere/byre',
      ssh: 'ssh://h',
      label: 'work',
      remoteByre: '/x',
    });
    const c = resolveDeliverApp({ byrePath: BYRE, ssh: 'ssh://other', label: 'work' });
    expect(a.identity).toMatch(/^da1-[0-9a-f]{16}$/);
    expect(b.identity).toBe(a.identity);
    expect(c.identity).not.toBe(a.identity);
    const text = renderDesktopEntry(a);
    expect(hasGeneratedMarker(text)).toBe(true);
    expect(readIdentity(text)).toBe(a.identity);
  });
  it.each<[Parameters<typeof resolveDeliverApp>[0], string]>([
    [{ byrePath: 'byre' }, 'install-app.relative-byre'],
    [{ byrePath: BYRE, label: 'a/b' }, 'install-app.bad-label'],
    [{ byrePath: BYRE, label: '-x' }, 'install-app.bad-label'],
    [{ byrePath: BYRE, box: 'a\nb' }, 'install-app.control-char'],
  ])('rejects %j with %s', (spec, rule) => {
    expect(() => resolveDeliverApp(spec)).toThrow(expect.objectContaining({ rule }));
  });
});

describe('icon', () => {
  it('is a valid 64x64 RGBA PNG with correct CRCs, tagged as byre', () => {
    const png = Buffer.from(renderIconPng());
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    let at = 8;
    const idat: Buffer[] = [];
    const types: string[] = [];
    while (at < png.length) {
      const len = png.readUInt32BE(at);
      const type = png.subarray(at + 4, at + 8).toString('latin1');
      types.push(type);
      if (type === 'IHDR') {
        expect(png.readUInt32BE(at + 8)).toBe(64);
        expect(png.readUInt32BE(at + 12)).toBe(64);
      }
      if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
      at += 12 + len;
    }
    expect(types).toEqual(['IHDR', 'tEXt', 'IDAT', 'IEND']);
    expect(inflateSync(Buffer.concat(idat)).length).toBe(64 * (1 + 64 * 4));
    expect(isByreIcon(png)).toBe(true);
    expect(isByreIcon(new Uint8Array(100))).toBe(false);
    expect(Buffer.from(renderIconIcns()).subarray(0, 4).toString()).toBe('icns');
  });
});

const tempHome = (): string => testTempDir('app');
const none = (): ToolResolution => ({ kind: 'absent' });
const desktop = (home: string, stem = 'byre-deliver'): string =>
  path.join(home, '.local/share/applications', `${stem}.desktop`);
const icon = (home: string): string =>
  path.join(home, '.local/share/icons/hicolor/64x64/apps/byre-deliver.png');

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ByreError) return e.rule;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('installDeliverApp on Linux', () => {
  const linux = (home: string, extra: Partial<Parameters<typeof installDeliverApp>[0]> = {}) =>
    installDeliverApp({ byrePath: BYRE, home, platform: 'linux', lookup: none, ...extra });

  it('writes the .desktop entry and icon and returns their paths', async () => {
    const home = tempHome();
    const r = await linux(home);
    expect(r.installed).toEqual([desktop(home), icon(home)]);
    expect(r.notes).toEqual([
      'deliver app: the macOS droplet and Quick Action need osacompile; skipped on this host',
    ]);
    expect(readFileSync(desktop(home), 'utf8')).toContain(`Exec=${BYRE} deliver -- %F`);
    expect(isByreIcon(readFileSync(icon(home)))).toBe(true);
  });

  it('regenerates its own files', async () => {
    const home = tempHome();
    await linux(home);
    const r = await linux(home, { byrePath: '/new/byre' });
    expect(r.installed).toHaveLength(2);
    expect(readFileSync(desktop(home), 'utf8')).toContain('Exec=/new/byre deliver -- %F');
  });

  it('refuses a same-named file byre did not write, and writes nothing', async () => {
    const home = tempHome();
    mkdirSync(path.dirname(desktop(home)), { recursive: true });
    writeFileSync(desktop(home), '[Desktop Entry]\nName=mine\n');
    expect(await refusal(linux(home))).toBe('install-app.foreign-file');
    expect(readFileSync(desktop(home), 'utf8')).toBe('[Desktop Entry]\nName=mine\n');
    expect(existsSync(icon(home))).toBe(false);
  });

  it('only counts the marker in the header', async () => {
    const home = tempHome();
    mkdirSync(path.dirname(desktop(home)), { recursive: true });
    writeFileSync(desktop(home), `${'#'.repeat(2000)}\n# byre-generated: deliver-app\n`);
    expect(await refusal(linux(home))).toBe('install-app.foreign-file');
  });

  it('refuses a symlink where the entry goes', async () => {
    const home = tempHome();
    mkdirSync(path.dirname(desktop(home)), { recursive: true });
    symlinkSync('/etc/hostname', desktop(home));
    expect(await refusal(linux(home))).toBe('install-app.foreign-file');
  });

  it('refuses a FIFO where the entry goes without waiting on it', async () => {
    const home = tempHome();
    mkdirSync(path.dirname(desktop(home)), { recursive: true });
    execFileSync('mkfifo', [desktop(home)]);
    expect(await refusal(linux(home))).toBe('install-app.foreign-file');
  });

  it('leaves a link or a FIFO where the icon goes alone, unread and unfollowed', async () => {
    const home = tempHome();
    const ours = path.join(home, 'elsewhere.png');
    writeFileSync(ours, renderIconPng());
    mkdirSync(path.dirname(icon(home)), { recursive: true });
    symlinkSync(ours, icon(home));
    expect((await linux(home)).installed).toEqual([desktop(home)]);
    expect(readFileSync(ours)).toEqual(Buffer.from(renderIconPng()));
    execFileSync('rm', [icon(home)]);
    execFileSync('mkfifo', [icon(home)]);
    expect((await linux(home)).installed).toEqual([desktop(home)]);
  });

  it('leaves nothing but what it wrote beside the entry (no temp file)', async () => {
    const home = tempHome();
    await linux(home);
    await linux(home);
    expect(readdirSync(path.dirname(desktop(home)))).toEqual(['byre-deliver.desktop']);
  });

  it('installs labelled targets side by side and refuses a clashing label', async () => {
    const home = tempHome();
    await linux(home);
    const a = await linux(home, { ssh: 'ssh://build.example' });
    const b = await linux(home, { ssh: 'ssh://gpu.example', label: 'gpu' });
    expect(a.installed[0]).toBe(desktop(home, 'byre-deliver-build.example'));
    expect(b.installed[0]).toBe(desktop(home, 'byre-deliver-gpu'));
    expect(existsSync(desktop(home))).toBe(true);
    // Same label, same target: regenerated. Same label, another target: refused.
    await linux(home, { ssh: 'ssh://gpu.example', label: 'gpu', byrePath: '/new/byre' });
    expect(await refusal(linux(home, { ssh: 'ssh://other.example', label: 'gpu' }))).toBe(
      'install-app.label-clash',
    );
    expect(readFileSync(desktop(home, 'byre-deliver-gpu'), 'utf8')).toContain('ssh://gpu.example');
  });

  it('judges the icon by content: replaces its own, leaves a foreign one with a note', async () => {
    const home = tempHome();
    mkdirSync(path.dirname(icon(home)), { recursive: true });
    writeFileSync(icon(home), 'not a png');
    const r = await linux(home);
    expect(r.installed).toEqual([desktop(home)]);
    expect(r.notes.at(-1)).toBe(`deliver app: left ${icon(home)} alone — that icon is not byre's`);
    expect(readFileSync(icon(home), 'utf8')).toBe('not a png');

    const older = Buffer.concat([Buffer.from(renderIconPng(32))]);
    writeFileSync(icon(home), older);
    expect((await linux(home)).installed).toEqual([desktop(home), icon(home)]);
    expect(readFileSync(icon(home))).toEqual(Buffer.from(renderIconPng()));
  });
});

describe('installDeliverApp on macOS', () => {
  const found =
    (tools: string[]) =>
    (t: string): ToolResolution =>
      tools.includes(t) ? { kind: 'found', path: `/usr/bin/${t}` } : { kind: 'absent' };
  // A stand-in osacompile: creates the applet skeleton at -o.
  const fakeRun =
    (calls: string[][]): RunCommand =>
    async (file, args) => {
      calls.push([file, ...args]);
      if (file === '/usr/bin/osacompile') {
        const out = args[1] ?? '';
        mkdirSync(path.join(out, 'Contents/Resources'), { recursive: true });
        writeFileSync(path.join(out, 'Contents/Info.plist'), '<plist/>');
      }
      return { code: 0, stderr: '' };
    };

  it('assembles, marks and signs the droplet, and writes the Quick Action', async () => {
    const home = tempHome();
    const calls: string[][] = [];
    const r = await installDeliverApp({
      byrePath: BYRE,
      home,
      platform: 'darwin',
      lookup: found(['osacompile', 'codesign', 'plutil']),
      run: fakeRun(calls),
    });
    const app = path.join(home, 'Applications/Byre Deliver.app');
    const wf = path.join(home, 'Library/Services/Deliver to Byre.workflow');
    expect(r.installed).toEqual([app, wf]);
    const staged = path.join(home, 'Applications/.Byre Deliver.staged.app');
    expect(calls.map((c) => c[0])).toEqual([
      '/usr/bin/osacompile',
      '/usr/bin/plutil',
      '/usr/bin/codesign',
    ]);
    expect(calls[0]?.slice(1, 3)).toEqual(['-o', staged]);
    expect(calls[2]).toEqual(['/usr/bin/codesign', '--force', '--deep', '--sign', '-', staged]);
    expect(
      hasGeneratedMarker(
        readFileSync(path.join(app, 'Contents/Resources/droplet.applescript'), 'utf8'),
      ),
    ).toBe(true);
    expect(existsSync(path.join(app, 'Contents/Resources/droplet.icns'))).toBe(true);
    expect(existsSync(staged)).toBe(false);
    expect(readFileSync(path.join(wf, 'Contents/Info.plist'), 'utf8')).toContain(
      '<string>Deliver to Byre</string>',
    );
    // Regenerating replaces both.
    expect(
      (
        await installDeliverApp({
          byrePath: BYRE,
          home,
          platform: 'darwin',
          lookup: found(['osacompile']),
          run: fakeRun([]),
        })
      ).installed,
    ).toEqual([app, wf]);
  });

  it('refuses an app bundle byre did not build', async () => {
    const home = tempHome();
    mkdirSync(path.join(home, 'Applications/Byre Deliver.app/Contents'), { recursive: true });
    const rule = await refusal(
      installDeliverApp({
        byrePath: BYRE,
        home,
        platform: 'darwin',
        lookup: found(['osacompile']),
        run: fakeRun([]),
      }),
    );
    expect(rule).toBe('install-app.foreign-file');
    expect(existsSync(path.join(home, 'Library/Services/Deliver to Byre.workflow'))).toBe(false);
  });

  it('skips the droplet with a note when osacompile is missing', async () => {
    const home = tempHome();
    const r = await installDeliverApp({
      byrePath: BYRE,
      home,
      platform: 'darwin',
      lookup: none,
      run: fakeRun([]),
    });
    expect(r.installed).toEqual([path.join(home, 'Library/Services/Deliver to Byre.workflow')]);
    expect(r.notes).toContain(
      'deliver app: osacompile is not usable here; the droplet app was skipped',
    );
  });
});
