// Where config lives and what it may say, through the built binary: develop's
// onboarding names the file it wrote, status names every file of the cascade,
// and an unknown key is located and names the key it is a typo of.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/cli.js';
import { useTempDir } from '../support/temp.js';
import { projectIdFor } from '../../src/project/identity.js';

let project: string;
let home: string;

function byre(args: string[], env: Record<string, string> = {}) {
  return runBin(args, { cwd: project, home, env });
}

function projectFile(): string {
  return path.join(home, 'projects', projectIdFor(project), 'byre.config');
}

useTempDir('cli-config', (tmp) => {
  project = path.join(tmp, 'work', 'proj');
  home = path.join(tmp, 'home');
  mkdirSync(project, { recursive: true });
});

describe('where config lives', () => {
  it('develop names the project file it onboarded, even when no engine is there', () => {
    const empty = path.join(home, '..', 'no-engines');
    mkdirSync(empty, { recursive: true });
    const r = byre(['develop'], { PATH: empty });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`byre: wrote this project's config: ${projectFile()}`);
    expect(existsSync(projectFile())).toBe(true);
  });

  it('off a terminal develop asks nothing: the first-run flags are written, nothing else', () => {
    const empty = path.join(home, '..', 'no-engines');
    mkdirSync(empty, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, 'default.config'), 'template = "byre/python"\n');
    const r = byre(['develop', '--agent', 'byre/codex'], { PATH: empty });
    expect(r.stderr).not.toMatch(/Which (template|agent)/);
    const text = readFileSync(projectFile(), 'utf8');
    expect(text).toMatch(/\nagent = "byre\/codex"\n$/);
    // A favourite only pre-selects a question; off a terminal none is asked.
    expect(text).not.toContain('template');
  });

  it('with defaults.skip_questions develop applies the stored answers unasked, and says so', () => {
    const empty = path.join(home, '..', 'no-engines');
    mkdirSync(empty, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(
      path.join(home, 'default.config'),
      'template = "byre/python"\nagent = "byre/gemini"\n[defaults]\nskip_questions = true\n',
    );
    const r = byre(['develop'], { PATH: empty });
    expect(r.stderr).toContain(
      'byre: configured from your stored answers (defaults.skip_questions in default.config)',
    );
    expect(readFileSync(projectFile(), 'utf8')).toMatch(
      /\ntemplate = "byre\/python"\nagent = "byre\/gemini"\n$/,
    );
  });

  it('byre config needs a terminal, and names the file to edit by hand', () => {
    const r = byre(['config']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('byre config is an interactive editor and needs a terminal');
    expect(r.stderr).toContain(`edit ${projectFile()} by hand`);
  });

  // Refusals and cancels leave the store as they found it: no store, no
  // projects/<id>/path, from a verb that wrote nothing.
  it.each([
    [['config'], 'config.no-tty'],
    [['config', '--global'], 'config.no-tty'],
    [['develop', '--agent', 'nosuch'], 'onboard.agent-missing'],
    [['develop', '--template', 'nosuch'], 'onboard.template-missing'],
  ])('%j refuses (%s) and leaves no store behind', (args) => {
    const r = byre(args, { PATH: path.join(home, '..', 'no-engines') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('byre: ');
    expect(existsSync(home)).toBe(false);
  });

  it('status names every file of the cascade, lowest first, and the missing ones', () => {
    mkdirSync(path.join(home, 'layers', 'corp'), { recursive: true });
    writeFileSync(path.join(home, 'layers', 'corp', 'layer.config'), 'apt = ["jq"]\n');
    mkdirSync(path.dirname(projectFile()), { recursive: true });
    writeFileSync(projectFile(), 'template = "node"\nextends = "corp"\n');
    const page = byre(['status']);
    expect(page.stdout).toMatch(/^Config files: /m);
    const r = byre(['status', '--data']);
    const data = JSON.parse(r.stdout) as { config_files: unknown };
    expect(data.config_files).toEqual([
      { kind: 'default', name: 'default', path: path.join(home, 'default.config'), present: false },
      { kind: 'template', name: 'byre/node', path: null, present: true },
      {
        kind: 'layer',
        name: 'corp',
        path: path.join(home, 'layers', 'corp', 'layer.config'),
        present: true,
      },
      { kind: 'project', name: 'project', path: projectFile(), present: true },
    ]);
  });
});

describe('what config may say', () => {
  it('an unknown key is located and names the key it is a typo of', () => {
    mkdirSync(path.dirname(projectFile()), { recursive: true });
    writeFileSync(projectFile(), '# mine\natp = ["jq"]\n');
    const r = byre(['dockerfile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${projectFile()}:2:1`);
    expect(r.stderr).toContain('did you mean apt?');
    expect(r.stderr).toContain('[config.unknown-key]');
  });
});
