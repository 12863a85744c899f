// Engine tier for `byre config`: a mount added on the editor's screen (the
// built binary, driven in tmux like a user would) is what the next `byre
// develop` binds, on real docker and podman, and `byre status` attributes it
// to the project layer; a machine volume's data is not cleared while that
// session runs, and is once it has ended. One test per engine: the editor's rules are proven in
// the unit and tui tiers.

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  addMountAndSave,
  byreBin,
  hasTmux,
  q,
  selectRow,
  startPane,
  waitForScreen,
} from '../tui/tmux.js';
import { flavorsUnderTest } from './engines.js';
import { engineCli, runByre, runningBox, testScope, waitFor } from './harness.js';

const rootFlavors = flavorsUnderTest().filter((f) => f.user === null);
const scope = testScope();

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)('byre config on $label', (flavor) => {
  it('a mount added in the editor is bound by develop and attributed by status; machine volume data clears only once no session runs', async () => {
    expect(hasTmux, 'the editor is driven in tmux; install it').toBe(true);
    const project = scope.project(flavor);
    // A machine-scoped volume (swept by its byretest name if the test fails),
    // named for this run: the other engine's lane runs this test at the same
    // time, and clearing looks on every engine for a running box mounting it.
    const name = `byretest-data-${randomBytes(3).toString('hex')}`;
    const initial = `# this project\n[[volumes]]\nname = "${name}"\nrole = "cache"\ntarget = "/opt/data"\nscope = "machine"\n`;
    const volume = `byre-machine-u${process.getuid?.() ?? 0}-${name}`;
    project.writeConfig(initial);
    const shared = path.join(project.root, 'shared');
    mkdirSync(shared);
    writeFileSync(path.join(shared, 'marker'), 'from the host\n');

    const env = `env -u CI BYRE_HOME=${q(project.home)} BYRE_ALLOW_ROOT=1 TERM=xterm-256color`;
    const pane = startPane(`${env} ${q(byreBin)} config`, {
      width: 120,
      height: 40,
      cwd: project.dir,
    });
    await addMountAndSave(pane, shared, '/opt/shared');
    pane.keys('C-q');
    expect(await pane.exit()).toBe('0');
    expect(readFileSync(path.join(project.store, 'byre.config'), 'utf8')).toBe(
      `${initial}\n[[mounts]]\nhost = "${shared}"\ntarget = "/opt/shared"\nmode = "ro"\n`,
    );

    const session = scope.start(project, ['develop']);
    const id = await waitFor('the box', () => runningBox(project), 600_000);
    expect(engineCli(project, ['exec', id, 'cat', '/opt/shared/marker'])).toBe('from the host\n');

    const data = JSON.parse(runByre(project, ['status', '--data']).stdout) as {
      subject: string;
      binds: { host: string; target: string; mode: string; source: string }[];
    };
    expect(data.subject).toBe('running_box');
    expect(data.binds).toContainEqual(
      expect.objectContaining({
        host: shared,
        target: '/opt/shared',
        mode: 'ro',
        source: 'project',
      }),
    );
    // Volume data: clearing a machine volume is refused while a session runs, then done.
    const volumes = (): string[] => engineCli(project, ['volume', 'ls', '-q']).split('\n');
    expect(volumes()).toContain(volume);
    expect(await clearVolumeData(project, env, name)).toMatch(/kept: 1 running byre box mounts it/);
    expect(volumes()).toContain(volume);
    expect(await session.end()).toBe(0);
    expect(await clearVolumeData(project, env, name)).toMatch(
      new RegExp(`${volume} cleared \\(deleted on ${flavor.engine}\\)`),
    );
    expect(volumes()).not.toContain(volume);
  });
});

/** Opens the editor, clears the named volume's data, and returns what the footer said. */
async function clearVolumeData(
  project: { dir: string },
  env: string,
  name: string,
): Promise<string> {
  const pane = startPane(`${env} ${q(byreBin)} config`, {
    width: 200,
    height: 40,
    cwd: project.dir,
  });
  await waitForScreen(pane, /exposure: /);
  await selectRow(pane, new RegExp(`${name} data`));
  pane.keys('Enter');
  await waitForScreen(pane, 'clear it: delete the volume on every engine');
  pane.keys('Down', 'Enter');
  const screen = await waitForScreen(pane, /kept: |cleared |not cleared/, 120_000);
  pane.keys('C-q');
  expect(await pane.exit()).toBe('0');
  return screen;
}
