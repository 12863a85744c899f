import { describe, expect, it } from 'vitest';

import { fakeSkill } from '../../../../test/support/config.js';
import { lowerLayers, Session } from '../../../../test/support/editor.js';
import { bannerLines } from '../../../status/banner.js';
import { createIdentity, sealInjected, sealValue } from '../../../credentials/seal.js';
import { exposureParts } from '../../../status/exposure.js';
import { editorKeysFor } from './state.js';

const LOWER = { kind: 'layer' as const, name: 'work' };

const claude = fakeSkill('byre/claude', 'bundled', {
  agent: { command: 'claude', state: null, context: true, mcp: true, claudeSkills: true },
  runtime: { ...fakeSkill('x', 'bundled').runtime, egress: ['api.anthropic.com'] },
  mcp: [{ name: 'docs', url: 'https://docs.example.com/mcp', env: [], egress: [], headers: {} }],
});
const firewall = fakeSkill('byre/firewall', 'bundled', {
  runtime: {
    ...fakeSkill('x', 'bundled').runtime,
    networkPosture: 'deny-by-default',
    egressOffered: ['github.com', 'registry.npmjs.org'],
  },
});
const companion = fakeSkill('byre/claude-shared-auth', 'bundled', {
  meta: { companionFor: null, sharedAuthFor: 'byre/claude', envDocs: {}, digest: null, dir: null },
});
const skills = [claude, firewall, companion];

describe('GRANTS: mounts', () => {
  it('adds a mount through its form, and the file gains exactly that entry', () => {
    const s = new Session({ text: '# mine\nbase = "node:22"\n' });
    s.select('mounts:add').press('enter', '/src/lib', 'down', '/opt/lib', 'enter');
    expect(s.state.overlay).toBeNull();
    expect(s.text).toBe(
      '# mine\nbase = "node:22"\n\n[[mounts]]\nhost = "/src/lib"\ntarget = "/opt/lib"\nmode = "ro"\n',
    );
    expect(s.row('mounts:m:/opt/lib').origin).toBe('project');
    expect(s.context().derived.summary.hostMounts).toBe(1);
  });

  it('refuses a mount the loader would refuse, located, and keeps the form open', () => {
    const s = new Session();
    s.select('mounts:add').press('enter', 'relative/dir', 'down', '/opt/x', 'enter');
    expect(s.text).toBe('');
    expect(s.state.overlay?.kind).toBe('form');
    const errors = s.state.overlay?.kind === 'form' ? s.state.overlay.errors : [];
    expect(errors.join('\n')).toMatch(
      /byre\.config:\d+:\d+ mounts\[0\]\.host: .*\(config\.mount-host/,
    );
  });

  it('refuses an enabled mount whose host does not exist (the loader’s rule), but not a disabled one', () => {
    const s = new Session({ hostPaths: [] });
    s.select('mounts:add').press('enter', '/nowhere', 'down', '/opt/x', 'enter');
    expect(s.text).toBe('');
    s.press('down', 'down', 'right', 'enter');
    expect(s.text).toContain('disabled = true');
  });

  it('refuses a mount whose host goes through a link a box could have planted (adr/0046), located', () => {
    const s = new Session({ plantedHosts: ['/src/lib'] });
    s.select('mounts:add').press('enter', '/src/lib', 'down', '/opt/lib', 'enter');
    expect(s.text).toBe('');
    const errors = s.state.overlay?.kind === 'form' ? s.state.overlay.errors : [];
    expect(errors.join('\n')).toMatch(
      /byre\.config:\d+:\d+ mounts\[0\]\.host: .*planted link \(containment\.link-in-box-tree\)/,
    );
  });

  it('toggles a mount off and on with ←→, at this layer', () => {
    const s = new Session({ text: '[[mounts]]\nhost = "/src/lib"\ntarget = "/opt/lib"\n' });
    s.select('mounts:m:/opt/lib').press('right');
    expect(s.text).toContain('disabled = true');
    expect(s.context().derived.summary).toMatchObject({ hostMounts: 0, disabledMounts: 1 });
    s.press('left');
    expect(s.text).not.toContain('disabled');
  });

  it('removes its own mount, and writes a removal marker for an inherited one', () => {
    const below = [{ ...LOWER, text: '[[mounts]]\nhost = "/home/u/data"\ntarget = "/data"\n' }];
    const s = new Session({ below, text: '[[mounts]]\nhost = "/src/lib"\ntarget = "/opt/lib"\n' });
    expect(s.row('mounts:m:/data').origin).toBe('layer:work');
    s.select('mounts:m:/opt/lib').press('x');
    expect(s.text).toBe('');
    s.select('mounts:m:/data').press('x');
    expect(s.text).toBe('[[mounts]]\ntarget = "!/data"\n');
    expect(s.row('mounts:marker:/data').value).toBe('removed here');
    s.select('mounts:marker:/data').press('x');
    expect(s.text).toBe('');
  });

  it('refuses a target that collides with an inherited volume', () => {
    const below = [{ ...LOWER, text: '[[volumes]]\nname = "c"\nrole = "cache"\ntarget = "/c"\n' }];
    const s = new Session({ below });
    s.select('mounts:add').press('enter', '/src/lib', 'down', '/c', 'enter');
    expect(s.text).toBe('');
    const errors = s.state.overlay?.kind === 'form' ? s.state.overlay.errors.join('\n') : '';
    expect(errors).toMatch(/config\.target-collision/);
  });
});

describe('GRANTS: containment, inline, as develop refuses it (adr/0018)', () => {
  const formErrors = (s: Session): string =>
    s.state.overlay?.kind === 'form' ? s.state.overlay.errors.join('\n') : '';

  it.each([
    ['~', 'containment.store'],
    ['/home/u/.byre/projects', 'containment.store'],
    ['/home/u/.local/bin', null],
    ['/tmp', null],
  ])('refuses a read-only mount of %s with %s, located, and keeps the form open', (host, rule) => {
    const s = new Session({ hostPaths: [host.replace('~', '/home/u')] });
    s.select('mounts:add').press('enter', host, 'down', '/home/dev/h', 'enter');
    if (rule === null) {
      expect(s.text).toContain(`host = "${host}"`);
      return;
    }
    expect(s.text).toBe('');
    expect(formErrors(s)).toMatch(
      new RegExp(`byre\\.config:\\d+:\\d+ mounts\\[0\\]\\.host: the mount .* \\(${rule}\\)`),
    );
  });

  it.each([
    ['/home/u/.local/bin', 'containment.executable'],
    ['/tmp', 'containment.runtime'],
  ])('refuses a read-write mount of %s with %s', (host, rule) => {
    const s = new Session({ hostPaths: [host] });
    s.select('mounts:add').press('enter', host, 'down', '/m', 'down', 'right', 'enter');
    expect(s.text).toBe('');
    expect(formErrors(s)).toContain(`(${rule})`);
  });

  it('refuses a volume seeded from the store', () => {
    const s = new Session();
    s.press('^e');
    s.send({
      kind: 'external-done',
      text: '[[volumes]]\nname = "v"\nrole = "state"\ntarget = "/v"\nseed = { host = "~/.byre" }\n',
    });
    expect(s.text).toBe('');
    expect(s.message()).toMatch(
      /volumes\[0\]\.seed: the seed ~\/\.byre of volume v .*\(containment\.store\)/,
    );
  });

  it('a whole-file $EDITOR text with a refused mount is not taken, and offered again', () => {
    const s = new Session({ text: 'base = "a"\n', hostPaths: ['/home/u'] });
    s.press('^e');
    const text = 'base = "a"\n[[mounts]]\nhost = "~"\ntarget = "/home/dev/h"\n';
    s.send({ kind: 'external-done', text });
    expect(s.text).toBe('base = "a"\n');
    expect(s.message()).toMatch(
      /byre\.config:3:\d+ mounts\[0\]\.host: .*containment\.store.*\nnot taken/s,
    );
    s.press('^e');
    expect(s.state.effect).toMatchObject({ text });
  });

  it('a mount the file already had does not block other edits (refused only for what it breaks)', () => {
    const s = new Session({
      text: '[[mounts]]\nhost = "~"\ntarget = "/home/dev/h"\n',
      hostPaths: ['/home/u', '/src/lib'],
    });
    expect(s.context().derived.problems.map((p) => p.rule)).toEqual(['containment.store']);
    s.select('mounts:add').press('enter', '/src/lib', 'down', '/opt/lib', 'enter');
    expect(s.text).toContain('host = "/src/lib"');
  });

  it('a parent layer that brings a refused mount is not taken', () => {
    const s = new Session({ hostPaths: ['/home/u'], layers: ['work'] });
    s.autoReload = false;
    s.select('extends:value').press('enter', 'down', 'enter');
    expect(s.state.effect).toEqual({ kind: 'reload-below', key: '|work' });
    s.send({
      kind: 'below-loaded',
      below: {
        key: '|work',
        layers: lowerLayers([
          { kind: 'layer', name: 'work', text: '[[mounts]]\nhost = "~"\ntarget = "/h"\n' },
        ]),
        template: null,
      },
      issues: [],
    });
    expect(s.text).toBe('');
    expect(s.message()).toMatch(/containment\.store.*\nnot taken/s);
  });
});

describe('GRANTS: ports, egress, doors, env', () => {
  it('a port number is checked before the file is touched', () => {
    const s = new Session();
    s.select('ports:add').press('enter', 'abc', 'enter');
    expect(s.state.overlay?.kind === 'form' && s.state.overlay.errors).toEqual([
      'container must be a number',
    ]);
  });

  it('removing an inherited port writes `remove = true` at this layer only', () => {
    const below = [{ ...LOWER, text: '[[ports]]\ncontainer = 3000\n' }];
    const s = new Session({ below, text: '# project\n' });
    s.select('ports:p:3000').press('x');
    expect(s.text).toBe('# project\n\n[[ports]]\ncontainer = 3000\nremove = true\n');
    expect(s.context().derived.summary.ports).toBe(0);
  });

  it('closes a skill’s egress with a closure, and reopens it by taking the closure back', () => {
    const s = new Session({ skills, text: 'agent = "byre/claude"\nskills = ["byre/firewall"]\n' });
    const row = s.row('egress:e:api.anthropic.com:443');
    expect(row.origin).toBe('skill:byre/claude');
    expect(s.context().derived.summary.egress).toBe(2);
    s.select('egress:e:api.anthropic.com').press('right');
    expect(s.text).toContain('egress = ["!api.anthropic.com:443"]');
    expect(s.context().derived.summary.egress).toBe(1);
    s.press('left');
    expect(s.text).not.toContain('egress');
  });

  it('counts egress only where an allowlist enforces it: an open network has no count', () => {
    const open = new Session({ skills, text: 'agent = "byre/claude"\negress = ["pypi.org"]\n' });
    expect(open.context().derived.summary.egress).toBeNull();
    const walled = new Session({
      skills,
      text: 'agent = "byre/claude"\nskills = ["byre/firewall"]\negress = ["pypi.org"]\n',
    });
    expect(walled.context().derived.summary.egress).toBe(3);
  });

  it('an offered door is a one-press switch that writes into egress', () => {
    const s = new Session({ skills, text: 'skills = ["byre/firewall"]\n' });
    const door = s.row('egress_offered:door:github.com:443');
    expect(door.label).toBe('[ ] github.com:443');
    expect(door.origin).toBe('skill:byre/firewall');
    s.select('egress_offered:door:github.com').press('enter', 'enter');
    expect(s.text).toContain('egress = ["github.com:443"]');
    expect(s.row('egress_offered:door:github.com').label).toBe('[x] github.com:443');
    s.press('right');
    expect(s.text).not.toContain('egress =');
  });

  it('a name the wall refused is a one-key addition to egress here; only valid, not-yet-allowed names', () => {
    const s = new Session({
      skills,
      text: 'skills = ["byre/firewall"]\negress = ["pypi.org"]\n',
      denied: [
        { name: 'evil.example', count: 12 },
        { name: 'pypi.org', count: 3 },
        { name: 'a\\027b.example', count: 1 },
        { name: '-x.example', count: 1 },
        { name: 'once.example', count: 1 },
      ],
    });
    const ids = s
      .items()
      .filter((i) => i.id.startsWith('egress:denied:'))
      .map((i) => i.id);
    expect(ids).toEqual(['egress:denied:evil.example', 'egress:denied:once.example']);
    const row = s.row('egress:denied:evil.example');
    expect(row).toMatchObject({
      label: '+ evil.example',
      value: 'refused ×12 last session; ←→ allows it',
      origin: 'wall',
    });
    expect(s.row('egress:denied:once.example').value).toBe('refused last session; ←→ allows it');
    s.select('egress:denied:evil.example').press('right');
    expect(s.text).toContain('egress = ["pypi.org", "evil.example:443"]');
    expect(s.items().some((i) => i.id === 'egress:denied:evil.example')).toBe(false);
  });

  it('env: an inherited key cannot be unset, only overridden; host env disables with ""', () => {
    const below = [{ ...LOWER, text: 'env = { A = "1" }\nenv_from_host = { T = "env:TERM" }\n' }];
    const s = new Session({ below });
    s.select('env:k:A').press('x');
    expect(s.text).toBe('');
    expect(s.message()).toMatch(/env A has no unset: layer:work set it/);
    s.select('env_from_host:k:T').press('x');
    expect(s.text).toBe('[env_from_host]\nT = ""\n');
    expect(s.row('env_from_host:k:T').value).toMatch(/\(disabled\)/);
    s.press('x');
    expect(s.text).toBe('');
  });
});

describe('GRANTS: credentials', () => {
  it('credential rows and the identity are read-only and name the flow that owns them', async () => {
    const { table, identity } = await createIdentity('pass phrase', 10);
    const row = await sealValue(
      identity.recipient,
      'encrypted',
      'TOKEN',
      new TextEncoder().encode('s3cret'),
    );
    const text = `[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n\n[env_from_host]\nTOKEN = "${row}"\n`;
    const s = new Session({ text });
    s.select('env_from_host:k:TOKEN').press('x');
    expect(s.message()).toMatch(/byre credential/);
    s.select('credentials:id:').press('x');
    expect(s.message()).toMatch(/byre credential/);
    expect(s.text).toBe(text);
    expect(s.row('credentials:id:').label).toBe(table.recipient);
  });

  it('an injected row and its rules are read-only, owned by byre credential (adr/0070)', async () => {
    const { table, identity } = await createIdentity('pass phrase', 10);
    const rules = [
      { hosts: [{ name: 'api.github.com', port: 443 }], presentation: { kind: 'bearer' as const } },
    ];
    const row = await sealInjected(identity.recipient, 'GH', rules, new TextEncoder().encode('s3'));
    const text = `[credentials]\nrecipient = "${table.recipient}"\nidentity = "${table.identity}"\n\n[env_from_host]\nGH = "${row}"\n\n[[inject.GH]]\nhosts = ["api.github.com"]\nbearer = true\n`;
    const s = new Session({ text });
    expect(s.row('env_from_host:k:GH').value).toMatch(/^credential injected at the edge/);
    s.select('env_from_host:k:GH').press('enter', 'x');
    expect(s.message()).toMatch(/byre credential/);
    expect(s.row('inject:inject:GH').value).toBe('api.github.com as Authorization: Bearer');
    s.select('inject:inject:GH').press('enter', 'x');
    expect(s.message()).toMatch(
      /byre credential remove GH --inject|byre credential add KEY --inject/,
    );
    expect(s.text).toBe(text);
  });
});

describe('BUILD', () => {
  it('template and agent come from choosers, written at this layer', () => {
    const s = new Session({ skills });
    s.select('template:value').press('enter', 'down', 'down', 'enter');
    expect(s.text).toBe('template = "byre/node"\n');
    s.select('agent:value').press('right', 'right');
    expect(s.text).toContain('agent = "byre/claude"');
    expect(s.row('skills:agent:byre/claude').value).toBe('the agent');
  });

  it('a chooser takes Home and End', () => {
    const s = new Session({ skills });
    s.select('template:value').press('enter', 'end');
    const overlay = s.state.overlay;
    const count = overlay?.kind === 'choose' ? overlay.chooser.options.length : 0;
    expect(overlay?.kind === 'choose' && overlay.cursor).toBe(count - 1);
    s.press('home', 'down', 'down', 'enter');
    expect(s.text).toBe('template = "byre/node"\n');
  });

  it('removing an inherited skill writes !name; adding it back takes the marker out', () => {
    const below = [{ ...LOWER, text: 'skills = ["byre/firewall"]\n' }];
    const s = new Session({ skills, below });
    s.select('skills:n:byre/firewall').press('x');
    expect(s.text).toBe('skills = ["!byre/firewall"]\n');
    s.select('skills:add').press('enter');
    const chooser = s.state.overlay?.kind === 'choose' ? s.state.overlay.chooser : null;
    const at = chooser?.options.findIndex((o) => o.label === 'byre/firewall') ?? -1;
    for (let i = 0; i < at; i++) s.press('down');
    s.press('enter');
    expect(s.text).toBe('skills = ["byre/firewall"]\n');
  });

  it('an unknown skill is refused with the loader’s message', () => {
    const s = new Session({ skills, text: 'skills = ["nope"]\n' });
    expect(s.context().derived.problems[0]?.rule).toBe('skills.not-found');
    expect(s.context().derived.skillError).not.toBeNull();
  });

  it('a skill-declared MCP server is closed with !name; the closure can be taken back', () => {
    const s = new Session({ skills, text: 'agent = "byre/claude"\n' });
    expect(s.row('mcp:skill:byre/claude:docs').origin).toBe('skill:byre/claude');
    s.select('mcp:skill:byre/claude:docs').press('x');
    expect(s.text).toContain('[[mcp]]\nname = "!docs"');
    s.select('mcp:closed:docs').press('x');
    expect(s.text).toBe('agent = "byre/claude"\n');
  });

  it('MCP headers: typed as Name=value words, written as a table, shown again when the entry opens', () => {
    const s = new Session();
    const headers = '"Authorization=Bearer ${GH_TOKEN}" X-Team=core';
    s.select('mcp:add').press('enter', 'gh', 'down', 'https://example.com/mcp');
    s.press('down', 'down', 'down', 'down', headers, 'enter');
    expect(s.text).toBe(
      '[[mcp]]\nname = "gh"\nurl = "https://example.com/mcp"\nheaders = { Authorization = "Bearer ${GH_TOKEN}", X-Team = "core" }\n',
    );
    s.select('mcp:w:gh').press('enter');
    expect(s.state.overlay).toMatchObject({ values: { headers } });
    // Cleared, the table goes with it.
    s.press('down', 'down', 'down', 'down', 'down', '^u', 'enter');
    expect(s.text).toBe('[[mcp]]\nname = "gh"\nurl = "https://example.com/mcp"\n');
  });

  it('MCP headers: a word that is not Name=value, and headers on a command server, are refused', () => {
    const s = new Session();
    s.select('mcp:add').press('enter', 'gh', 'down', 'https://example.com/mcp');
    s.press('down', 'down', 'down', 'down', 'Bearer', 'enter');
    expect(s.state.overlay).toMatchObject({
      kind: 'form',
      focus: 5,
      errors: ['header "Bearer" is not Name=value'],
    });
    expect(s.text).toBe('');

    const c = new Session();
    c.select('mcp:add').press('enter', 'gh', 'down', 'down', 'npx -y gh-mcp');
    c.press('down', 'down', 'down', 'X-Team=core', 'enter');
    expect(c.state.overlay?.kind).toBe('form');
    expect(c.text).toBe('');
    expect(JSON.stringify(c.state.overlay)).toMatch(/config\.mcp-headers-local/);
  });

  it('instructions keep their prose, and ^e on the row hands it to $EDITOR', () => {
    const s = new Session({ text: '[[context]]\nname = "style"\ntext = "Be brief."\n' });
    s.select('context:w:style').press('^e');
    expect(s.state.effect).toMatchObject({ kind: 'external', text: 'Be brief.', suffix: '.md' });
    s.send({ kind: 'external-done', text: 'Be brief.\nUse British spelling.\n' });
    expect(s.text).toBe(
      '[[context]]\nname = "style"\ntext = "Be brief.\\nUse British spelling."\n',
    );
  });

  it('apt: add, and an inherited package is removed with !name', () => {
    const below = [{ ...LOWER, text: 'apt = ["git"]\n' }];
    const s = new Session({ below });
    s.select('apt:add').press('enter', 'jq', 'enter');
    s.select('apt:n:git').press('x');
    expect(s.text).toBe('apt = ["jq", "!git"]\n');
  });
});

describe('ADVANCED and EXTENDS', () => {
  it('raw lines from a lower layer cannot be removed here', () => {
    const below = [{ ...LOWER, text: 'run_args = ["--init"]\n' }];
    const s = new Session({ below });
    s.select('run_args:l:0').press('x');
    expect(s.text).toBe('');
    expect(s.message()).toMatch(/only add up/);
  });

  it('an own raw line is edited in place, keeping its position', () => {
    const s = new Session({ text: 'dockerfile_pre = ["RUN a", "RUN b"]\n' });
    s.select('dockerfile_pre:l:0').press('enter', '^u', 'RUN z', 'enter');
    expect(s.text).toBe('dockerfile_pre = ["RUN z", "RUN b"]\n');
  });

  it('extends is chosen among existing layers; choosing one asks for the layers below again', () => {
    const s = new Session({ layers: ['work', 'home'] });
    s.autoReload = false;
    s.select('extends:value').press('enter', 'down', 'enter');
    expect(s.text).toBe('extends = "work"\n');
    expect(s.state.effect).toEqual({ kind: 'reload-below', key: '|work' });

    s.send({
      kind: 'below-loaded',
      below: s.state.below,
      issues: [
        {
          rule: 'config.extends-missing',
          message: 'layer "work" not found',
          location: { file: '/x' },
        },
      ],
    });
    expect(s.text).toBe('');
    expect(s.message()).toMatch(/not found/);
  });

  it('Volume data: a machine volume’s data is cleared only after choosing to, and no file changes', () => {
    const text =
      '[[volumes]]\nname = "models"\nrole = "cache"\ntarget = "/models"\nscope = "machine"\n';
    const s = new Session({
      text: text + '[[volumes]]\nname = "c"\nrole = "cache"\ntarget = "/c"\n',
    });
    expect(s.items().some((i) => i.kind === 'row' && i.id === 'volumes:data:c')).toBe(false);
    expect(s.row('volumes:data:models').value).toBe('byre-machine-u1000-models');
    s.select('volumes:data:models').press('enter', 'enter');
    expect(s.state.effect).toBeNull();
    s.press('enter', 'down', 'enter');
    expect(s.state.effect).toEqual({ kind: 'clear-volume', volume: 'byre-machine-u1000-models' });
    s.send({ kind: 'volume-cleared', ok: false, message: 'kept: 1 running byre box mounts it' });
    expect(s.state.effect).toBeNull();
    expect(s.message()).toBe('kept: 1 running byre box mounts it');
    expect(s.state.text).toBe(s.state.saved);
  });

  it('volumes: a new one through its form', () => {
    const s = new Session();
    s.select('volumes:add').press('enter', 'npm', 'down', 'down', '/home/dev/.npm', 'enter');
    expect(s.text).toBe('[[volumes]]\nname = "npm"\nrole = "cache"\ntarget = "/home/dev/.npm"\n');
  });

  it('volumes: a seed from the host, typed in its field, written as a table and shown again', () => {
    const s = new Session();
    s.select('volumes:add').press('enter', 'dots', 'down', 'right', 'down', '/home/dev/.dots');
    s.press('down', 'down', 'down', '~/dotfiles', 'enter');
    expect(s.text).toBe(
      '[[volumes]]\nname = "dots"\nrole = "state"\ntarget = "/home/dev/.dots"\nseed = { host = "~/dotfiles" }\n',
    );
    expect(s.context().derived.problems).toEqual([]);
    s.select('volumes:v:dots').press('enter');
    expect(s.state.overlay).toMatchObject({ values: { seed_host: '~/dotfiles', seed_path: '' } });
    // Cleared, the seed goes with it.
    s.press('down', 'down', 'down', 'down', 'down', '^u', 'enter');
    expect(s.text).toBe('[[volumes]]\nname = "dots"\nrole = "state"\ntarget = "/home/dev/.dots"\n');
  });

  it('volumes: a literal seed is prose (^e hands it to $EDITOR) and keeps its lines (less the editor’s final newline, as every prose field)', () => {
    const s = new Session();
    s.select('volumes:add').press('enter', 'cfg', 'down', 'right', 'down', '/home/dev/.cfg');
    s.press('down', 'down', 'down', 'down', '^e');
    expect(s.state.effect).toMatchObject({ kind: 'external', suffix: '.md' });
    s.send({ kind: 'external-done', text: 'a = 1\nb = 2\n' });
    s.press('down', 'settings.toml', 'enter');
    expect(s.text).toBe(
      '[[volumes]]\nname = "cfg"\nrole = "state"\ntarget = "/home/dev/.cfg"\nseed = { literal = "a = 1\\nb = 2", path = "settings.toml" }\n',
    );
    expect(s.context().derived.problems).toEqual([]);
  });

  it('volumes: a seed on a cache volume is the loader’s refusal, and nothing is written', () => {
    const s = new Session();
    s.select('volumes:add').press('enter', 'c', 'down', 'down', '/c');
    s.press('down', 'down', 'down', '~/x', 'enter');
    expect(s.state.overlay?.kind).toBe('form');
    expect(JSON.stringify(s.state.overlay)).toMatch(/config\.volume-seed-not-state/);
    expect(s.text).toBe('');
  });

  it('volumes: overriding an inherited volume keeps its seed', () => {
    const below = [
      {
        ...LOWER,
        text: '[[volumes]]\nname = "d"\nrole = "state"\ntarget = "/d"\nseed = { host = "~/d" }\n',
      },
    ];
    const s = new Session({ below });
    const id = s
      .items()
      .find((i) => i.kind === 'row' && i.id.startsWith('volumes:') && i.id.endsWith(':d'));
    expect(id).toBeDefined();
    s.select(id!.kind === 'row' ? id!.id : '').press('enter');
    expect(s.state.overlay).toMatchObject({ values: { seed_host: '~/d' } });
  });
});

describe('the global editor', () => {
  it('template and agent are favourites there, never part of a box', () => {
    const s = new Session({ kind: 'default', skills });
    s.select('template:value').press('right', 'right');
    expect(s.text).toBe('template = "byre/node"\n');
    expect(s.context().derived.config.template).toBeNull();
    expect(s.row('template:value').label).toBe('Template (pre-selected)');
  });

  it('stores the shared-auth favourite and skip_questions', () => {
    const s = new Session({ kind: 'default', skills });
    s.select('defaults:shared:claude').press('right');
    expect(s.text).toBe('[defaults]\nshared_auth = { claude = "claude-shared-auth" }\n');
    s.select('defaults:skip').press('right');
    expect(s.text).toContain('skip_questions = true');
  });

  it('shows the legacy shared_auth spelling read-only', () => {
    const s = new Session({ kind: 'default', text: 'shared_auth = ["claude"]\n' });
    s.select('shared_auth:value').press('enter');
    expect(s.message()).toMatch(/moves it to \[defaults\] shared_auth/);
  });
});

describe('the header and status agree', () => {
  it('the exposure parts are the develop banner’s', () => {
    const s = new Session({
      skills,
      text: 'agent = "byre/claude"\n[[mounts]]\nhost = "/src/lib"\ntarget = "/l"\n',
    });
    const { derived } = s.context();
    expect(bannerLines(derived.facts)[0]).toBe(
      `byre: exposure: ${exposureParts(derived.summary).join(' · ')}`,
    );
    expect(derived.summary.envVars).toBe(6);
  });
});

describe('saving and quitting', () => {
  it('^s asks the shell to save; a save lands as the new baseline', () => {
    const s = new Session();
    s.press('^s');
    expect(s.message()).toBe('nothing to save');
    s.select('apt:add').press('enter', 'jq', 'enter', '^s');
    expect(s.state.effect).toEqual({ kind: 'save' });
    s.send({ kind: 'saved', text: s.text });
    expect(s.state.effect).toBeNull();
    expect(s.state.saved).toBe(s.text);
  });

  it('^q asks when there are unsaved changes; d discards, Esc keeps editing', () => {
    const s = new Session();
    s.select('apt:add').press('enter', 'jq', 'enter', '^q');
    expect(s.state.overlay).toEqual({ kind: 'quit' });
    s.press('escape');
    expect(s.state.overlay).toBeNull();
    s.press('^q', 'd');
    expect(s.state.effect).toEqual({ kind: 'exit' });
  });

  it('s in the quit question saves, then exits', () => {
    const s = new Session();
    s.select('apt:add').press('enter', 'jq', 'enter', '^q', 's');
    expect(s.state.effect).toEqual({ kind: 'save' });
    s.send({ kind: 'saved', text: s.text });
    expect(s.state.effect).toEqual({ kind: 'exit' });
  });

  it('^q typed while a save is in flight quits once the save lands, not when it fails', () => {
    const s = new Session();
    s.select('apt:add').press('enter', 'jq', 'enter', '^s', '^q');
    expect(s.state.overlay).toBeNull();
    s.send({ kind: 'saved', text: s.text });
    expect(s.state.effect).toEqual({ kind: 'exit' });

    const f = new Session();
    f.select('apt:add').press('enter', 'jq', 'enter', '^s', '^q');
    f.send({ kind: 'save-failed', message: 'disk full' });
    expect(f.state.effect).toBeNull();
    expect(f.message()).toBe('disk full');
  });

  it('a whole-file $EDITOR result that does not load is not taken, and offered again', () => {
    const s = new Session({ text: 'base = "a"\n' });
    s.press('^e');
    expect(s.state.effect).toMatchObject({ kind: 'external', suffix: '.toml' });
    s.send({ kind: 'external-done', text: 'base = [\n' });
    expect(s.text).toBe('base = "a"\n');
    expect(s.message()).toMatch(/config\.toml-syntax/);
    s.press('^e');
    expect(s.state.effect).toMatchObject({ text: 'base = [\n' });
    s.send({ kind: 'external-done', text: 'base = "b"\n' });
    expect(s.text).toBe('base = "b"\n');
    expect(s.state.pending).toBeNull();
  });
});

describe('keys from the terminal', () => {
  it.each([
    [
      'a paste ending in Enter',
      '/opt/x\r',
      {},
      [{ name: 'text', text: '/opt/x' }, { name: 'enter' }],
    ],
    ['one letter', 'x', {}, [{ name: 'text', text: 'x' }]],
    ['^s as ink reports it', 's', { ctrl: true }, [{ name: 'ctrl', char: 's' }]],
    ['an arrow', '', { downArrow: true }, [{ name: 'down' }]],
    [
      'text, a tab and a control key',
      'a\tb\u0013',
      {},
      [
        { name: 'text', text: 'a' },
        { name: 'tab' },
        { name: 'text', text: 'b' },
        { name: 'ctrl', char: 's' },
      ],
    ],
  ])('%s', (_name, input, key, keys) => {
    expect(editorKeysFor(input, key)).toEqual(keys);
  });
});
