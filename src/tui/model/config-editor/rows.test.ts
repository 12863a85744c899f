import { describe, expect, it } from 'vitest';

import { LAYER_SHAPE } from '../../../config/schema.js';
import { fakeSkill } from '../../../../test/support/config.js';
import { Session } from '../../../../test/support/editor.js';
import { parseBuffer } from './derive.js';
import {
  EDITOR_ROWS,
  EDITOR_KEYS as CONFIG_KEYS,
  sectionsFor,
  type EditorFileKind,
} from './rows.js';
import { configKeys } from '../../../config/keys.js';

const REGISTRY_KEYS = configKeys();

const claude = fakeSkill('byre/claude', 'bundled', {
  agent: { command: 'claude', state: null, context: true, mcp: true, claudeSkills: true },
});
const firewall = fakeSkill('byre/firewall', 'bundled', {
  runtime: { ...fakeSkill('x', 'bundled').runtime, networkPosture: 'deny-by-default' },
});
const companion = fakeSkill('byre/claude-shared-auth', 'bundled', {
  meta: { companionFor: null, sharedAuthFor: 'byre/claude', envDocs: {}, digest: null, dir: null },
});

/** Every key set once; `omit` drops the keys a file kind may not carry. */
function everyKey(omit: readonly string[]): string {
  const lines: Record<string, string> = {
    engine: 'engine = "docker"',
    template: 'template = "byre/node"',
    agent: 'agent = "byre/claude"',
    base: 'base = "node:22"',
    extends: 'extends = "work"',
    seed_prefs: 'seed_prefs = true',
    worktree_base: 'worktree_base = "sibling"',
    shared_auth: 'shared_auth = ["claude"]',
    apt: 'apt = ["jq"]',
    env: 'env = { FOO = "bar" }',
    env_from_host:
      'env_from_host = { TOKEN = "env:TOKEN", GH = "injected:d3eeac9b7373788d:YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBjMkZ0Y0d4bAo=" }',
    inject: '[[inject.GH]]\nhosts = ["api.github.com"]\nbearer = true',
    files: 'files = { "seed" = "/opt/seed" }',
    skills: 'skills = ["byre/firewall"]',
    egress: 'egress = ["example.com"]',
    egress_offered: 'egress_offered = ["github.com"]',
    dockerfile_pre: 'dockerfile_pre = ["RUN true"]',
    dockerfile_post: 'dockerfile_post = ["RUN false"]',
    run_args: 'run_args = ["--cap-add=SYS_PTRACE"]',
    defaults: '[defaults]\nskip_questions = true',
    sources: '[sources]\n"owner/x" = { uri = "https://example.com/x.toml" }',
    mounts: '[[mounts]]\nhost = "/src/lib"\ntarget = "/opt/lib"',
    ports: '[[ports]]\ncontainer = 3000',
    volumes: '[[volumes]]\nname = "cache"\nrole = "cache"\ntarget = "/cache"',
    mcp: '[[mcp]]\nname = "gh"\nurl = "https://example.com/mcp"',
    claude_skills: '[[claude_skills]]\nname = "x"\npath = "~/skills/x"',
    context: '[[context]]\nname = "style"\ntext = "Be brief."',
    credentials: `[credentials]\nrecipient = "age1${'q'.repeat(58)}"\nidentity = "YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IHNjcnlwdCBjMkZzZEEgMTgK"`,
  };
  const missing = CONFIG_KEYS.filter((k) => lines[k] === undefined);
  if (missing.length > 0) throw new Error(`everyKey has no sample for ${missing.join(', ')}`);
  // Tables last: TOML puts every later bare key inside the last table.
  return CONFIG_KEYS.filter((k) => !omit.includes(k))
    .map((k) => lines[k] ?? '')
    .sort((a, b) => Number(a.startsWith('[')) - Number(b.startsWith('[')))
    .join('\n');
}

describe('every config key has an editor row', () => {
  it('the row table covers exactly the schema’s keys', () => {
    expect(new Set(CONFIG_KEYS)).toEqual(new Set(Object.keys(LAYER_SHAPE.fields)));
    expect(new Set(CONFIG_KEYS)).toEqual(new Set(REGISTRY_KEYS));
  });

  const cases: [EditorFileKind, string[]][] = [
    ['project', []],
    ['layer', ['template']],
    ['default', ['extends']],
  ];
  for (const [kind, omit] of cases) {
    it(`every key is reachable in the ${kind} editor, with its value set`, () => {
      const s = new Session({ kind, text: everyKey(omit), skills: [claude, firewall, companion] });
      expect(parseBuffer(s.text, s.world.file).issues).toEqual([]);
      expect(s.context().derived.problems).toEqual([]);
      const items = s.items();
      for (const key of CONFIG_KEYS) {
        const rows = items.filter((i) => i.kind !== 'section' && i.key === key);
        expect(rows.length, `${kind}: ${key}`).toBeGreaterThan(0);
        // Reachable means a cursor can stop on it: some row of the key is selectable.
        if (key !== 'shared_auth' || kind !== 'layer') {
          expect(
            items.some((i) => i.kind === 'row' && i.key === key),
            `${kind}: ${key}`,
          ).toBe(true);
        }
      }
    });
  }

  it('a key a file kind may not carry shows why, in the loader’s words', () => {
    const s = new Session({ kind: 'layer' });
    const template = s.row('template:banned');
    expect(template.act.note).toMatch(/not allowed in a layer file/);
    const d = new Session({ kind: 'default' });
    expect(d.row('extends:banned').act.note).toMatch(/not allowed in default.config/);
  });

  it('the global editor adds the picker-owned sections; the others do not', () => {
    expect(sectionsFor('default')).toEqual([
      'grants',
      'build',
      'extends',
      'advanced',
      'favourites',
      'worktrees',
      'defaults',
    ]);
    expect(sectionsFor('project')).toEqual(['grants', 'build', 'extends', 'advanced']);
    expect(EDITOR_ROWS.template.globalSection).toBe('favourites');
  });
});
