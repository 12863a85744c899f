// Which file a config write verb edits, over a real temp store: --global and
// --layer together refused (exit 2), a --layer that does not exist refused
// naming how to make it, the project's own config guarded by the path record
// and the fresh-config question, nothing written until `prepare`, and the
// cascade split at the target (what the layers below still declare), read as
// empty with a note when it does not load.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { fakeIo, type FakeIo } from '../../test/support/io.js';
import { useTempDir } from '../../test/support/temp.js';
import { projectDirs } from '../../test/support/project-world.js';
import { ByreError, UsageError } from '../errors.js';
import type { ConfigFile } from '../config/write.js';
import { projectIdFor } from '../project/identity.js';
import { recordProjectPath } from '../project/store.js';
import { resolveTarget, splitCascade, type TargetFlags } from './config-target.js';

interface World {
  root: string;
  dir: string;
  home: string;
  id: string;
  store: string;
  io: FakeIo;
}

let w: World;

useTempDir('config-target', (tmp) => {
  const p = projectDirs(tmp);
  w = { ...p, io: fakeIo({ cwd: p.dir, env: p.env }) };
});

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const layerFile = (name: string): string => path.join(w.home, 'layers', name, 'layer.config');
const projectFile = (): string => path.join(w.store, 'byre.config');
const defaultFile = (): string => path.join(w.home, 'default.config');

async function refusal(flags: TargetFlags): Promise<ByreError> {
  const error = await resolveTarget(w.io, flags).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ByreError)) throw new Error(`expected a ByreError, got ${String(error)}`);
  return error;
}

describe('resolveTarget', () => {
  it('config.target-ambiguous: --global with --layer is a usage error (exit 2), nothing read or made', async () => {
    const error = await refusal({ global: true, layer: 'work' });
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ rule: 'config.target-ambiguous', exitCode: 2 });
    expect(error.remedy).toContain('--global (default.config) or --layer <name>');
    expect(existsSync(w.home)).toBe(false);
  });

  it("the project's config by default, its store made only by prepare", async () => {
    const target = await resolveTarget(w.io, {});
    expect(target.file).toEqual({ path: projectFile(), kind: 'project', name: 'project' });
    expect(target.lock).toBe(target.ctx.project);
    expect(target.label).toBe("this project's config");
    expect(target.seed).toContain(`# byre project config for ${w.dir}\n`);
    // A verb that refuses or is cancelled before its write leaves no trace.
    expect(existsSync(w.home)).toBe(false);
    await target.prepare();
    expect(statSync(w.store).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(w.store, 'path'), 'utf8')).toBe(`${w.dir}\n`);
    expect(existsSync(projectFile())).toBe(false);
  });

  it("project.id-collision: this id's store recording another directory is refused (exit 3)", async () => {
    await recordProjectPath(w.home, w.id, path.join(w.root, 'elsewhere'));
    const error = await refusal({});
    expect(error).toMatchObject({ rule: 'project.id-collision', exitCode: 3 });
  });

  it('project.fresh-config-unconfirmed: a fresh config that would drop an earlier identity’s firewall is refused off a terminal', async () => {
    // This directory was launched as a linked worktree of another project, firewalled.
    const old = projectIdFor(path.join(w.root, 'main'));
    put(path.join(w.home, 'projects', old, 'path'), `${path.join(w.root, 'main')}\n`);
    put(path.join(w.home, 'projects', old, `engine.${w.id}`), 'docker\n');
    put(path.join(w.home, 'projects', old, 'byre.config'), 'skills = ["firewall"]\n');
    const error = await refusal({});
    expect(error).toMatchObject({ rule: 'project.fresh-config-unconfirmed', exitCode: 3 });
    expect(existsSync(w.store)).toBe(false);
    // With its config present, the project is not asked again.
    put(projectFile(), '');
    await expect(resolveTarget(w.io, {})).resolves.toMatchObject({
      label: "this project's config",
    });
  });

  it('--global: default.config, seeded with what it is; no project lock without a project store', async () => {
    const target = await resolveTarget(w.io, { global: true });
    expect(target.file).toEqual({ path: defaultFile(), kind: 'default', name: 'default' });
    expect(target.label).toBe('default.config');
    expect(target.seed).toMatch(/^# byre default\.config: your baseline/);
    expect(target.lock).toBeUndefined();
    expect(existsSync(w.home)).toBe(false);
    await target.prepare();
    expect(statSync(w.home).mode & 0o777).toBe(0o700);
    expect(existsSync(w.store)).toBe(false);
  });

  it("--global in a directory with a store holds that project's lock", async () => {
    mkdirSync(w.store, { recursive: true });
    const target = await resolveTarget(w.io, { global: true });
    expect(target.lock?.dir).toBe(w.store);
  });

  it("--global and --layer skip the project's own guards: the shared files are not this project's", async () => {
    await recordProjectPath(w.home, w.id, path.join(w.root, 'elsewhere'));
    put(layerFile('work'), '');
    await expect(resolveTarget(w.io, { global: true })).resolves.toMatchObject({
      label: 'default.config',
    });
    await expect(resolveTarget(w.io, { layer: 'work' })).resolves.toMatchObject({
      label: 'layer work',
    });
  });

  it('--layer: the named layer that exists, with no seed and nothing to prepare', async () => {
    put(layerFile('work'), 'apt = ["jq"]\n');
    const target = await resolveTarget(w.io, { layer: 'work' });
    expect(target.file).toEqual({ path: layerFile('work'), kind: 'layer', name: 'work' });
    expect(target.label).toBe('layer work');
    expect(target.seed).toBe('');
    expect(target.lock).toBeUndefined();
    await target.prepare();
    expect(existsSync(w.store)).toBe(false);
  });

  it('layer.missing: a --layer that does not exist is refused, naming the file and how to make it', async () => {
    const error = await refusal({ layer: 'work' });
    expect(error).toMatchObject({ rule: 'layer.missing', exitCode: 1 });
    expect(error.message).toBe(`layer work does not exist (${layerFile('work')})`);
    expect(error.remedy).toBe('create it with byre layer new work');
    expect(existsSync(w.home)).toBe(false);
  });

  it('config.layer-name-invalid: a --layer outside the grammar never becomes a path', async () => {
    const error = await refusal({ layer: '../escape' });
    expect(error.rule).toBe('config.layer-name-invalid');
  });
});

describe('splitCascade', () => {
  /** default.config, layer work extending nothing, and the project extending work. */
  function cascade(): void {
    put(defaultFile(), 'apt = ["from-default"]\n');
    put(layerFile('work'), 'apt = ["from-layer"]\n');
    put(projectFile(), 'extends = "work"\napt = ["from-project"]\n');
  }

  async function split(file: ConfigFile) {
    const target = await resolveTarget(w.io, {});
    return splitCascade(w.io, target.ctx, file);
  }

  const apt = (c: { apt: { value: string }[] }): string[] => c.apt.map((a) => a.value);

  it("at the project's config: everything below it, nothing above", async () => {
    cascade();
    const got = await split({ path: projectFile(), kind: 'project', name: 'project' });
    expect(apt(got.config)).toEqual(['from-default', 'from-layer', 'from-project']);
    expect(apt(got.below)).toEqual(['from-default', 'from-layer']);
    expect(got.above).toEqual([]);
    expect(w.io.err).toBe('');
  });

  it('at default.config: the core below it, the layer and the project above', async () => {
    cascade();
    const got = await split({ path: defaultFile(), kind: 'default', name: 'default' });
    expect(apt(got.below)).toEqual([]);
    expect(got.above.map((l) => l.ref.path)).toEqual([layerFile('work'), projectFile()]);
  });

  it('at a layer in the chain: default below it, the project above', async () => {
    cascade();
    const got = await split({ path: layerFile('work'), kind: 'layer', name: 'work' });
    expect(apt(got.below)).toEqual(['from-default']);
    expect(got.above.map((l) => l.ref.path)).toEqual([projectFile()]);
  });

  it("at a layer outside this directory's chain: cut where its kind would sit, nothing above", async () => {
    cascade();
    put(layerFile('other'), 'apt = ["from-other"]\n');
    const got = await split({ path: layerFile('other'), kind: 'layer', name: 'other' });
    expect(apt(got.below)).toEqual(['from-default']);
    expect(got.above).toEqual([]);
  });

  it('a cascade that does not load is noted and read as empty: the verb decides from its file alone', async () => {
    put(defaultFile(), 'apt = ["from-default"]\n');
    put(projectFile(), 'apt = 3\n');
    const got = await split({ path: defaultFile(), kind: 'default', name: 'default' });
    expect(apt(got.config)).toEqual([]);
    expect(apt(got.below)).toEqual([]);
    expect(got.above).toEqual([]);
    expect(w.io.err).toMatch(/^byre: note: this directory's config does not load \(/);
    expect(w.io.err).toContain(`deciding from ${defaultFile()} alone`);
  });

  it('skills that do not resolve are noted and ignored; the cascade still splits', async () => {
    put(defaultFile(), 'apt = ["from-default"]\nskills = ["no-such-skill"]\n');
    const got = await split({ path: projectFile(), kind: 'project', name: 'project' });
    expect(got.skills).toEqual([]);
    expect(apt(got.below)).toEqual(['from-default']);
    expect(w.io.err).toMatch(/^byre: note: skills do not resolve \(.*\); ignoring them\n$/);
  });

  it('the skills the cascade enables are resolved', async () => {
    put(projectFile(), 'skills = ["firewall"]\n');
    const got = await split({ path: projectFile(), kind: 'project', name: 'project' });
    expect(got.skills.map((s) => s.id)).toContain('byre/firewall');
  });
});
