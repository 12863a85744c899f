import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { sourced } from '../../test/support/config.js';
import {
  CLAUDE_SKILL_MAX_BYTES,
  claudeSkillProblems,
  parseFrontMatter,
  type FoundEntry,
} from './claude-skill.js';
import { readClaudeSkillDir, readConfigClaudeSkills } from './claude-skill-read.js';

const GOOD = '---\nname: tdd\ndescription: Red, green, refactor.\n---\n# TDD\n';

describe('parseFrontMatter', () => {
  it.each([
    [GOOD, { ok: true, name: 'tdd', description: 'Red, green, refactor.' }],
    [
      '\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\n',
      { ok: true, name: 'a', description: 'b' },
    ],
    ['# no front matter\n', { ok: false, problem: expect.stringMatching(/does not start/) }],
    ['---\nname: a\ndescription: b\n', { ok: false, problem: expect.stringMatching(/no closing/) }],
    ['---\nname: [a\n---\n', { ok: false, problem: expect.stringMatching(/not valid YAML/) }],
    ['---\n- a\n---\n', { ok: false, problem: expect.stringMatching(/not a YAML mapping/) }],
    ['---\ndescription: b\n---\n', { ok: false, problem: 'SKILL.md front matter has no name' }],
    ['---\nname: a\n---\n', { ok: false, problem: 'SKILL.md front matter has no description' }],
    [
      '---\nname: 3\ndescription: b\n---\n',
      { ok: false, problem: expect.stringMatching(/no name/) },
    ],
  ])('%j', (text, want) => {
    expect(parseFrontMatter(text)).toEqual(want);
  });
});

describe('claudeSkillProblems', () => {
  const file = (rel: string, size = 10): FoundEntry => ({ rel, kind: 'file', size });
  const cases: [string, FoundEntry[], string | null, string[]][] = [
    [
      'a valid skill',
      [file('SKILL.md'), { rel: 'd', kind: 'dir', size: 0 }, file('d/x')],
      GOOD,
      [],
    ],
    ['no SKILL.md', [file('README.md')], null, ['it has no SKILL.md at its root']],
    [
      'a name that does not match',
      [file('SKILL.md')],
      GOOD.replace('name: tdd', 'name: other'),
      ['SKILL.md names it "other", not "tdd"'],
    ],
    [
      'a symlink, a FIFO and a device',
      [
        file('SKILL.md'),
        { rel: 'l', kind: 'symlink', size: 0 },
        { rel: 'p', kind: 'fifo', size: 0 },
        { rel: 'd', kind: 'device', size: 0 },
      ],
      GOOD,
      ['l is a symbolic link', 'p is a FIFO', 'd is a device'],
    ],
    [
      '65 files',
      [file('SKILL.md'), ...Array.from({ length: 64 }, (_, i) => file(`f${i}`))],
      GOOD,
      ['it holds more than 64 files'],
    ],
    [
      '64 files',
      [file('SKILL.md'), ...Array.from({ length: 63 }, (_, i) => file(`f${i}`))],
      GOOD,
      [],
    ],
    [
      'over 8 MiB',
      [file('SKILL.md'), file('big', CLAUDE_SKILL_MAX_BYTES)],
      GOOD,
      [expect.stringMatching(/the cap is 8388608/) as unknown as string],
    ],
  ];
  it.each(cases)('%s', (_what, entries, skillMd, want) => {
    expect(claudeSkillProblems('tdd', entries, skillMd)).toEqual(want);
  });
});

describe('readClaudeSkillDir', () => {
  let dir: string;
  useTempDir('claude-skill', (tmp) => {
    dir = tmp;
  });
  const skill = (): string => {
    const root = path.join(dir, 'tdd');
    mkdirSync(path.join(root, 'scripts'), { recursive: true });
    writeFileSync(path.join(root, 'SKILL.md'), GOOD);
    writeFileSync(path.join(root, 'scripts', 'run.sh'), '#!/bin/sh\n');
    chmodSync(path.join(root, 'scripts', 'run.sh'), 0o755);
    return root;
  };

  it('reads every file, with its exec bit', () => {
    const read = readClaudeSkillDir(skill(), 'tdd');
    expect(read.problems).toEqual([]);
    expect(read.files.map((f) => [f.rel, f.executable])).toEqual([
      ['SKILL.md', false],
      ['scripts/run.sh', true],
    ]);
  });

  it('finds a FIFO without reading it, and a symlink without following it', () => {
    const root = skill();
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    writeFileSync(path.join(dir, 'secret'), 'key');
    symlinkSync(path.join(dir, 'secret'), path.join(root, 'scripts', 'key'));
    expect(readClaudeSkillDir(root, 'tdd').problems).toEqual([
      'pipe is a FIFO',
      'scripts/key is a symbolic link',
    ]);
  });

  it('refuses a symlinked root, a file and a missing path', () => {
    const root = skill();
    symlinkSync(root, path.join(dir, 'alias'));
    expect(readClaudeSkillDir(path.join(dir, 'alias'), 'tdd').problems[0]).toMatch(
      /is a symbolic link/,
    );
    expect(readClaudeSkillDir(path.join(root, 'SKILL.md'), 'tdd').problems[0]).toMatch(
      /not a directory/,
    );
    expect(readClaudeSkillDir(path.join(dir, 'nope'), 'tdd').problems[0]).toMatch(/does not exist/);
  });

  it('stops reading at the bounds', () => {
    const root = skill();
    for (let i = 0; i < 200; i++) writeFileSync(path.join(root, `f${i}`), 'x');
    const read = readClaudeSkillDir(root, 'tdd');
    expect(read.problems).toContain('it holds more than 64 files');
    expect(read.files.length).toBeLessThanOrEqual(65);
  });

  it('readConfigClaudeSkills refuses an invalid one at its declaration', () => {
    const root = skill();
    writeFileSync(path.join(root, 'SKILL.md'), '# no front matter\n');
    const declared = [sourced({ name: 'tdd', path: root })];
    expect(() => readConfigClaudeSkills(declared, dir)).toThrow(
      expect.objectContaining({
        rule: 'claude-skill.invalid',
        location: expect.objectContaining({ key: 'claude_skills.tdd' }),
      }),
    );
  });

  it('readConfigClaudeSkills expands ~ and returns the files by name', () => {
    skill();
    const read = readConfigClaudeSkills([sourced({ name: 'tdd', path: '~/tdd' })], dir);
    expect([...read.keys()]).toEqual(['tdd']);
  });
});

describe('skill-carried Claude Skills (materializeSkill)', async () => {
  const { materializeSkill, memoryTree } = await import('./materialize.js');
  const { parseSkillManifest } = await import('./manifest/index.js');
  const manifest = parseSkillManifest(
    '[[claude_skills]]\nname = "tdd"\nfrom = "cs/tdd"\n',
    'skill.toml',
  ).value;
  const enc = (s: string) => new TextEncoder().encode(s);
  const tree = (files: Record<string, string>, linked: string[] = [], dirs: string[] = []) => ({
    ...memoryTree(
      Object.fromEntries(
        Object.entries(files).map(([k, v]) => [k, { content: enc(v), executable: false }]),
      ),
    ),
    linked: (rel: string) => linked.includes(rel),
    isDir: (rel: string) => dirs.includes(rel),
  });
  const materialize = (t: ReturnType<typeof tree>) =>
    materializeSkill({
      id: 'acme/x',
      provenance: 'local',
      manifest: manifest!,
      tree: t,
      file: 'skill.toml',
    });

  it('carries a valid one with its files', () => {
    const r = materialize(tree({ 'cs/tdd/SKILL.md': GOOD, 'cs/tdd/a.md': 'a' }));
    expect(r.issues).toEqual([]);
    expect(r.value?.claudeSkillFiles?.['tdd']?.map((f) => f.rel)).toEqual(['SKILL.md', 'a.md']);
  });

  it.each([
    ['a SKILL.md without front matter', tree({ 'cs/tdd/SKILL.md': '# x\n' })],
    ['a mismatched name', tree({ 'cs/tdd/SKILL.md': GOOD.replace('tdd', 'other') })],
    [
      'a file reached through a link',
      tree({ 'cs/tdd/SKILL.md': GOOD, 'cs/tdd/l': 'x' }, ['cs/tdd/l']),
    ],
  ])('refuses %s at its declaration', (_what, t) => {
    const r = materialize(t);
    expect(r.value).toBeNull();
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.claude-skill-invalid',
        location: expect.objectContaining({ key: 'claude_skills[0].from' }),
      }),
    ]);
  });

  it.each([
    ['an empty directory', tree({}, [], ['cs', 'cs/tdd']), 'it has no SKILL.md at its root'],
    [
      'a directory of other files',
      tree({ 'cs/tdd/README.md': 'x' }, [], ['cs', 'cs/tdd']),
      'it has no SKILL.md at its root',
    ],
    [
      'a file where the directory should be',
      tree({ 'cs/tdd': GOOD }, [], ['cs']),
      'it is a file; a Claude Skill is a directory with a SKILL.md at its root',
    ],
  ])('refuses %s naming SKILL.md, never as missing from the package', (_what, t, problem) => {
    const r = materialize(t);
    expect(r.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.claude-skill-invalid',
        message: `claude skill "tdd" ("cs/tdd"): ${problem}`,
        location: expect.objectContaining({ key: 'claude_skills[0].from' }),
      }),
    ]);
  });

  it('a from that is nowhere in the package is still missing', () => {
    expect(materialize(tree({}, [], ['cs'])).issues).toEqual([
      expect.objectContaining({ rule: 'skill.payload-missing' }),
    ]);
  });
});

describe('a local skill whose Claude Skill directory holds no SKILL.md', () => {
  let home: string;
  useTempDir('claude-skill-empty', (tmp) => {
    home = tmp;
  });
  it.each([
    ['empty', []],
    ['holding only dot-files', ['.keep']],
  ])('is INVALID naming SKILL.md when the directory is %s', async (_what, files) => {
    const { loadCatalog } = await import('./catalog.js');
    const dir = path.join(home, 'skills', 'me', 'tool');
    mkdirSync(path.join(dir, 'cs', 'tdd'), { recursive: true });
    for (const f of files) writeFileSync(path.join(dir, 'cs', 'tdd', f), 'x');
    writeFileSync(
      path.join(dir, 'skill.toml'),
      'description = "t"\n[[claude_skills]]\nname = "tdd"\nfrom = "cs/tdd"\n',
    );
    const entry = loadCatalog({ home, kind: 'skill' }).find('me/tool');
    expect(entry?.status).toBe('invalid');
    expect(entry?.issues).toEqual([
      expect.objectContaining({
        rule: 'skill.claude-skill-invalid',
        message: 'claude skill "tdd" ("cs/tdd"): it has no SKILL.md at its root',
        location: expect.objectContaining({ file: path.join(dir, 'skill.toml'), line: 4 }),
      }),
    ]);
  });
});

describe('fsTree marks files reached through a link inside the package', () => {
  let dir: string;
  useTempDir('fs-tree-linked', (tmp) => {
    dir = tmp;
  });
  it('linked() is true for a linked file and for files under a linked directory', async () => {
    const { fsTree } = await import('./packages/fs-tree.js');
    mkdirSync(path.join(dir, 'real'), { recursive: true });
    writeFileSync(path.join(dir, 'real', 'a'), 'a');
    writeFileSync(path.join(dir, 'b'), 'b');
    symlinkSync('b', path.join(dir, 'lb'));
    symlinkSync('real', path.join(dir, 'ldir'));
    const t = fsTree(dir, []);
    expect(t.list().map((rel) => [rel, t.linked?.(rel)])).toEqual([
      ['b', false],
      ['lb', true],
      ['ldir/a', true],
      ['real/a', false],
    ]);
  });
});
