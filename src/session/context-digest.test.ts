import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import { computeContextDigest, listContextFiles, plannedContextFiles } from './context-digest.js';
import { planBuild, type BuildPlan, type ContextEntry } from '../gen/plan.js';
import { stageBuildContext } from './stage.js';

type DigestInput = Parameters<typeof computeContextDigest>[0];
import { fakeConfig, fakeSkill, text } from '../../test/support/config.js';

const base: DigestInput = {
  files: [
    { path: 'Dockerfile.generated', kind: 'file', executable: false, sha256: 'a'.repeat(64) },
    { path: 'byre-launch', kind: 'file', executable: true, sha256: 'b'.repeat(64) },
  ],
  baseImageId: 'sha256:' + 'c'.repeat(64),
  uid: 1000,
  gid: 1000,
  engine: 'docker',
};

describe('computeContextDigest', () => {
  it('ignores listing order', () => {
    expect(computeContextDigest({ ...base, files: [...base.files].reverse() })).toBe(
      computeContextDigest(base),
    );
  });

  it.each<[string, Partial<DigestInput>]>([
    ['a changed byte', { files: [{ ...base.files[0]!, sha256: 'd'.repeat(64) }, base.files[1]!] }],
    [
      'a lost executable bit',
      { files: [base.files[0]!, { ...base.files[1]!, executable: false }] },
    ],
    ['a renamed file', { files: [{ ...base.files[0]!, path: 'Dockerfile' }, base.files[1]!] }],
    [
      'an extra empty dir',
      {
        files: [
          ...base.files,
          { path: 'claude-skills', kind: 'dir', executable: false, sha256: '' },
        ],
      },
    ],
    ['a new base image', { baseImageId: 'sha256:' + 'e'.repeat(64) }],
    ['another uid', { uid: 1001 }],
    ['another gid', { gid: 1001 }],
    ['another engine', { engine: 'podman' }],
  ])('changes with %s', (_name, change) => {
    expect(computeContextDigest({ ...base, ...change })).not.toBe(computeContextDigest(base));
  });
});

describe('listContextFiles', () => {
  it('lists files, dirs and executable bits relative to the root', async () => {
    const root = testTempDir('digest');
    mkdirSync(path.join(root, 'claude-skills'));
    writeFileSync(path.join(root, 'byre-launch'), '#!/bin/sh\n');
    chmodSync(path.join(root, 'byre-launch'), 0o755);
    mkdirSync(path.join(root, 'files', 'sub'), { recursive: true });
    writeFileSync(path.join(root, 'files', 'sub', 'x'), 'x');
    const files = (await listContextFiles(root)).sort((a, b) => a.path.localeCompare(b.path));
    expect(files.map((f) => [f.path, f.kind, f.executable])).toEqual([
      ['byre-launch', 'file', true],
      ['claude-skills', 'dir', false],
      ['files', 'dir', false],
      ['files/sub', 'dir', false],
      ['files/sub/x', 'file', false],
    ]);
  });
});

describe('plannedContextFiles: the staged context’s listing, from the plan alone', () => {
  const bytes = (p: string, content: string | Uint8Array, mode = 0o644): ContextEntry => ({
    path: p,
    mode,
    source: { kind: 'bytes', bytes: content },
  });
  const plan = (entries: ContextEntry[], dirs: string[] = []): BuildPlan =>
    ({ ...planBuild(fakeConfig(), [], '/nowhere'), entries, dirs }) as BuildPlan;
  const skill = fakeSkill('byre/hooked', 'bundled', {
    build: {
      apt: [],
      node: null,
      dockerfile: [],
      files: [
        {
          staged: 'skills/byre/hooked/hook.sh',
          dest: '/etc/byre/firstrun.d/10-hook.sh',
          executable: true,
          content: text('#!/bin/bash\necho hi\n'),
        },
      ],
    },
  });

  it.each<[string, BuildPlan]>([
    ['a real plan with a skill file', planBuild(fakeConfig(), [skill], '/nowhere')],
    [
      'nested files, declared and implied dirs, modes, strings and bytes',
      plan(
        [
          bytes('Dockerfile.generated', 'FROM x\n'),
          bytes('byre-launch', '#!/bin/sh\n', 0o755),
          bytes('a/b/c/deep.txt', new Uint8Array([0, 1, 2, 255])),
          bytes('a/owner-only', 'x', 0o700),
          bytes('./d/./e.txt', ''),
        ],
        ['empty', 'a/b', 'f/g/'],
      ),
    ],
  ])('%s: the same digest as staging it and listing the disk', async (_name, p) => {
    const root = testTempDir('planned');
    const contextDir = path.join(root, 'context');
    await stageBuildContext(contextDir, p, root);
    const digest = (files: DigestInput['files']) => computeContextDigest({ ...base, files });
    const planned = plannedContextFiles(p);
    expect(planned).not.toBeNull();
    expect(digest(planned ?? [])).toBe(digest(await listContextFiles(contextDir)));
  });

  it.each<[string, BuildPlan]>([
    [
      'a file copied from the project',
      plan([
        {
          path: 'files/x',
          mode: 0o644,
          source: {
            kind: 'project-file',
            key: 'files',
            src: 'x',
            hostPath: '/p/x',
            location: { file: 'f' },
          },
        },
      ]),
    ],
    ['two entries on one path', plan([bytes('a', '1'), bytes('./a', '2')])],
    ['a path outside the context', plan([bytes('../up', '1')])],
    ['an absolute path', plan([bytes('/etc/x', '1')])],
    ['a file where a directory must be', plan([bytes('a', '1'), bytes('a/b', '2')])],
  ])('%s: null, so staging decides', (_name, p) => {
    expect(plannedContextFiles(p)).toBeNull();
  });

  it('a changed byte or executable bit changes the digest', () => {
    const d = (p: BuildPlan) =>
      computeContextDigest({ ...base, files: plannedContextFiles(p) ?? [] });
    const one = d(plan([bytes('s', 'a', 0o755)]));
    expect(d(plan([bytes('s', 'b', 0o755)]))).not.toBe(one);
    expect(d(plan([bytes('s', 'a', 0o644)]))).not.toBe(one);
  });
});
