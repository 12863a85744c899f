// Presets through the built binary: a cloned byre.preset changes nothing by
// itself (status notes it, the Dockerfile ignores it); apply in a pipe needs
// --yes; after apply, status is quiet until the preset or the store config
// drifts; the retired in-repo byre.config is refused with the rename remedy.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';

let root: string;
let project: string;
let home: string;

function byre(args: string[]) {
  return runBin(args, { cwd: project, home, env: { HOME: root } });
}

const storeConfig = (): string => path.join(home, 'projects', projectIdFor(project), 'byre.config');

function presetRow(): string {
  const data = JSON.parse(byre(['status', '--data']).stdout) as { preset_note: string | null };
  return data.preset_note ?? '';
}

useTempDir('cli-preset', (tmp) => {
  root = tmp;
  project = path.join(tmp, 'work', 'app');
  home = path.join(tmp, 'home');
  mkdirSync(project, { recursive: true });
});

describe('byre preset', () => {
  it('a cloned preset changes nothing until apply; then drift is a passive note', () => {
    writeFileSync(path.join(project, 'byre.preset'), 'apt = ["cowsay"]\n');
    expect(byre(['dockerfile']).stdout).not.toContain('cowsay');
    expect(presetRow()).toContain('ships byre.preset; nothing in it applies until you review it');

    const piped = byre(['preset', 'apply']);
    expect(piped.status).toBe(2);
    expect(piped.stderr).toContain('pass --yes');
    expect(existsSync(storeConfig())).toBe(false);

    const applied = byre(['preset', 'apply', '--yes']);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('+apt = ["cowsay"]');
    expect(readFileSync(storeConfig(), 'utf8')).toBe('apt = ["cowsay"]\n');
    expect(byre(['dockerfile']).stdout).toContain('cowsay');
    expect(presetRow()).toBe('');

    writeFileSync(path.join(project, 'byre.preset'), 'apt = ["cowsay", "jq"]\n');
    expect(presetRow()).toMatch(
      /has changed since it was applied .*review it with byre preset inspect/,
    );
    expect(byre(['dockerfile']).stdout).not.toContain("'jq'");
  });

  it('refuses the retired in-repo byre.config with the rename remedy', () => {
    writeFileSync(path.join(project, 'byre.config'), 'apt = ["cowsay"]\n');
    expect(presetRow()).toContain('retired preset name');
    const r = byre(['preset', 'inspect']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('rename it to byre.preset');
  });
});
