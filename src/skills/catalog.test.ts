import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../test/support/temp.js';
import { formatIssue } from '../commands/package.js';
import { loadCatalog } from './catalog.js';

// Made at collection time: the describe blocks below load the catalog as they are declared.
const home = makeTempDir('catalog');
afterAll(() => removeTempDir(home));

describe.each(['skill', 'template'] as const)('bundled %ss', (kind) => {
  const catalog = loadCatalog({ home, kind });
  const bundled = catalog.entries.filter((e) => e.provenance === 'bundled');

  it.each(bundled.map((e) => [e.id, e] as const))('%s validates', (_id, entry) => {
    expect(entry.issues.map(formatIssue)).toEqual([]);
    expect(entry.status).toBe('ok');
  });

  it.each(bundled.map((e) => [e.id.slice('byre/'.length), e.id] as const))(
    'the bare name %s aliases %s',
    (bare, id) => {
      expect(catalog.find(bare)?.id).toBe(id);
    },
  );
});

describe('bundled skills through the SkillCatalog', () => {
  const skills = loadCatalog({ home, kind: 'skill' }).asSkillCatalog();

  it('an agent skill carries its command, state volume and staged payload', () => {
    const claude = skills.lookup('claude');
    expect(claude?.id).toBe('byre/claude');
    expect(claude?.provenance).toBe('bundled');
    expect(claude?.agent?.command).toBeTruthy();
    expect(claude?.volumes.some((v) => v.name === claude.agent?.state && v.role === 'state')).toBe(
      true,
    );
    for (const file of claude?.build.files ?? [])
      expect(file.staged).toMatch(/^skills\/byre\/claude\//);
  });

  // The vouch is only honest while the command adds the directory the image bakes them in.
  it('the claude skill vouches Claude Skills and its command adds their baked directory', async () => {
    const { CLAUDE_SKILLS_DIR } = await import('../gen/box-layout.js');
    const claude = skills.lookup('claude');
    expect(claude?.agent?.claudeSkills).toBe(true);
    expect(claude?.agent?.command.split(' ')).toEqual(
      expect.arrayContaining(['--add-dir', CLAUDE_SKILLS_DIR]),
    );
    const words = claude?.agent?.command.split(' ') ?? [];
    expect(words[words.indexOf('--add-dir') + 1]).toBe(CLAUDE_SKILLS_DIR);
    for (const other of ['codex', 'gemini', 'grok', 'opencode']) {
      expect(skills.lookup(other)?.agent?.claudeSkills).toBe(false);
    }
  });

  it('byre/<name> never resolves to a local or installed package', () => {
    expect(skills.lookup('byre/nope')).toBeNull();
  });

  it('enabling both firewall postures is refused, naming both skills', async () => {
    const { resolveEnabledSkills } = await import('./resolve.js');
    const { fakeConfig, sourced } = await import('../../test/support/config.js');
    const config = fakeConfig({ skills: [sourced('firewall'), sourced('firewall-open')] });
    expect(() => resolveEnabledSkills(config, skills)).toThrow(
      expect.objectContaining({
        rule: 'skills.posture-conflict',
        message: expect.stringMatching(/byre\/firewall.*byre\/firewall-open/),
      }),
    );
  });
});

describe('local packages', () => {
  it('a FIFO or a link in place of skill.toml makes an invalid entry, never a hang', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdirSync, symlinkSync, writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    const local = makeTempDir('catalog-local');
    try {
      mkdirSync(path.join(local, 'skills', 'piped'), { recursive: true });
      execFileSync('mkfifo', [path.join(local, 'skills', 'piped', 'skill.toml')]);
      mkdirSync(path.join(local, 'skills', 'linked'), { recursive: true });
      writeFileSync(path.join(local, 'real.toml'), 'description = "x"\n');
      symlinkSync(
        path.join(local, 'real.toml'),
        path.join(local, 'skills', 'linked', 'skill.toml'),
      );
      const catalog = loadCatalog({ home: local, kind: 'skill' });
      const rules = (id: string) => catalog.find(id)?.issues.map((i) => i.rule);
      expect(rules('piped')).toEqual(['config.not-file']);
      expect(rules('linked')).toEqual(['config.symlink']);
    } finally {
      removeTempDir(local);
    }
  });
});
