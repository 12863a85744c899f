// TUI tier: `byre config` (the built binary) in a private tmux server, driven
// by real keys: what it writes, where, and what it refuses before the screen
// opens. The editor's rules are proven in the unit tier; this proves the
// screen, the keys and the writer end to end.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { projectIdFor } from '../../src/project/identity.js';
import { withSetupLock } from '../../src/host/lock.js';
import { projectStorePaths } from '../../src/project/store-layout.js';
import { NO_WALL_EVENTS } from '../../src/status/wall-events.js';
import {
  byreBin,
  hasTmux,
  q,
  startPane,
  tmuxGate,
  tuiTempDir,
  addMountAndSave,
  selectRow,
  waitForScreen,
  type Pane,
} from './tmux.js';

tmuxGate();

interface Project {
  dir: string;
  home: string;
  config: string;
  lib: string;
}

function project(): Project {
  const base = tuiTempDir();
  const dir = path.join(base, 'app');
  const home = path.join(base, 'store');
  const lib = path.join(base, 'shared-library');
  for (const d of [dir, home, lib]) mkdirSync(d, { recursive: true });
  return { dir, home, lib, config: path.join(home, 'projects', projectIdFor(dir), 'byre.config') };
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
}

function open(
  p: Project,
  args = '',
  size = { width: 100, height: 30 },
  extra: Record<string, string> = {},
): Pane {
  const vars = { TERM: 'xterm-256color', EDITOR: 'true', ...extra };
  const set = Object.entries(vars)
    .map(([k, v]) => `${k}=${q(v)}`)
    .join(' ');
  const env = `env -u CI -u NO_COLOR -u VISUAL BYRE_HOME=${q(p.home)} BYRE_ALLOW_ROOT=1 ${set}`;
  return startPane(`${env} ${q(byreBin)} config ${args}`, { ...size, cwd: p.dir });
}

/** An SGR sequence that sets a colour or an attribute (not a bare reset). */
const STYLE = /\u001b\[(?!0?m)[0-9;]*m/;

const ready = (pane: Pane): Promise<string> => waitForScreen(pane, /exposure: /);

describe.runIf(hasTmux)('byre config in tmux', { timeout: 60_000 }, () => {
  it('adds a mount, saves and quits: the file gains exactly that mount, comments intact', async () => {
    const p = project();
    const before = '# my notes on this project\nbase = "debian:bookworm"  # pinned\n';
    write(p.config, before);
    const pane = open(p);
    await addMountAndSave(pane, p.lib, '/opt/shared-library');
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe(
      `${before}\n[[mounts]]\nhost = "${p.lib}"\ntarget = "/opt/shared-library"\nmode = "ro"\n`,
    );
  });

  // develop's containment rules run inline: a mount of ~ (which holds the
  // store) is refused in the form, never saved for develop to refuse later.
  it('refuses a mount of ~ that holds the store, inline, and writes nothing', async () => {
    const p = project();
    const base = path.dirname(p.home);
    const pane = open(p, '', { width: 200, height: 30 }, { HOME: base });
    await waitForScreen(pane, /exposure: .* · 0 host mounts · /);
    await selectRow(pane, /\+ add a mount/);
    pane.keys('Enter');
    await waitForScreen(pane, 'New mount');
    pane.type('~');
    pane.keys('Down');
    await waitForScreen(pane, /› target: +▏/);
    pane.type('/home/dev/h');
    pane.keys('Enter');
    const screen = await waitForScreen(pane, 'containment.store');
    expect(screen).toMatch(
      /mounts\[0\]\.host: the mount ~ -> \/home\/dev\/h \(ro\) contains byre's store/,
    );
    pane.keys('Escape');
    await waitForScreen(pane, /exposure: .* · 0 host mounts · /);
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(existsSync(p.config)).toBe(false);
  });

  it('removing an inherited port writes the removal marker in this file only', async () => {
    const p = project();
    const layer = path.join(p.home, 'layers', 'work', 'layer.config');
    const layerText = '# shared baseline\n[[ports]]\ncontainer = 3000\n';
    write(layer, layerText);
    write(p.config, 'extends = "work"\n');
    const pane = open(p);
    await ready(pane);
    await selectRow(pane, /127\.0\.0\.1:3000 → 3000/);
    expect(pane.screen()).toMatch(/3000 → 3000\s+layer:work/);
    pane.keys('x');
    await waitForScreen(pane, 'removal marker written here for port 3000');
    pane.keys('C-s');
    await waitForScreen(pane, /saved /);
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe(
      'extends = "work"\n\n[[ports]]\ncontainer = 3000\nremove = true\n',
    );
    expect(readFileSync(layer, 'utf8')).toBe(layerText);
  });

  it('quitting with unsaved changes asks, and discarding leaves the file as it was', async () => {
    const p = project();
    write(p.config, 'apt = ["git"]\n');
    const pane = open(p);
    await ready(pane);
    await selectRow(pane, /^› \s*git\b/);
    pane.keys('x');
    await waitForScreen(pane, '· unsaved');
    pane.keys('C-q');
    await waitForScreen(pane, 'd discard and quit');
    pane.keys('d');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe('apt = ["git"]\n');
  });

  it('refuses a file that does not load before the screen opens, located', async () => {
    const p = project();
    write(p.config, 'base = "ok"\n[[mounts]]\nhost = "relative"\ntarget = "/x"\n');
    const pane = open(p, '', { width: 250, height: 10 });
    expect(await pane.exit()).toBe('1');
    const screen = pane.screen();
    expect(screen).toMatch(/byre\.config:3:\d+ \(key mounts\[0\]\.host\)/);
    expect(screen).not.toContain('exposure:');
  });

  it('a name the last walled session refused is one key from the allowlist, at the layer edited', async () => {
    const p = project();
    write(p.config, 'skills = ["firewall"]\n');
    const id = projectIdFor(p.dir);
    const names = [
      { name: 'evil.example', qtypes: ['A'], count: 12, first: 1764660000, last: 1764660009 },
    ];
    write(
      path.join(projectStorePaths(p.home, id).launches, `last-session-${id}.json`),
      JSON.stringify({
        format: 'byre-wall-record',
        version: 1,
        launch: 'a'.repeat(64),
        engine: 'docker',
        ended: 1764660060,
        events: { ...NO_WALL_EVENTS, names },
      }),
    );
    const pane = open(p, '--global');
    await waitForScreen(pane, 'byre config · global (default.config)');
    await selectRow(pane, /\+ evil\.example +refused ×12 last session/);
    pane.keys('Right');
    await waitForScreen(pane, 'the next launch reaches it');
    pane.keys('C-s');
    await waitForScreen(pane, /saved /);
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(path.join(p.home, 'default.config'), 'utf8')).toMatch(
      /\negress = \["evil\.example:443"\]\n$/,
    );
    expect(readFileSync(p.config, 'utf8')).toBe('skills = ["firewall"]\n');
  });

  it('--global and --layer write where they say', async () => {
    const p = project();
    const global = open(p, '--global');
    await waitForScreen(global, 'byre config · global (default.config)');
    await selectRow(global, /Skip questions/);
    global.keys('Right', 'C-s');
    await waitForScreen(global, /saved /);
    global.keys('C-q');
    expect(await global.exit()).toBe('0');
    // A new default.config starts with the comment saying what it is.
    expect(readFileSync(path.join(p.home, 'default.config'), 'utf8')).toMatch(
      /^# byre default\.config: .*\n\[defaults\]\nskip_questions = true\n$/s,
    );

    write(path.join(p.home, 'layers', 'team', 'layer.config'), '# team\n');
    const layer = open(p, '--layer team');
    await waitForScreen(layer, 'byre config · layer team');
    await selectRow(layer, /Seed prefs/);
    layer.keys('Right', 'C-s');
    await waitForScreen(layer, /saved /);
    layer.keys('C-q');
    expect(await layer.exit()).toBe('0');
    expect(readFileSync(path.join(p.home, 'layers', 'team', 'layer.config'), 'utf8')).toBe(
      '# team\nseed_prefs = true\n',
    );
  });

  it('at 48 columns nothing is cut mid-token', async () => {
    const p = project();
    write(p.config, `[[mounts]]\nhost = "${p.lib}"\ntarget = "/opt/shared-library"\n`);
    const pane = open(p, '', { width: 48, height: 16 });
    const screen = await ready(pane);
    const lines = screen.split('\n');
    expect(lines.every((l) => [...l].length <= 48)).toBe(true);
    // The host path is longer than a line would hold beside the rest: it
    // wraps at a space, and each token stays whole on one line.
    for (const token of ['/opt/shared-library', 'project', 'GRANTS']) {
      expect(
        lines.some((l) => l.includes(token)),
        token,
      ).toBe(true);
    }
    expect(screen).toContain(path.basename(p.lib));
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
  });

  it('^s writes under the project’s setup lock: nothing lands while another byre holds it', async () => {
    const p = project();
    write(p.config, 'apt = ["git", "jq"]\n');
    const pane = open(p);
    await ready(pane);
    await selectRow(pane, /^› \s*git\b/);
    pane.keys('x');
    await waitForScreen(pane, '· unsaved');
    await withSetupLock(projectStorePaths(p.home, projectIdFor(p.dir)), async () => {
      pane.keys('C-s');
      // Held by this test (as develop holds it while it reads the config): the save waits.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(readFileSync(p.config, 'utf8')).toBe('apt = ["git", "jq"]\n');
      expect(pane.screen()).not.toMatch(/^saved /m);
    });
    await waitForScreen(pane, /^saved /m);
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe('apt = ["jq"]\n');
  });

  it('^e hands the whole file to $EDITOR and takes back what it leaves, unsaved until ^s', async () => {
    const p = project();
    write(p.config, '# mine\nbase = "debian:bookworm"\n');
    const pane = open(p, '', undefined, { EDITOR: 'sed -i s/bookworm/trixie/' });
    await ready(pane);
    pane.keys('C-e');
    await waitForScreen(pane, '· unsaved');
    expect(pane.screen()).toContain('debian:trixie');
    expect(readFileSync(p.config, 'utf8')).toContain('bookworm');
    pane.keys('C-s');
    await waitForScreen(pane, /^saved /m);
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe('# mine\nbase = "debian:trixie"\n');
  });

  it('a save over a file changed on disk applies this session’s edits again over the new text', async () => {
    const p = project();
    write(p.config, 'apt = ["git", "jq"]\n');
    const pane = open(p, '', { width: 200, height: 30 });
    await ready(pane);
    await selectRow(pane, /^› \s*git\b/);
    pane.keys('x');
    await waitForScreen(pane, '· unsaved');
    write(p.config, '# added by hand meanwhile\napt = ["git", "jq"]\nbase = "alpine:3"\n');
    pane.keys('C-s');
    await waitForScreen(pane, 'it had changed on disk, and your changes were applied over it');
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe(
      '# added by hand meanwhile\napt = ["jq"]\nbase = "alpine:3"\n',
    );
  });

  it('a buffer from $EDITOR is not saved over a file changed on disk', async () => {
    const p = project();
    write(p.config, 'base = "debian:bookworm"\n');
    const pane = open(p, '', { width: 160, height: 30 }, { EDITOR: 'sed -i s/bookworm/trixie/' });
    await ready(pane);
    pane.keys('C-e');
    await waitForScreen(pane, '· unsaved');
    write(p.config, 'base = "alpine:3"\n');
    pane.keys('C-s');
    await waitForScreen(pane, 'changed on disk while you were editing it');
    pane.keys('C-q');
    await waitForScreen(pane, 'd discard and quit');
    pane.keys('d');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(p.config, 'utf8')).toBe('base = "alpine:3"\n');
  });

  it('? shows the keys and the selected key’s description; any key closes it', async () => {
    const p = project();
    const pane = open(p);
    await ready(pane);
    await selectRow(pane, /Mounts|add a mount/);
    pane.keys('?');
    await waitForScreen(pane, 'any key closes help');
    expect(pane.screen()).toContain('^q quit (asks when there are unsaved changes)');
    expect(pane.screen()).toMatch(/Mounts: /);
    pane.keys('z');
    await waitForScreen(pane, 'GRANTS');
    expect(pane.screen()).not.toContain('any key closes help');
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
  });

  it('NO_COLOR drops the colour, not the rows; TERM=dumb also stays off the alternate screen', async () => {
    const p = project();
    write(p.config, `[[mounts]]\nhost = "${p.lib}"\ntarget = "/opt/lib"\ndisabled = true\n`);
    const screens: Record<string, { text: string; styled: boolean; alternate: boolean }> = {};
    for (const [name, extra] of [
      ['colour', {}],
      ['NO_COLOR', { NO_COLOR: '1' }],
      ['dumb', { TERM: 'dumb' }],
    ] as const) {
      const pane = open(p, '', undefined, extra);
      const text = await ready(pane);
      screens[name] = { text, styled: STYLE.test(pane.styled()), alternate: pane.alternate() };
      pane.keys('C-q');
      expect(await pane.exit()).toBe('0');
    }
    expect(screens['colour']).toMatchObject({ styled: true, alternate: true });
    expect(screens['NO_COLOR']).toMatchObject({ styled: false, alternate: true });
    expect(screens['dumb']).toMatchObject({ styled: false, alternate: false });
    for (const name of ['NO_COLOR', 'dumb']) {
      expect(screens[name]?.text, name).toBe(screens['colour']?.text);
    }
  });
});
