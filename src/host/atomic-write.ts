// Crash-safe file publication for byre's store: a reader sees the old bytes or
// the new bytes, never a torn file. Directories it creates are private (0700);
// it must never follow a caller into writing outside the directory it names.
// An OS refusal (a full disk, a read-only store) is thrown as a ByreError that
// names the target, never the temp file, so no writer shows the crash banner.

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFailure } from '../output/system-error.js';

const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** mkdir -p with private permissions for the directories it creates. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** A hidden, unique temp name next to `target`, so rename stays on one filesystem. */
export function tempSiblingPath(target: string): string {
  const suffix = `${process.pid}-${randomBytes(6).toString('hex')}`;
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${suffix}`);
}

/** Writes `data` to a fresh temp file beside `target`, fsyncs it, and returns its path. */
async function writeTempSibling(
  target: string,
  data: string | Uint8Array,
  mode: number = PRIVATE_FILE_MODE,
): Promise<string> {
  try {
    return await writeTemp(target, data, mode);
  } catch (error) {
    throw writeFailure(error, target);
  }
}

async function writeTemp(target: string, data: string | Uint8Array, mode: number): Promise<string> {
  await ensurePrivateDir(path.dirname(target));
  const temp = tempSiblingPath(target);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      // The create mode is filtered by umask; the caller asked for exactly `mode`.
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      // close(2) can report a deferred write error (a quota on NFS): it counts.
      await handle.close();
    }
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return temp;
}

/** fsync a directory so a rename or link in it survives a crash (best effort). */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => null);
  if (handle === null) return;
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    await handle.close();
  }
}

/**
 * Atomically replaces `target` with `data` (temp in the same dir + fsync +
 * rename). `beforeRename`, when given, runs once the new bytes are safe on
 * disk and just before they replace the old: a throw there (a writer that
 * finds the file changed under it) leaves `target` as it was and no temp.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  mode: number = PRIVATE_FILE_MODE,
  beforeRename?: () => void,
): Promise<void> {
  const temp = await writeTempSibling(target, data, mode);
  try {
    beforeRename?.();
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  try {
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw writeFailure(err, target);
  }
  await syncDir(path.dirname(target));
}

/**
 * Publishes `data` at `target` only when nothing is there: a fsynced temp
 * sibling linked in with link(2), which fails rather than replaces, so of
 * two racing writers exactly one publishes. False when `target` already
 * existed (left as it was); the temp is removed either way.
 */
export async function publishNew(
  target: string,
  data: string | Uint8Array,
  mode: number = PRIVATE_FILE_MODE,
): Promise<boolean> {
  const temp = await writeTempSibling(target, data, mode);
  try {
    await link(temp, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeFailure(err, target);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncDir(path.dirname(target));
  return true;
}

/**
 * Replaces `target` with `data` through a fresh temp sibling and a rename,
 * synchronously and best effort: no fsync, and a failure leaves the old file
 * (or none) and no temp. For a memo byre can rebuild, never for a record.
 * Returns whether the new bytes are in place.
 */
export function replaceFileBestEffortSync(
  target: string,
  data: string | Uint8Array,
  mode: number = PRIVATE_FILE_MODE,
): boolean {
  const temp = tempSiblingPath(target);
  try {
    writeFileSync(temp, data, { mode, flag: 'wx' });
    renameSync(temp, target);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never written.
    }
    return false;
  }
}

/**
 * writeFileAtomic for a synchronous caller (a launch record, a receipt): a
 * fresh temp sibling made with O_EXCL|O_NOFOLLOW (never a planted file or
 * link), written whole, fsynced when `durable`, renamed over `target`. A
 * failure leaves the old file (or none) and no temp, and is thrown as the OS
 * gave it, for the caller to name.
 */
export function writeFileAtomicSync(
  target: string,
  data: string | Uint8Array,
  opts: { mode?: number; durable: boolean },
): void {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
  const temp = tempSiblingPath(target);
  const fd = openSync(
    temp,
    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
    opts.mode ?? PRIVATE_FILE_MODE,
  );
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      if (opts.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed, or never written.
    }
    throw err;
  }
}
