// Scratch space byre makes for itself outside every store (an editor's file,
// a staged paste, an applet's source): a fresh directory under the system's
// temp dir, private (mkdtemp makes it 0700) and removed afterwards without
// following a link inside it. Files go in only where nothing is, never
// through a link (here, and in a fresh staging directory of the store). A
// spool (deliver's stdin and clipboard bytes) is the same directory made only
// when first asked for, and a stream lands in it the same create-only way.

import {
  closeSync,
  constants,
  createWriteStream,
  fchmodSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A fresh private directory named `<prefix>XXXXXX` under the system's temp dir; the caller removes it. */
function makePrivateTempDirSync(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** `fn` over a fresh private directory, which is removed afterwards, `fn` failing or not. */
export function withPrivateTempDirSync<T>(prefix: string, fn: (dir: string) => T): T {
  const dir = makePrivateTempDirSync(prefix);
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh private (0700) directory named `<prefix>XXXXXX`, `prefix` a path
 * beside where its tree will go (a store's staging directory), made where
 * nothing was; the caller removes it.
 */
export async function makeStagingDir(prefix: string): Promise<string> {
  return mkdtemp(prefix);
}

/** A private temp directory made on the first `dir()` only; `remove()` removes it if it was made. */
export interface LazyPrivateTempDir {
  dir(): Promise<string>;
  remove(): Promise<void>;
}

/** A LazyPrivateTempDir named `<prefix>XXXXXX` under the system's temp dir, removed without following a link inside it. */
export function lazyPrivateTempDir(prefix: string): LazyPrivateTempDir {
  let made: Promise<string> | null = null;
  return {
    dir: () => (made ??= mkdtemp(path.join(tmpdir(), prefix))),
    remove: async () => {
      const dir = made === null ? null : await made.catch(() => null);
      if (dir !== null) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Streams `source` into `file` only when nothing is there (`wx`: O_EXCL,
 * which also refuses a link in its place), with `mode`. Rejects with EEXIST
 * otherwise, and `source` is destroyed.
 */
export async function streamToNewFile(source: Readable, file: string, mode = 0o600): Promise<void> {
  await pipeline(source, createWriteStream(file, { mode, flags: 'wx' }));
}

/**
 * Writes `data` to `file` only when nothing is there (O_EXCL, which also
 * refuses a link in its place), with `mode`. Throws EEXIST otherwise.
 */
export function writeNewFileSync(file: string, data: string | Uint8Array, mode = 0o600): void {
  writeNew(file, data, mode, false);
}

/**
 * writeNewFileSync with `mode` set exactly, the umask not applied (fchmod on
 * the new descriptor): a package file's executable and read-only bits are
 * the package's, whatever the umask.
 */
export function writeNewFileExactModeSync(
  file: string,
  data: string | Uint8Array,
  mode: number,
): void {
  writeNew(file, data, mode, true);
}

function writeNew(file: string, data: string | Uint8Array, mode: number, exact: boolean): void {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
  const fd = openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    if (exact) fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}
