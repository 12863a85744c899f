import { lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { precreateMountPoints } from './mount-points.js';

describe('precreateMountPoints', () => {
  let dir: string;
  useTempDir('mount-points', (tmp) => {
    dir = tmp;
  });

  /** Every directory under `root`, relative, sorted. */
  function dirsUnder(root: string, rel = ''): string[] {
    return readdirSync(path.join(root, rel), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => [
        path.posix.join(rel, e.name),
        ...dirsUnder(root, path.posix.join(rel, e.name)),
      ])
      .sort();
  }

  it.each([
    [['/workspace/node_modules'], ['node_modules']],
    [
      ['/workspace/a/b/', '/workspace/a/b', '/workspace/.venv'],
      ['.venv', 'a', 'a/b'],
    ],
    [['/workspace', '/workspace/../etc', '/home/dev/.cache', '/workspacex/y'], []],
  ])('only targets inside /workspace: %j -> %j', async (targets, want) => {
    const project = path.join(dir, 'project');
    mkdirSync(project);
    expect(await precreateMountPoints(project, targets)).toEqual([]);
    expect(dirsUnder(project)).toEqual(want);
    expect(readdirSync(dir)).toEqual(['project']);
  });

  it('reports each path it could not make once, sorted', async () => {
    writeFileSync(path.join(dir, 'file'), '');
    expect(
      await precreateMountPoints(dir, [
        '/workspace/z/../file/y',
        '/workspace/file/y/',
        '/workspace/file/x',
      ]),
    ).toEqual(['/workspace/file/x', '/workspace/file/y']);
  });

  it('makes each mount point as the caller, keeping what exists', async () => {
    mkdirSync(path.join(dir, 'a'));
    expect(await precreateMountPoints(dir, ['/workspace/a/b', '/workspace/node_modules'])).toEqual(
      [],
    );
    expect(lstatSync(path.join(dir, 'a', 'b')).isDirectory()).toBe(true);
    expect(lstatSync(path.join(dir, 'node_modules')).uid).toBe(process.getuid?.());
  });

  it('never follows a link the box planted, and reports the path', async () => {
    const outside = path.join(dir, 'outside');
    const project = path.join(dir, 'project');
    mkdirSync(outside);
    mkdirSync(project);
    symlinkSync(outside, path.join(project, 'node_modules'));
    writeFileSync(path.join(project, 'file'), '');
    expect(
      await precreateMountPoints(project, ['/workspace/node_modules/x', '/workspace/file/y']),
    ).toEqual(['/workspace/file/y', '/workspace/node_modules/x']);
    expect(readdirSync(outside)).toEqual([]);
  });
});
