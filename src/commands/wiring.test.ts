// The wiring verbs' decision table (`byre mcp|claude-skill|context add|remove|list`)
// against a temp store; they need no engine. The refusals and their exit codes
// before any write, what add writes where (project, --layer), the editor
// handoff through its injected seam, remove's not-declared refusal and its
// closure of a lower layer's entry, and list on stdout. The byte-for-byte
// round trips on the binary are test/cli/wiring.test.ts's.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { UsageError } from '../errors.js';
import { projectIdFor } from '../project/identity.js';
import {
  claudeSkillAddCommand,
  contextAddCommand,
  mcpAddCommand,
  wiringListCommand,
  wiringRemoveCommand,
} from './wiring.js';
import { failure } from '../../test/support/failure.js';

interface World {
  tmp: string;
  dir: string;
  home: string;
  user: string;
  config: string;
  io: FakeIo;
}

let w: World;

useTempDir('wiring-cmd', (tmp) => {
  const dir = path.join(tmp, 'proj');
  const home = path.join(tmp, 'store');
  const user = path.join(tmp, 'user');
  mkdirSync(dir);
  mkdirSync(user);
  w = {
    tmp,
    dir,
    home,
    user,
    config: path.join(home, 'projects', projectIdFor(dir), 'byre.config'),
    io: fakeIo({ cwd: dir, env: { BYRE_HOME: home, HOME: user, PATH: '/usr/bin:/bin' } }),
  };
});

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const text = (file: string): string => readFileSync(file, 'utf8');

describe('context add', () => {
  it('--text writes a [[context]] block into the project config, made on first use', async () => {
    await contextAddCommand(w.io, 'style', { text: 'Use tabs.' });
    expect(text(w.config)).toMatch(/\[\[context\]\]\nname = "style"\ntext = "Use tabs\."/);
    expect(w.io.err).toContain(`added context block style in`);
    expect(w.io.err).toContain(`(${w.config})`);
  });

  it('a second add of the same name replaces it, and says so', async () => {
    await contextAddCommand(w.io, 'style', { text: 'one' });
    await contextAddCommand(w.io, 'style', { text: 'two' });
    expect(text(w.config)).not.toContain('"one"');
    expect(text(w.config).match(/\[\[context\]\]/g)).toHaveLength(1);
    expect(w.io.err).toContain('replaced context block style');
  });

  it('--file under the home is stored as ~/…, portable', async () => {
    write(path.join(w.user, 'notes', 'rules.md'), '# rules\n');
    await contextAddCommand(w.io, 'rules', { file: path.join(w.user, 'notes', 'rules.md') });
    expect(text(w.config)).toContain('file = "~/notes/rules.md"');
  });

  it('--layer writes the layer’s file, not the project’s', async () => {
    const layer = path.join(w.home, 'layers', 'team', 'layer.config');
    write(layer, '');
    await contextAddCommand(w.io, 'style', { text: 'x', layer: 'team' });
    expect(text(layer)).toContain('name = "style"');
    expect(existsSync(w.config)).toBe(false);
  });

  it('with neither flag, the editor seam is handed the block’s current text', async () => {
    await contextAddCommand(w.io, 'style', { text: 'before' });
    const seen: string[] = [];
    await contextAddCommand(
      w.io,
      'style',
      {},
      {
        edit: (request) => {
          seen.push(request.initial);
          return 'after';
        },
      },
    );
    expect(seen).toEqual(['before']);
    expect(text(w.config)).toContain('text = "after"');
  });

  it.each([
    ['context.text-and-file', { text: 'a', file: 'b' }, 2],
    ['context.file-invalid', { file: 'missing.md' }, 1],
  ] as const)('%s: refused, nothing written', async (rule, flags, exitCode) => {
    const error = await failure(contextAddCommand(w.io, 'style', flags));
    expect(error).toMatchObject({ rule, exitCode });
    expect(existsSync(w.config)).toBe(false);
  });

  it('context.no-text: no flag and no terminal for $EDITOR', async () => {
    const error = await failure(contextAddCommand(w.io, 'style', {}));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.rule).toBe('context.no-text');
  });

  it('context.empty: an empty edit writes nothing', async () => {
    const error = await failure(contextAddCommand(w.io, 'style', {}, { edit: () => '' }));
    expect(error.rule).toBe('context.empty');
    expect(existsSync(w.config)).toBe(false);
  });

  it('a name that is not one is a usage error', async () => {
    const error = await failure(contextAddCommand(w.io, 'bad name!', { text: 'x' }));
    expect(error.exitCode).toBe(2);
  });
});

describe('mcp add', () => {
  it('a remote server: its egress grant and the env it reads are said', async () => {
    await mcpAddCommand(w.io, 'docs', ['https://mcp.example.com/mcp'], { env: ['DOCS_TOKEN'] });
    expect(text(w.config)).toContain('url = "https://mcp.example.com/mcp"');
    expect(w.io.err).toContain('egress mcp:docs: mcp.example.com:443');
    expect(w.io.err).toContain('DOCS_TOKEN = "env:DOCS_TOKEN"');
  });

  it('mcp.target-missing: no URL and no argv', async () => {
    const error = await failure(mcpAddCommand(w.io, 'docs', [], {}));
    expect(error).toMatchObject({ rule: 'mcp.target-missing', exitCode: 2 });
    expect(existsSync(w.config)).toBe(false);
  });
});

describe('claude-skill add', () => {
  it('takes the name from SKILL.md and stores the directory', async () => {
    write(
      path.join(w.dir, 'skill', 'SKILL.md'),
      '---\nname: review\ndescription: reviews code\n---\nBody.\n',
    );
    await claudeSkillAddCommand(w.io, 'skill', {});
    expect(text(w.config)).toMatch(/name = "review"\npath = "[^"]*\/proj\/skill"/);
  });

  it('claude-skill.invalid: a directory without SKILL.md', async () => {
    mkdirSync(path.join(w.dir, 'empty'));
    const error = await failure(claudeSkillAddCommand(w.io, 'empty', {}));
    expect(error.rule).toBe('claude-skill.invalid');
    expect(error.message).toContain('has no SKILL.md at its root');
    expect(existsSync(w.config)).toBe(false);
  });
});

describe('remove and list', () => {
  it('<verb>.not-declared: nothing of that name here or below, nothing written', async () => {
    for (const [key, rule] of [
      ['mcp', 'mcp.not-declared'],
      ['claude_skills', 'claude-skill.not-declared'],
      ['context', 'context.not-declared'],
    ] as const) {
      expect((await failure(wiringRemoveCommand(w.io, key, 'nothing', {}))).rule).toBe(rule);
    }
    expect(existsSync(w.config)).toBe(false);
  });

  it('removes the project’s own entry', async () => {
    await contextAddCommand(w.io, 'style', { text: 'x' });
    await wiringRemoveCommand(w.io, 'context', 'style', {});
    expect(text(w.config)).not.toContain('style');
    expect(w.io.err).toContain('removed context block style from');
  });

  it('closes an entry a lower layer declares, naming it', async () => {
    write(path.join(w.home, 'default.config'), '[[context]]\nname = "house"\ntext = "h"\n');
    await wiringRemoveCommand(w.io, 'context', 'house', {});
    expect(text(w.config)).toContain('"!house"');
    expect(w.io.err).toContain('closed context block house in');
    expect(w.io.err).toContain('default.config declares it');
  });

  it('list prints the effective set on stdout, and says when there is none', async () => {
    await wiringListCommand(w.io, 'context');
    expect(w.io.out).toContain('(no standing instructions)\n');
    await contextAddCommand(w.io, 'style', { text: 'Use tabs.\nAlways.' });
    await wiringListCommand(w.io, 'context');
    expect(w.io.out).toMatch(/style\s+project\s+Use tabs\.…/);
  });
});
