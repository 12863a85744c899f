import { lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp.js';
import { precreateMountPoints, workspaceMountPoints } from './mount-points.js';

describe('workspaceMountPoints', () => {
  it.each([
    [['/workspace/node_modules'], ['node_modules']],
    [
      ['/workspace/a/b/', '/workspace/a/b', '/workspace/.venv'],
      ['.venv', 'a/b'],
    ],
    [['/workspace', '/workspace/../etc', '/home/dev/.cache', '/workspacex/y'], []],
  ])('%j -> %j', (targets, want) => {
    expect(workspaceMountPoints(targets)).toEqual(want);
  });
});

describe('precreateMountPoints', () => {
  let dir: string;
  useTempDir('mount-points', (tmp) => {
    dir = tmp;
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
