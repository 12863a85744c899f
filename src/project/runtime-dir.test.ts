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

import { privateRuntimeDir, runtimeDirCandidates, runtimeDirFor } from './runtime-dir.js';

describe('runtimeDirFor and its candidates', () => {
  it('is $XDG_RUNTIME_DIR/byre, else $TMPDIR/byre-<uid>, else /tmp/byre-<uid>', () => {
    expect(runtimeDirFor({ XDG_RUNTIME_DIR: '/run/user/7', TMPDIR: '/t' }, 7)).toBe(
      '/run/user/7/byre',
    );
    expect(runtimeDirFor({ TMPDIR: '/t' }, 7)).toBe('/t/byre-7');
    expect(runtimeDirFor({ XDG_RUNTIME_DIR: 'rel', TMPDIR: 'rel' }, 7)).toBe('/tmp/byre-7');
  });

  it('guards every place another shell of the user might use', () => {
    expect(runtimeDirCandidates({ XDG_RUNTIME_DIR: '/x', TMPDIR: '/t' }, 7)).toEqual([
      '/x/byre',
      '/t/byre-7',
      '/tmp/byre-7',
      '/run/user/7/byre',
    ]);
    expect(runtimeDirCandidates({}, 7)).toEqual(['/tmp/byre-7', '/run/user/7/byre']);
    expect(runtimeDirCandidates({ XDG_RUNTIME_DIR: '/x' }, null)).toEqual(['/x/byre']);
  });
});

describe('privateRuntimeDir', () => {
  let root: string;
  const uid = process.getuid?.() ?? 0;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'byre-rt-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('makes the directory 0700 and hands it out', () => {
    const dir = privateRuntimeDir({ XDG_RUNTIME_DIR: root, TMPDIR: '/nowhere' }, uid);
    expect(dir).toBe(path.join(root, 'byre'));
    expect(statSync(dir ?? '').mode & 0o777).toBe(0o700);
    expect(privateRuntimeDir({ XDG_RUNTIME_DIR: root }, uid)).toBe(dir);
  });

  it('refuses a link, a directory open to others, and another owner', () => {
    mkdirSync(path.join(root, 'real'), { mode: 0o700 });
    symlinkSync(path.join(root, 'real'), path.join(root, 'byre'));
    expect(privateRuntimeDir({ XDG_RUNTIME_DIR: root }, uid)).toBeNull();
    mkdirSync(path.join(root, `byre-${uid}`));
    chmodSync(path.join(root, `byre-${uid}`), 0o755);
    expect(privateRuntimeDir({ TMPDIR: root }, uid)).toBeNull();
    // The directory is made (by this uid), then found not to be the other uid's.
    expect(privateRuntimeDir({ TMPDIR: path.join(root, 'real') }, uid + 1)).toBeNull();
  });

  it('refuses a parent another user could swap it in: theirs, or open to all without the sticky bit', () => {
    const open = path.join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(privateRuntimeDir({ TMPDIR: open }, uid)).toBeNull();
    chmodSync(open, 0o1777);
    expect(privateRuntimeDir({ TMPDIR: open }, uid)).toBe(path.join(open, `byre-${uid}`));
    expect(privateRuntimeDir({ TMPDIR: path.join(root, 'missing') }, uid)).toBeNull();
  });

  it.skipIf(uid !== 0)(
    'refuses a parent owned by a user who is neither the caller nor root',
    () => {
      const theirs = path.join(root, 'theirs');
      mkdirSync(theirs, { mode: 0o755 });
      chownSync(theirs, 4243, 4243);
      expect(privateRuntimeDir({ TMPDIR: theirs }, 4242)).toBeNull();
      expect(privateRuntimeDir({ XDG_RUNTIME_DIR: theirs }, 0)).toBeNull();
    },
  );
});
