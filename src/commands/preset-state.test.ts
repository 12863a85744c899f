// What the preset drift note is read from, over a real temp store and
// directory: the applied marker byre wrote (and nothing it did not write),
// the store config's and a local source's hashes (an https source is never
// fetched), the in-tree byre.preset and the retired byre.config; and that
// every read is safe on box-writable paths (a link is not followed, a FIFO
// not waited on, an oversized file not read), each such file `unreadable`.

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
import { MAX_CONFIG_BYTES } from '../config/parse.js';
import { projectStorePaths, type ProjectStorePaths } from '../project/store-layout.js';
import { readPresetFacts, writeAppliedMarker } from './preset-state.js';

interface World {
  root: string;
  dir: string;
  project: ProjectStorePaths;
}

let w: World;

useTempDir('preset-state', (tmp) => {
  const dir = path.join(tmp, 'proj');
  mkdirSync(dir);
  const project = projectStorePaths(path.join(tmp, 'store'), 'proj-0a1b2c');
  mkdirSync(project.dir, { recursive: true });
  w = { root: tmp, dir, project };
});

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const facts = () => readPresetFacts(w.project, w.dir);
const inDir = (name: string): string => path.join(w.dir, name);

describe('readPresetFacts', () => {
  it('a project with no preset: nothing to say', () => {
    expect(facts()).toEqual({
      marker: null,
      storeConfig: { kind: 'missing' },
      source: null,
      inTree: { kind: 'missing' },
      legacyInTree: false,
    });
  });

  it('the marker written by apply, the store config, and the local source it names, hashed', async () => {
    const source = path.join(w.root, 'team.preset');
    writeFileSync(source, 'apt = ["jq"]\n');
    writeFileSync(w.project.config, 'apt = ["jq", "curl"]\n');
    const marker = { sha256: sha('apt = ["jq"]\n'), source };
    await writeAppliedMarker(w.project, marker);
    expect(readFileSync(w.project.applied, 'utf8')).toBe(`${marker.sha256}\n${source}`);
    expect(statSync(w.project.applied).mode & 0o777).toBe(0o600);
    expect(facts()).toMatchObject({
      marker,
      storeConfig: { kind: 'ok', sha256: sha('apt = ["jq", "curl"]\n') },
      source: { kind: 'ok', sha256: marker.sha256 },
    });
  });

  it('a local source gone since it was applied is missing', async () => {
    await writeAppliedMarker(w.project, { sha256: sha('x'), source: path.join(w.root, 'gone') });
    expect(facts().source).toEqual({ kind: 'missing' });
  });

  it('an https source is never fetched for a note', async () => {
    await writeAppliedMarker(w.project, { sha256: sha('x'), source: 'https://example.com/p' });
    expect(facts()).toMatchObject({
      marker: { source: 'https://example.com/p' },
      source: null,
    });
  });

  it.each([
    ['not a marker byre wrote', () => writeFileSync(w.project.applied, 'hello\n')],
    ['over its cap', () => writeFileSync(w.project.applied, `${sha('x')}\n/${'a'.repeat(5000)}`)],
    [
      'a link to a marker',
      () => {
        const real = path.join(w.root, 'marker');
        writeFileSync(real, `${sha('x')}\n/etc/passwd`);
        symlinkSync(real, w.project.applied);
      },
    ],
  ])('a marker %s is no marker (its source is not read)', (_, plant) => {
    plant();
    expect(facts()).toMatchObject({ marker: null, source: null });
  });

  it('byre.preset in the directory is hashed; the retired byre.config is only noticed', () => {
    writeFileSync(inDir('byre.preset'), 'template = "go"\n');
    writeFileSync(inDir('byre.config'), 'not read\n');
    expect(facts()).toMatchObject({
      inTree: { kind: 'ok', sha256: sha('template = "go"\n') },
      legacyInTree: true,
    });
  });

  it('a retired byre.config counts even as a dangling link', () => {
    symlinkSync(path.join(w.root, 'nowhere'), inDir('byre.config'));
    expect(facts().legacyInTree).toBe(true);
  });

  it.each([
    ['a link', (p: string) => symlinkSync('/etc/hostname', p)],
    ['a FIFO (not waited on)', (p: string) => execFileSync('mkfifo', [p])],
    ['a directory', (p: string) => mkdirSync(p)],
    ['over the config cap', (p: string) => writeFileSync(p, 'x'.repeat(MAX_CONFIG_BYTES + 1))],
  ])('a byre.preset or store config that is %s is unreadable', (_, plant) => {
    plant(inDir('byre.preset'));
    plant(w.project.config);
    expect(facts()).toMatchObject({
      inTree: { kind: 'unreadable' },
      storeConfig: { kind: 'unreadable' },
    });
  });

  it('a local source that is a link is unreadable, never followed', async () => {
    const link = path.join(w.root, 'team.preset');
    symlinkSync('/etc/hostname', link);
    await writeAppliedMarker(w.project, { sha256: sha('x'), source: link });
    expect(facts().source).toEqual({ kind: 'unreadable' });
  });
});

describe('writeAppliedMarker', () => {
  it('replaces the marker whole', async () => {
    await writeAppliedMarker(w.project, { sha256: sha('a'), source: '/a' });
    await writeAppliedMarker(w.project, { sha256: sha('b'), source: '/b' });
    expect(facts().marker).toEqual({ sha256: sha('b'), source: '/b' });
  });
});
