import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { renderConfigDoc } from '../config/config-doc.js';
import { describe, expect, it } from 'vitest';

import { planBuild } from '../gen/plan.js';
import {
  checkProjectFiles,
  readContextFiles,
  stageBuildContext,
  stageFreshContext,
} from './stage.js';
import { fakeConfig, fakeSkill, sourced, text } from '../../test/support/config.js';
import { useTempDir, putFile } from '../../test/support/temp.js';

let dir: string;
let project: string;
let contextDir: string;

useTempDir('stage-test', (tmp) => {
  dir = tmp;
  project = path.join(dir, 'project');
  mkdirSync(project);
  contextDir = path.join(dir, 'store', 'projects', 'app-abc123', 'context');
});

function put(rel: string, content: string, mode = 0o644): void {
  putFile(dir, rel, content, mode);
}

function listTree(root: string, prefix = ''): string[] {
  return readdirSync(root, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((d) =>
      d.isDirectory()
        ? [`${prefix}${d.name}/`, ...listTree(path.join(root, d.name), `${prefix}${d.name}/`)]
        : [`${prefix}${d.name}`],
    );
}

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe('stageFreshContext (byre dockerfile --context)', () => {
  it('writes a whole context into a new directory, and never over one that holds anything', async () => {
    const plan = planBuild(fakeConfig(), [], project);
    const fresh = path.join(dir, 'fresh');
    await stageFreshContext(fresh, plan, project);
    expect(listTree(fresh)).toContain('byre-launch');
    expect(listTree(fresh)).toContain('Dockerfile.generated');
    put('taken/mine.txt', 'keep');
    await expect(stageFreshContext(path.join(dir, 'taken'), plan, project)).rejects.toThrow();
    expect(listTree(path.join(dir, 'taken'))).toEqual(['mine.txt']);
    expect(readdirSync(dir).filter((n) => n.includes('staging'))).toEqual([]);
  });
});

describe('stageBuildContext', () => {
  it('writes the full context with modes, skill payload and project files', async () => {
    put('project/seed/a.txt', 'a');
    put('project/seed/bin/run', '#!/bin/sh\n', 0o755);
    put('project/conf.toml', 'x = 1\n');
    const skill = fakeSkill('byre/tool', 'bundled', {
      agent: { command: 'tool', state: null, context: false, mcp: false, claudeSkills: false },
      build: {
        apt: [],
        node: null,
        dockerfile: [],
        files: [
          {
            staged: 'skills/byre/tool/run.sh',
            dest: '/usr/local/bin/tool',
            executable: true,
            content: text('#!/bin/sh\n'),
          },
        ],
      },
    });
    const plan = planBuild(
      fakeConfig({
        agent: sourced('byre/tool'),
        files: { './seed': sourced('/opt/seed'), 'conf.toml': sourced('/etc/conf.toml') },
      }),
      [skill],
      project,
    );
    await stageBuildContext(contextDir, plan, project);

    expect(listTree(contextDir)).toEqual([
      'Dockerfile.generated',
      'agent-cmd',
      'byre-ensure-node',
      'byre-launch',
      'byre-profile-env.sh',
      'config-reference.md',
      'files/',
      'files/conf.toml',
      'files/seed/',
      'files/seed/a.txt',
      'files/seed/bin/',
      'files/seed/bin/run',
      'self-edit.md',
      'skills/',
      'skills/byre/',
      'skills/byre/tool/',
      'skills/byre/tool/run.sh',
      'wiring/',
      'wiring/agent-context.md',
      'wiring/claude-skills/',
      'wiring/claude-skills/.claude/',
      'wiring/claude-skills/.claude/skills/',
      'wiring/mcp.json',
    ]);
    expect(readFileSync(path.join(contextDir, 'config-reference.md'), 'utf8')).toBe(
      renderConfigDoc(),
    );
    expect(readFileSync(path.join(contextDir, 'self-edit.md'), 'utf8')).toContain(
      '/home/dev/.byre-self/byre.config',
    );
    expect(readFileSync(path.join(contextDir, 'Dockerfile.generated'), 'utf8')).toBe(
      plan.dockerfile,
    );
    expect(mode(path.join(contextDir, 'byre-launch'))).toBe('755');
    expect(mode(path.join(contextDir, 'agent-cmd'))).toBe('755');
    expect(mode(path.join(contextDir, 'byre-profile-env.sh'))).toBe('644');
    expect(mode(path.join(contextDir, 'skills/byre/tool/run.sh'))).toBe('755');
    expect(mode(path.join(contextDir, 'files/seed/bin/run'))).toBe('755');
    expect(readdirSync(path.dirname(contextDir))).toEqual(['context']);
  });

  it('replaces a previous context wholesale', async () => {
    put('store/projects/app-abc123/context/stale-file', 'old');
    await stageBuildContext(contextDir, planBuild(fakeConfig(), [], project), project);
    expect(existsSync(path.join(contextDir, 'stale-file'))).toBe(false);
    expect(readdirSync(path.dirname(contextDir))).toEqual(['context']);
  });

  it('follows symlinks that stay inside the project', async () => {
    put('project/real.txt', 'inside');
    symlinkSync('real.txt', path.join(project, 'link.txt'));
    const plan = planBuild(fakeConfig({ files: { 'link.txt': sourced('/x') } }), [], project);
    await stageBuildContext(contextDir, plan, project);
    expect(readFileSync(path.join(contextDir, 'files/link.txt'), 'utf8')).toBe('inside');
  });

  const escapes: [string, () => string][] = [
    [
      'a top-level symlink out of the project',
      () => {
        put('secret', 'key');
        symlinkSync(path.join(dir, 'secret'), path.join(project, 'innocent'));
        return 'innocent';
      },
    ],
    [
      'a symlink nested in a copied directory',
      () => {
        put('secret', 'key');
        put('project/tree/ok.txt', 'ok');
        symlinkSync('../../secret', path.join(project, 'tree', 'sneaky'));
        return 'tree';
      },
    ],
    [
      'a symlinked directory out of the project',
      () => {
        put('outside/key', 'key');
        symlinkSync(path.join(dir, 'outside'), path.join(project, 'dirlink'));
        return 'dirlink';
      },
    ],
  ];
  for (const [name, arrange] of escapes) {
    it(`refuses ${name} and keeps the previous context`, async () => {
      await stageBuildContext(contextDir, planBuild(fakeConfig(), [], project), project);
      const before = listTree(contextDir);
      const key = arrange();
      const plan = planBuild(fakeConfig({ files: { [key]: sourced('/dest') } }), [], project);
      const err = await stageBuildContext(contextDir, plan, project).catch((e: unknown) => e);
      expect(err).toMatchObject({ rule: 'files.escapes-project' });
      expect((err as Error).message).toContain(`"${key}"`);
      expect(listTree(contextDir)).toEqual(before);
      expect(readdirSync(path.dirname(contextDir))).toEqual(['context']);
    });
  }

  for (const [name, arrange] of escapes) {
    it(`refuses ${name} at plan time, naming the declaration`, async () => {
      const key = arrange();
      const plan = planBuild(fakeConfig({ files: { [key]: sourced('/dest') } }), [], project);
      const err = await checkProjectFiles(plan, project).catch((e: unknown) => e);
      expect(err).toMatchObject({
        rule: 'files.escapes-project',
        location: { key: `files."${key}"` },
      });
    });
  }

  it('names a missing source at plan time', async () => {
    const plan = planBuild(fakeConfig({ files: { nope: sourced('/dest') } }), [], project);
    await expect(checkProjectFiles(plan, project)).rejects.toMatchObject({
      rule: 'files.source-missing',
      location: { key: 'files."nope"' },
    });
  });

  it('skips a FIFO inside a copied tree without reading it', async () => {
    put('project/tree/ok.txt', 'ok');
    execFileSync('mkfifo', [path.join(project, 'tree', 'pipe')]);
    const plan = planBuild(fakeConfig({ files: { tree: sourced('/t') } }), [], project);
    await checkProjectFiles(plan, project);
    await stageBuildContext(contextDir, plan, project);
    expect(listTree(path.join(contextDir, 'files'))).toEqual(['tree/', 'tree/ok.txt']);
  });

  it('refuses a missing source', async () => {
    const plan = planBuild(fakeConfig({ files: { nope: sourced('/dest') } }), [], project);
    await expect(stageBuildContext(contextDir, plan, project)).rejects.toMatchObject({
      rule: 'files.source-missing',
    });
    expect(existsSync(contextDir)).toBe(false);
  });

  it('refuses hand-made plan entries that escape the context', async () => {
    const plan = planBuild(fakeConfig(), [], project);
    plan.entries.push({ path: '../outside', mode: 0o644, source: { kind: 'bytes', bytes: 'x' } });
    await expect(stageBuildContext(contextDir, plan, project)).rejects.toMatchObject({
      rule: 'gen.context-path',
    });
    expect(existsSync(path.join(path.dirname(contextDir), 'outside'))).toBe(false);
  });

  it('survives a symlink cycle inside a copied directory', async () => {
    put('project/loop/file', 'f');
    symlinkSync('..', path.join(project, 'loop', 'up'));
    const plan = planBuild(fakeConfig({ files: { loop: sourced('/loop') } }), [], project);
    await stageBuildContext(contextDir, plan, project);
    expect(readFileSync(path.join(contextDir, 'files/loop/file'), 'utf8')).toBe('f');
  });
});

describe('readContextFiles', () => {
  it('reads declared files, expanding ~', async () => {
    put('home/notes.md', 'hello\n');
    const config = fakeConfig({
      context: [sourced({ name: 'n', file: '~/notes.md' }), sourced({ name: 't', text: 'inline' })],
    });
    expect(await readContextFiles(config, path.join(dir, 'home'))).toEqual(
      new Map([['~/notes.md', 'hello\n']]),
    );
  });

  it('fails, attributed, on a missing file', async () => {
    const config = fakeConfig({ context: [sourced({ name: 'gone', file: '/does/not/exist.md' })] });
    await expect(readContextFiles(config, dir)).rejects.toMatchObject({
      rule: 'context.file-missing',
      location: { key: 'context.gone' },
    });
  });

  const refusals: [string, () => string, string][] = [
    [
      'a link out of the file’s own directory',
      () => {
        put('secret', 'key');
        mkdirSync(path.join(dir, 'home'), { recursive: true });
        symlinkSync(path.join(dir, 'secret'), path.join(dir, 'home', 'agent.md'));
        return '~/agent.md';
      },
      'context.escapes',
    ],
    [
      'a link inside the project leading out of it',
      () => {
        put('secret', 'key');
        mkdirSync(path.join(project, 'docs'), { recursive: true });
        symlinkSync(path.join(dir, 'secret'), path.join(project, 'docs', 'agent.md'));
        return `${project}/docs/agent.md`;
      },
      'context.escapes',
    ],
    [
      'a directory in the project that became a link out of it',
      () => {
        put('elsewhere/agent.md', 'host file');
        symlinkSync(path.join(dir, 'elsewhere'), path.join(project, 'docs'));
        return `${project}/docs/agent.md`;
      },
      'context.escapes',
    ],
    [
      'a FIFO',
      () => {
        mkdirSync(path.join(dir, 'home'), { recursive: true });
        execFileSync('mkfifo', [path.join(dir, 'home', 'agent.md')]);
        return '~/agent.md';
      },
      'context.not-file',
    ],
    [
      'a directory',
      () => {
        mkdirSync(path.join(dir, 'home', 'agent.md'), { recursive: true });
        return '~/agent.md';
      },
      'context.not-file',
    ],
  ];
  it.each(refusals)('refuses %s, naming the declaration', async (_what, arrange, rule) => {
    const file = arrange();
    const config = fakeConfig({ context: [sourced({ name: 'notes', file })] });
    await expect(readContextFiles(config, path.join(dir, 'home'), [project])).rejects.toMatchObject(
      { rule, location: { key: 'context.notes' } },
    );
  });

  it('follows a link that stays in the file’s own directory', async () => {
    put('home/notes/real.md', 'real\n');
    symlinkSync('real.md', path.join(dir, 'home', 'notes', 'agent.md'));
    const config = fakeConfig({ context: [sourced({ name: 'n', file: '~/notes/agent.md' })] });
    expect(await readContextFiles(config, path.join(dir, 'home'))).toEqual(
      new Map([['~/notes/agent.md', 'real\n']]),
    );
  });

  it.each([
    ['/p/docs/a.md', ['/p'], '/p'],
    ['/p/docs/a.md', ['/q', '/p/docs', '/p'], '/p'],
    ['/home/u/notes/a.md', ['/p'], '/home/u/notes'],
  ])('a link in %s under %j may resolve within %s', async (full, roots, want) => {
    const at = (p: string): string => path.join(dir, p);
    put('secret', 'key');
    mkdirSync(path.dirname(at(full)), { recursive: true });
    symlinkSync(at('secret'), at(full));
    const config = fakeConfig({ context: [sourced({ name: 'n', file: at(full) })] });
    await expect(readContextFiles(config, dir, roots.map(at))).rejects.toMatchObject({
      rule: 'context.escapes',
      message: `context "n": ${at(full)} is a link to ${at('secret')}, outside ${at(want)}`,
    });
  });
});
