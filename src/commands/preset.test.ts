import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeIo } from '../../test/support/io.js';
import { useHttpsServer } from '../../test/support/https.js';
import { testTempDir } from '../../test/support/temp.js';
import { ByreError } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import { sha256Hex } from '../skills/digest.js';
import { configDiff, presetApplyCommand, presetInspectCommand } from './preset.js';

const PRESET = [
  '# the team preset',
  'agent = "claude"',
  'skills = ["firewall"]',
  'egress = ["registry.npmjs.org"]',
  '',
  '[[mcp]]',
  'name = "docs"',
  'url = "https://docs.example.com/mcp"',
  'env = ["DOCS_TOKEN"]',
  '',
].join('\n');

function setup(preset: string | null = PRESET) {
  const root = testTempDir('preset');
  const project = path.join(root, 'work', 'app');
  const home = path.join(root, 'store');
  mkdirSync(project, { recursive: true });
  if (preset !== null) writeFileSync(path.join(project, 'byre.preset'), preset);
  const io = fakeIo({
    cwd: project,
    env: { BYRE_HOME: home, HOME: root, PATH: process.env['PATH'] },
  });
  const store = path.join(home, 'projects', projectIdFor(project));
  return {
    root,
    project,
    home,
    io,
    config: path.join(store, 'byre.config'),
    applied: path.join(store, 'applied'),
  };
}

describe('byre preset inspect', () => {
  it('reviews every grant the composed box would have, attributed, and diffs the store config', async () => {
    const t = setup();
    await presetInspectCommand(t.io, undefined);
    const out = t.io.out;
    expect(out).toContain(`The box ${path.join(t.project, 'byre.preset')} would make`);
    expect(out).toMatch(/^Agent: +byre\/claude {2}\(project\)$/m);
    expect(out).toMatch(/^Network: +deny-by-default {2}\(skill: byre\/firewall\)$/m);
    expect(out).toMatch(/^ +docs\.example\.com:443 {2}\(mcp:docs\)$/m);
    expect(out).toMatch(/^ +registry\.npmjs\.org:443 {2}\(config\)$/m);
    expect(out).toMatch(
      /^MCP servers: +docs {2}https:\/\/docs\.example\.com\/mcp {2}\(project; reads DOCS_TOKEN\)$/m,
    );
    expect(out).toMatch(/^ +delivered to byre\/claude$/m);
    for (const label of ['Project id', 'Engine', 'Container', 'Config files', 'Next launch']) {
      expect(out).not.toMatch(new RegExp(`^${label}:`, 'm'));
    }
    expect(out).toContain('--- /dev/null\t(not created yet)');
    expect(out).toContain('+agent = "claude"');
    expect(existsSync(t.config)).toBe(false);
  });

  it('names a package the preset needs that is not installed', async () => {
    const t = setup('skills = ["acme/absent"]\n');
    await presetInspectCommand(t.io, undefined);
    expect(t.io.err).toContain('the preset needs skill acme/absent, which is not installed');
    expect(t.io.out).toMatch(/^Skills: +unresolved/m);
  });

  it.each([
    ['the retired in-repo name', 'byre.config', 'preset.legacy-name'],
    ['a missing file', 'nope.preset', 'preset.missing'],
  ])('refuses %s', async (_what, name, rule) => {
    const t = setup(null);
    if (name === 'byre.config') writeFileSync(path.join(t.project, name), 'agent = "claude"\n');
    await expect(presetInspectCommand(t.io, name)).rejects.toMatchObject({ rule });
  });

  it('the default ./byre.preset missing but byre.config there gets the rename remedy', async () => {
    const t = setup(null);
    writeFileSync(path.join(t.project, 'byre.config'), 'agent = "claude"\n');
    await expect(presetInspectCommand(t.io, undefined)).rejects.toMatchObject({
      rule: 'preset.legacy-name',
      remedy: expect.stringContaining('rename it to byre.preset'),
    });
  });

  it('an invalid preset is located in the preset file', async () => {
    const t = setup('atp = ["jq"]\n');
    await expect(presetInspectCommand(t.io, undefined)).rejects.toMatchObject({
      rule: 'config.unknown-key',
      location: { file: path.join(t.project, 'byre.preset'), line: 1, column: 1 },
    });
  });
});

describe('byre preset apply', () => {
  it('writes nothing when the answer is no', async () => {
    const t = setup();
    await expect(
      presetApplyCommand(t.io, undefined, {}, { confirm: () => Promise.resolve(false) }),
    ).rejects.toMatchObject({ rule: 'preset.declined' });
    expect(existsSync(t.config)).toBe(false);
    expect(existsSync(t.applied)).toBe(false);
  });

  it('writes the whole file and the applied marker on yes; again, the diff says no change', async () => {
    const t = setup();
    await presetApplyCommand(t.io, undefined, {}, { confirm: () => Promise.resolve(true) });
    expect(readFileSync(t.config, 'utf8')).toBe(PRESET);
    const source = path.join(t.project, 'byre.preset');
    expect(readFileSync(t.applied, 'utf8')).toBe(`${sha256Hex(PRESET)}\n${source}`);
    const again = fakeIo({ cwd: t.io.cwd, env: t.io.env });
    await presetInspectCommand(again, undefined);
    expect(again.out).toContain('(no change:');
  });

  it('replaces a hand-edited store config whole, as the diff showed', async () => {
    const t = setup();
    mkdirSync(path.dirname(t.config), { recursive: true });
    writeFileSync(t.config, '# mine\napt = ["jq"]\n');
    await presetApplyCommand(t.io, undefined, { yes: true });
    expect(t.io.out).toContain('-apt = ["jq"]');
    expect(readFileSync(t.config, 'utf8')).toBe(PRESET);
  });

  it('refuses a package it cannot install, and writes nothing', async () => {
    const t = setup('skills = ["acme/absent"]\n');
    await expect(presetApplyCommand(t.io, undefined, { yes: true })).rejects.toMatchObject({
      rule: 'preset.package-missing',
    });
    expect(existsSync(t.config)).toBe(false);
  });
});

describe('configDiff', () => {
  it('is a unified diff of the store file against the proposal', () => {
    expect(configDiff('a = 1\n', 'a = 2\n', '/s/byre.config', '/p/byre.preset')).toBe(
      [
        '--- /s/byre.config\t(now)',
        '+++ /s/byre.config\t(from /p/byre.preset)',
        '@@ -1,1 +1,1 @@',
        '-a = 1',
        '+a = 2',
        '',
      ].join('\n'),
    );
  });
});

describe('a preset over https', () => {
  const server = useHttpsServer((req, res) => {
    const body = req.url === '/team/byre.preset' || req.url === '/old/byre.config' ? PRESET : null;
    res.writeHead(body === null ? 404 : 200);
    res.end(body ?? undefined);
  });

  it('is fetched, reviewed and applied, with the URL as the marker source', async () => {
    const t = setup(null);
    await presetApplyCommand(
      t.io,
      `${server.base}/team/byre.preset`,
      { yes: true },
      { ca: server.ca },
    );
    expect(readFileSync(t.config, 'utf8')).toBe(PRESET);
    expect(readFileSync(t.applied, 'utf8')).toBe(
      `${sha256Hex(PRESET)}\n${server.base}/team/byre.preset`,
    );
  });

  it('refuses the retired name over https too', async () => {
    const t = setup(null);
    await expect(
      presetInspectCommand(t.io, `${server.base}/old/byre.config`, { ca: server.ca }),
    ).rejects.toBeInstanceOf(ByreError);
  });
});
