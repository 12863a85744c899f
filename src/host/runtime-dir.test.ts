import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { useTempDir } from '../../test/support/temp.js';
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
  const temp = useTempDir('rt');
  const uid = process.getuid?.() ?? 0;

  it('makes the directory 0700 and hands it out', () => {
    const dir = path.join(temp.path, 'byre');
    expect(privateDirAt(dir, uid)).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(privateDirAt(dir, uid)).toBe(dir);
  });

  it('refuses a link, a directory open to others, and a missing parent', () => {
    mkdirSync(path.join(temp.path, 'real'), { mode: 0o700 });
    symlinkSync(path.join(temp.path, 'real'), path.join(temp.path, 'link'));
    expect(privateDirAt(path.join(temp.path, 'link'), uid)).toBeNull();
    mkdirSync(path.join(temp.path, 'open'));
    chmodSync(path.join(temp.path, 'open'), 0o755);
    expect(privateDirAt(path.join(temp.path, 'open'), uid)).toBeNull();
    expect(privateDirAt(path.join(temp.path, 'missing', 'byre'), uid)).toBeNull();
  });

  it('refuses a parent writable by others without the sticky bit, and takes one with it', () => {
    const shared = path.join(temp.path, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(privateDirAt(path.join(shared, 'byre'), uid)).toBeNull();
    chmodSync(shared, 0o1777);
    expect(privateDirAt(path.join(shared, 'byre'), uid)).toBe(path.join(shared, 'byre'));
  });

  describe.skipIf(uid !== 0)('with other users (needs temp.path to hand files away)', () => {
    it('refuses a directory another user owns', () => {
      const theirs = path.join(temp.path, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, 4242, 4242);
      expect(privateDirAt(theirs, 0)).toBeNull();
    });

    it('refuses a parent owned by a user who is neither the caller nor temp.path', () => {
      const parent = path.join(temp.path, 'parent');
      mkdirSync(parent, { mode: 0o755 });
      chownSync(parent, 4243, 4243);
      expect(privateDirAt(path.join(parent, 'byre'), 4242)).toBeNull();
      // Root with another user's runtime directory in its env keeps no memo there.
      expect(privateDirAt(path.join(parent, 'byre'), 0)).toBeNull();
    });
  });
});
