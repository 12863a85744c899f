import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp.js';
import { computeContextDigest, listContextFiles, type DigestInput } from './context-digest.js';

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
