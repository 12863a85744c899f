import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { privateDirAt, runtimeDirCandidates, runtimeDirFor } from './runtime-dir.js';

describe('runtimeDirFor and its candidates', () => {
  it("is the login session's /run/user/<uid>/byre, else /tmp/byre-<uid>, whatever else the env says", () => {
    expect(runtimeDirFor({ XDG_RUNTIME_DIR: '/run/user/7' }, 7)).toBe('/run/user/7/byre');
    expect(runtimeDirFor({ XDG_RUNTIME_DIR: '/run/user/8' }, 7)).toBe('/tmp/byre-7');
    expect(runtimeDirFor({ XDG_RUNTIME_DIR: '/home/u/run', TMPDIR: '/p/tmp' }, 7)).toBe(
      '/tmp/byre-7',
    );
    expect(runtimeDirFor({}, 7)).toBe('/tmp/byre-7');
  });

  it('guards exactly the places runtimeDirFor can give', () => {
    expect(runtimeDirCandidates(7)).toEqual(['/run/user/7/byre', '/tmp/byre-7']);
  });
});

describe('privateDirAt', () => {
  let root: string;
  const uid = process.getuid?.() ?? 0;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'byre-rt-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('makes the directory 0700 and hands it out', () => {
    const dir = path.join(root, 'byre');
    expect(privateDirAt(dir, uid)).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(privateDirAt(dir, uid)).toBe(dir);
  });

  it('refuses a link, a directory open to others, and a missing parent', () => {
    mkdirSync(path.join(root, 'real'), { mode: 0o700 });
    symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    expect(privateDirAt(path.join(root, 'link'), uid)).toBeNull();
    mkdirSync(path.join(root, 'open'));
    chmodSync(path.join(root, 'open'), 0o755);
    expect(privateDirAt(path.join(root, 'open'), uid)).toBeNull();
    expect(privateDirAt(path.join(root, 'missing', 'byre'), uid)).toBeNull();
  });

  it('refuses a parent writable by others without the sticky bit, and takes one with it', () => {
    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(privateDirAt(path.join(shared, 'byre'), uid)).toBeNull();
    chmodSync(shared, 0o1777);
    expect(privateDirAt(path.join(shared, 'byre'), uid)).toBe(path.join(shared, 'byre'));
  });

  describe.skipIf(uid !== 0)('with other users (needs root to hand files away)', () => {
    it('refuses a directory another user owns', () => {
      const theirs = path.join(root, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, 4242, 4242);
      expect(privateDirAt(theirs, 0)).toBeNull();
    });

    it('refuses a parent owned by a user who is neither the caller nor root', () => {
      const parent = path.join(root, 'parent');
      mkdirSync(parent, { mode: 0o755 });
      chownSync(parent, 4243, 4243);
      expect(privateDirAt(path.join(parent, 'byre'), 4242)).toBeNull();
      // Root with another user's runtime directory in its env keeps no memo there.
      expect(privateDirAt(path.join(parent, 'byre'), 0)).toBeNull();
    });
  });
});
