// `byre layer new|list|validate`'s decision table against a temp store (no
// engine): names and self-extension refused as usage (exit 2) before any
// write, a parent whose chain would loop back refused, the scaffold written
// once and never over an existing layer, list showing chains root first and a
// broken one as BROKEN, and validate's exit status naming the first issue.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { UsageError } from '../errors.js';
import { layerListCommand, layerNewCommand, layerValidateCommand } from './layer.js';
import { failure } from '../../test/support/failure.js';

interface World {
  home: string;
  io: FakeIo;
}

let w: World;

useTempDir('layer-cmd', (tmp) => {
  const home = path.join(tmp, 'store');
  w = { home, io: fakeIo({ cwd: tmp, env: { BYRE_HOME: home } }) };
});

const file = (name: string): string => path.join(w.home, 'layers', name, 'layer.config');

function putLayer(name: string, text: string): void {
  mkdirSync(path.dirname(file(name)), { recursive: true });
  writeFileSync(file(name), text);
}

describe('byre layer new', () => {
  it('scaffolds the layer file, prints its path on stdout, and names how to use it', async () => {
    await layerNewCommand(w.io, 'team', {});
    expect(w.io.out).toBe(`${file('team')}\n`);
    expect(readFileSync(file('team'), 'utf8')).toContain('# byre layer "team"');
    expect(w.io.err).toContain('created layer team; a project uses it with extends = "team"');
  });

  it('--extends writes the parent into the scaffold', async () => {
    putLayer('base', '');
    await layerNewCommand(w.io, 'team', { extends: 'base' });
    expect(readFileSync(file('team'), 'utf8')).toContain('extends = "base"');
  });

  it('refuses an existing layer, leaving it as it was', async () => {
    putLayer('team', 'apt = ["jq"]\n');
    await expect(layerNewCommand(w.io, 'team', {})).rejects.toThrow();
    expect(readFileSync(file('team'), 'utf8')).toBe('apt = ["jq"]\n');
  });

  it.each([
    ['layer.name-invalid', 'Bad Name', {}],
    ['layer.name-invalid', 'team', { extends: '../up' }],
    ['layer.extends-self', 'team', { extends: 'team' }],
  ] as const)('%s: usage (exit 2), nothing written', async (rule, name, options) => {
    const error = await failure(layerNewCommand(w.io, name, options));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ rule, exitCode: 2 });
    expect(existsSync(path.join(w.home, 'layers'))).toBe(false);
  });

  it('config.extends-cycle: a parent whose chain dangles at the new name', async () => {
    putLayer('a', 'extends = "team"\n');
    const error = await failure(layerNewCommand(w.io, 'team', { extends: 'a' }));
    expect(error.rule).toBe('config.extends-cycle');
    expect(error.message).toBe('extends cycle: team -> a -> team');
    expect(existsSync(file('team'))).toBe(false);
  });

  it('a parent that is not there is refused, naming the file it needs', async () => {
    const error = await failure(layerNewCommand(w.io, 'team', { extends: 'ghost' }));
    expect(error.rule).toBe('layer.missing');
    expect(existsSync(file('team'))).toBe(false);
  });
});

describe('byre layer list and validate', () => {
  it('list: none yet says so', async () => {
    await layerListCommand(w.io);
    expect(w.io.out).toBe('(no layers)\n');
  });

  it('list: each chain root first; a dangling parent is BROKEN', async () => {
    putLayer('base', '');
    putLayer('team', 'extends = "base"\n');
    putLayer('odd', 'extends = "ghost"\n');
    await layerListCommand(w.io);
    const lines = w.io.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+CHAIN \(root first\)\s+STATUS$/);
    expect(lines.find((l) => l.startsWith('team'))).toMatch(/base -> team\s+ok$/);
    expect(lines.find((l) => l.startsWith('odd'))).toMatch(/BROKEN: /);
  });

  it('validate: ok for a sound layer, exit 0', async () => {
    putLayer('team', 'apt = ["jq"]\n');
    await layerValidateCommand(w.io, 'team');
    expect(w.io.out).toBe('ok  team  (team)\n');
  });

  it('validate: a broken layer fails with the first issue’s rule, after listing every layer', async () => {
    putLayer('good', '');
    putLayer('bad', 'apt = 5\n');
    const error = await failure(layerValidateCommand(w.io, undefined));
    expect(error.message).toBe('1 layer(s) failed validation');
    expect(error.rule).toMatch(/^config\./);
    expect(w.io.out).toContain('BROKEN  bad');
    expect(w.io.out).toContain('ok  good');
    expect(w.io.err).toContain(file('bad'));
  });

  it('validate of a layer that is not there: layer.missing', async () => {
    const error = await failure(layerValidateCommand(w.io, 'ghost'));
    expect(error.rule).toBe('layer.missing');
    expect(w.io.out).toBe('BROKEN  ghost  (ghost)\n');
  });
});
