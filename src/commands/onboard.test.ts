import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeSkill } from '../../test/support/config.js';
import { useTempDir } from '../../test/support/temp.js';
import { ByreError, UsageError } from '../errors.js';
import type { ProjectContext } from '../project/context.js';
import { projectStorePaths, storePaths } from '../project/store-layout.js';
import type { FirstRunSetup } from '../tui/model/first-run.js';
import { onboard, type AskFirstRun, type OnboardCatalog } from './onboard.js';

const temp = useTempDir('onboard');
let ctx: ProjectContext;

const claude = fakeSkill('byre/claude', 'bundled', {
  agent: { command: 'claude', state: null, context: true, mcp: true, claudeSkills: true },
});
const codex = fakeSkill('byre/codex', 'bundled', {
  agent: { command: 'codex', state: null, context: true, mcp: true, claudeSkills: false },
});
const known = [claude, codex, fakeSkill('byre/claude-shared-auth', 'bundled')];
const canon = (r: string): string => known.find((s) => s.id === r || s.id === `byre/${r}`)?.id ?? r;
const catalogs = (): OnboardCatalog => ({
  bundledTemplate: (n: string) => (n === 'node' || n === 'byre/node' ? {} : null),
  catalog: {
    lookup: (r) => known.find((s) => s.id === canon(r)) ?? null,
    ids: () => known.map((s) => s.id),
  },
  templates: [{ id: 'byre/node', description: 'Node' }],
  agents: known.map((s) => ({ id: s.id, description: '' })),
  companions: { 'byre/claude': 'byre/claude-shared-auth' },
  canon,
});

beforeEach(() => {
  const home = temp.path;
  const project = projectStorePaths(home, 'demo-work-0877d7');
  ctx = {
    store: storePaths(home),
    project,
    projectId: 'demo-work-0877d7',
    worktreeId: 'demo-work-0877d7',
    projectRoot: '/src/demo/work',
    worktreeDir: '/src/demo/work',
    isLinkedWorktree: false,
    commonGitDir: null,
    gitDir: null,
    gitPaths: null,
    identityChange: null,
    forged: null,
  };
});

const HEADER = [
  '# byre project config for /src/demo/work',
  '# The consent document for this project’s boxes: everything they may reach is',
  '# granted here or in the layers below it (`byre status` shows the result).',
];
const written = (): string => readFileSync(ctx.project.config, 'utf8');
const defaults = (text: string): void => writeFileSync(ctx.store.defaultConfig, text);

/** An `ask` that records the setup it was shown and answers as told. */
function answering(
  answers: { template: string | null; agent: string | null; sharedAuth: boolean | null },
  saveDefaults = false,
  inject: boolean | null = null,
): AskFirstRun & { seen: FirstRunSetup[] } {
  const seen: FirstRunSetup[] = [];
  const ask = async (setup: FirstRunSetup) => {
    seen.push(setup);
    return { answers, saveDefaults, inject };
  };
  return Object.assign(ask, { seen });
}

describe('onboard without a terminal', () => {
  it('writes the flags through the config writer, mode 0600', async () => {
    expect(await onboard(ctx, { template: 'node' }, catalogs)).toMatchObject({
      wrote: true,
      how: 'flags',
    });
    expect(written()).toBe(`${[...HEADER, 'template = "node"'].join('\n')}\n`);
    expect(statSync(ctx.project.config).mode & 0o777).toBe(0o600);
  });

  it('leaves a configured project alone, and refuses first-run flags there', async () => {
    await onboard(ctx, {}, catalogs);
    const before = written();
    expect(await onboard(ctx, {}, catalogs)).toEqual({ wrote: false });
    for (const flags of [{ agent: 'none' }, { sharedAuth: false }]) {
      await expect(onboard(ctx, flags, catalogs)).rejects.toBeInstanceOf(UsageError);
    }
    expect(written()).toBe(before);
  });

  it('--shared-auth puts the companion in this project’s skills and nothing else', async () => {
    defaults('# mine\n');
    await onboard(ctx, { agent: 'claude', sharedAuth: true }, catalogs);
    expect(written()).toBe(
      `${[...HEADER, 'agent = "claude"', 'skills = ["byre/claude-shared-auth"]'].join('\n')}\n`,
    );
    expect(readFileSync(ctx.store.defaultConfig, 'utf8')).toBe('# mine\n');
  });

  it('refuses --shared-auth for an agent with no offer, writing nothing', async () => {
    await expect(
      onboard(ctx, { agent: 'codex', sharedAuth: true }, catalogs),
    ).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(ctx.project.config)).toBe(false);
  });
});

describe('defaults.skip_questions', () => {
  it('applies the stored answers unasked, shared-auth grant included', async () => {
    defaults(
      'template = "byre/node"\nagent = "byre/claude"\n[defaults]\nskip_questions = true\nshared_auth = { claude = "claude-shared-auth" }\n',
    );
    const ask = answering({ template: null, agent: null, sharedAuth: null });
    const result = await onboard(ctx, {}, catalogs, ask);
    expect(ask.seen).toHaveLength(0);
    expect(result).toMatchObject({ how: 'stored', companion: 'byre/claude-shared-auth' });
    expect(written()).toContain(
      'template = "byre/node"\nagent = "byre/claude"\nskills = ["byre/claude-shared-auth"]\n',
    );
  });
});

describe('the first-run picker', () => {
  it('is shown what the flags left open, pre-selected from the favourites', async () => {
    defaults('template = "byre/node"\nagent = "byre/claude"\n');
    const ask = answering({ template: 'byre/node', agent: 'byre/claude', sharedAuth: false });
    await onboard(ctx, { template: 'none' }, catalogs, ask);
    const setup = ask.seen[0];
    expect(setup?.fixed).toEqual({ template: 'none' });
    expect(setup?.preselect).toEqual({ template: 'byre/node', agent: 'byre/claude' });
    expect(setup?.companionFor('byre/claude')).toBe('byre/claude-shared-auth');
    expect(setup?.companionFor('byre/codex')).toBeNull();
  });

  it('is not shown when the flags answered everything', async () => {
    const ask = answering({ template: null, agent: null, sharedAuth: null });
    await onboard(ctx, { template: 'none', agent: 'codex' }, catalogs, ask);
    expect(ask.seen).toHaveLength(0);
    expect(written()).toContain('agent = "codex"');
  });

  it('offers nothing when default.config grants the companion to every box already', async () => {
    defaults('skills = ["claude-shared-auth"]\n');
    const ask = answering({ template: 'none', agent: 'byre/claude', sharedAuth: null });
    await onboard(ctx, {}, catalogs, ask);
    expect(ask.seen[0]?.companionFor('byre/claude')).toBeNull();
    expect(written()).not.toContain('skills');
  });

  it('writes the answers, and save-as-default stores only the favourites', async () => {
    defaults('# mine\n');
    const ask = answering({ template: 'byre/node', agent: 'byre/claude', sharedAuth: true }, true);
    const result = await onboard(ctx, {}, catalogs, ask);
    expect(result).toMatchObject({ how: 'asked', savedDefaults: true });
    expect(written()).toBe(
      `${[...HEADER, 'template = "byre/node"', 'agent = "byre/claude"', 'skills = ["byre/claude-shared-auth"]'].join('\n')}\n`,
    );
    expect(readFileSync(ctx.store.defaultConfig, 'utf8')).toBe(
      '# mine\ntemplate = "byre/node"\nagent = "byre/claude"\n\n[defaults]\nshared_auth = { claude = "claude-shared-auth" }\n',
    );
  });

  it('keeps the config another byre wrote while the picker was open, and writes no defaults', async () => {
    defaults('# mine\n');
    const theirs = '# written by another byre\nagent = "byre/codex"\n';
    const answers = answering(
      { template: 'byre/node', agent: 'byre/claude', sharedAuth: null },
      true,
    );
    const ask: AskFirstRun = async (setup) => {
      mkdirSync(path.dirname(ctx.project.config), { recursive: true });
      writeFileSync(ctx.project.config, theirs);
      return answers(setup);
    };
    const result = await onboard(ctx, {}, catalogs, ask);
    expect(result).toEqual({ wrote: false });
    expect(written()).toBe(theirs);
    expect(readFileSync(ctx.store.defaultConfig, 'utf8')).toBe('# mine\n');
  });

  it('writes nothing when the picker is cancelled', async () => {
    const cancel: AskFirstRun = async () => null;
    const error = await onboard(ctx, {}, catalogs, cancel).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ByreError);
    expect((error as ByreError).rule).toBe('onboard.cancelled');
    expect(existsSync(ctx.project.config)).toBe(false);
  });
});

describe('a config the verbs wrote before the first develop (adr/0055)', () => {
  const MCP = '[[mcp]]\nname = "docs"\nurl = "https://docs.example/mcp"\n';
  const VERB_CONFIG = `${HEADER.join('\n')}\n\n${MCP}`;
  /** The config as a verb left it, with `top` keys above its [[mcp]] entry. */
  const verbWrote = (top = ''): void => {
    mkdirSync(ctx.project.dir, { recursive: true });
    writeFileSync(ctx.project.config, `${HEADER.join('\n')}\n${top}\n${MCP}`);
  };

  it('still runs the picker, and keeps what the verbs wrote beside the answers', async () => {
    verbWrote();
    const ask = answering({ template: 'byre/node', agent: 'byre/claude', sharedAuth: false });
    expect(await onboard(ctx, {}, catalogs, ask)).toMatchObject({ wrote: true, how: 'asked' });
    expect(ask.seen).toHaveLength(1);
    expect(written()).toContain('[[mcp]]\nname = "docs"\nurl = "https://docs.example/mcp"\n');
    expect(written()).toContain('template = "byre/node"\nagent = "byre/claude"\n');
    expect(existsSync(ctx.project.onboarded)).toBe(true);
    // Onboarded now: the next develop asks nothing, and first-run flags are refused.
    expect(await onboard(ctx, {}, catalogs, ask)).toEqual({ wrote: false });
    expect(ask.seen).toHaveLength(1);
    await expect(onboard(ctx, { agent: 'none' }, catalogs)).rejects.toBeInstanceOf(UsageError);
  });

  it('pre-fills the picker from the config before the favourites', async () => {
    defaults('template = "byre/node"\nagent = "byre/codex"\n');
    verbWrote('agent = "byre/claude"\nskills = ["claude-shared-auth"]\n');
    const ask = answering({ template: 'none', agent: 'byre/claude', sharedAuth: true });
    await onboard(ctx, {}, catalogs, ask);
    expect(ask.seen[0]?.preselect).toEqual({ template: 'byre/node', agent: 'byre/claude' });
    expect(ask.seen[0]?.storedSharedAuth('byre/claude')).toBe(true);
  });

  it('a shared-auth no takes back the companion the verbs added', async () => {
    verbWrote('skills = ["claude-shared-auth", "firewall"]\n');
    await onboard(
      ctx,
      {},
      catalogs,
      answering({ template: 'none', agent: 'byre/claude', sharedAuth: false }),
    );
    expect(written()).toContain('skills = ["firewall"]');
  });

  it('off a terminal writes the flags into it, or leaves it as it is', async () => {
    verbWrote();
    expect(await onboard(ctx, {}, catalogs)).toEqual({ wrote: false });
    expect(written()).toBe(VERB_CONFIG);
    expect(existsSync(ctx.project.onboarded)).toBe(true);

    rmSync(ctx.project.onboarded);
    expect(await onboard(ctx, { agent: 'codex' }, catalogs)).toMatchObject({ how: 'flags' });
    expect(written()).toBe(`${HEADER.join('\n')}\nagent = "codex"\n\n${MCP}`);
  });

  it('skip_questions keeps the config’s own answers over the stored ones', async () => {
    defaults('template = "byre/node"\nagent = "byre/codex"\n[defaults]\nskip_questions = true\n');
    verbWrote('agent = "byre/claude"\n');
    expect(await onboard(ctx, {}, catalogs)).toMatchObject({
      how: 'stored',
      answers: { template: 'byre/node', agent: 'byre/claude' },
    });
  });

  it('writes no marker when the picker is cancelled', async () => {
    verbWrote();
    await expect(onboard(ctx, {}, catalogs, async () => null)).rejects.toBeInstanceOf(ByreError);
    expect(written()).toBe(VERB_CONFIG);
    expect(existsSync(ctx.project.onboarded)).toBe(false);
  });

  it('reads a project launched by a byre before the marker as onboarded', async () => {
    verbWrote();
    writeFileSync(path.join(ctx.project.dir, 'engine.demo-work-0877d7'), 'docker\n');
    const ask = answering({ template: null, agent: null, sharedAuth: null });
    expect(await onboard(ctx, {}, catalogs, ask)).toEqual({ wrote: false });
    expect(ask.seen).toHaveLength(0);
    expect(existsSync(ctx.project.onboarded)).toBe(true);
  });
});

describe('the injection offer (adr/0070)', () => {
  it('is made for an agent with a recipe whose key this host holds, and never otherwise', async () => {
    const ask = answering({ template: null, agent: 'byre/codex', sharedAuth: null });
    await onboard(ctx, {}, catalogs, ask, { OPENAI_API_KEY: 'sk-host' });
    const setup = ask.seen[0];
    expect(setup?.injectOffer?.('byre/codex')).toEqual({
      key: 'OPENAI_API_KEY',
      text: 'OPENAI_API_KEY as a bearer token to api.openai.com',
    });
    // The host has no ANTHROPIC_API_KEY; an agent without a recipe has no offer.
    expect(setup?.injectOffer?.('byre/claude')).toBeNull();
    expect(setup?.injectOffer?.(null)).toBeNull();
  });

  it.each([
    [true, { key: 'OPENAI_API_KEY', host: 'api.openai.com' }],
    [false, null],
  ])(
    'answered %s, it hands back the recipe to seal or nothing (first-run.ts seals it)',
    async (taken, recipe) => {
      const result = await onboard(
        ctx,
        {},
        catalogs,
        answering({ template: null, agent: 'byre/codex', sharedAuth: null }, false, taken),
        { OPENAI_API_KEY: 'sk-host' },
      );
      expect(result.inject).toEqual(recipe);
      expect(written()).not.toContain('sk-host');
    },
  );
});
