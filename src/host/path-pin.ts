// A host path pinned as the object it names now (adr/0045): opened once
// with O_PATH (following links as the engine will, or not following the
// last one where byre chose an entry for not being a link), the open
// object's real path read back from /proc/self/fd and its device and inode
// from the descriptor, then closed. Nothing is read; a FIFO or device is
// pinned like any object, never opened for IO. Linux only.

import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';

import { ByreError } from '../errors.js';

/** Linux's O_PATH (the same on x86-64 and arm64); node exports no constant for it. */
const O_PATH = 0o10000000;

/** A bind source as byre pinned it: the object's identity and where it really was. */
interface BindPin {
  dev: bigint;
  ino: bigint;
  /** The open object's real path (symlinks resolved by the kernel, not by a second walk). */
  real: string;
}

/** Pinned, or why nothing can be bound there (gone, a loop of links, a link where none may be). */
export type PinnedSource = { kind: 'pinned'; pin: BindPin } | { kind: 'unbindable'; why: string };

function unpinnable(source: string, error: unknown): ByreError {
  const why = error instanceof Error ? error.message : String(error);
  return new ByreError(`byre cannot pin the bind source ${source}: ${why}`, {
    rule: 'bind.unpinnable',
    remedy: 'make the path readable by your user, or remove the mount that names it',
    cause: error,
  });
}

/**
 * Opens `source`, reads back what it opened, closes it. `noFollow`: the
 * last component must not be a link (seed_prefs' entries, which byre
 * chose for not being one); the engine follows links everywhere, so a link
 * planted later is another object and fails the proof.
 */
export function pinSource(source: string, options: { noFollow?: boolean } = {}): PinnedSource {
  let fd: number;
  try {
    fd = openSync(source, O_PATH | (options.noFollow === true ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') {
      return {
        kind: 'unbindable',
        why: code === 'ELOOP' ? 'a loop of links' : 'it does not exist',
      };
    }
    throw unpinnable(source, error);
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (st.isSymbolicLink()) return { kind: 'unbindable', why: 'a symbolic link' };
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    // The kernel marks an object unlinked since the open; nothing is there to bind.
    if (real.endsWith(' (deleted)')) return { kind: 'unbindable', why: 'it was removed' };
    return { kind: 'pinned', pin: { dev: st.dev, ino: st.ino, real } };
  } catch (error) {
    throw unpinnable(source, error);
  } finally {
    closeSync(fd);
  }
}
