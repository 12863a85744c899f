// Engine tier for `byre config`: a mount added on the editor's screen (the
// built binary, driven in tmux like a user would) is what the next `byre
// develop` binds, on real docker and podman, and `byre status` attributes it
// to the project layer. One test per engine: the editor's rules are proven in
// the unit and tui tiers.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { addMountAndSave, byreBin, hasTmux, q, startPane } from '../tui/tmux.js';
import { flavorsUnderTest } from './engines.js';
import { engineCli, runByre, runningBox, testScope, waitFor } from './harness.js';

const rootFlavors = flavorsUnderTest().filter((f) => f.user === null);
const scope = testScope();

describe.skipIf(rootFlavors.length === 0).each(rootFlavors)('byre config on $label', (flavor) => {
  it('a mount added in the editor is bound by develop and attributed to the project by status', async () => {
    expect(hasTmux, 'the editor is driven in tmux; install it').toBe(true);
    const project = scope.project(flavor);
    project.writeConfig('# this project\n');
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
      `# this project\n\n[[mounts]]\nhost = "${shared}"\ntarget = "/opt/shared"\nmode = "ro"\n`,
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
    expect(await session.end()).toBe(0);
  });
});
