// Copying a regular file a walk found into a tree byre is building (a build
// context's staging directory): the source is opened without following a
// link and without blocking, so one swapped for a link or a FIFO since the
// walk is refused, never read or waited on; the copy is made only where
// nothing is, never through a link, with the source's permission bits
// exactly; and it is read in 1 MiB chunks, so its size costs time, never
// memory.

import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

const COPY_CHUNK_BYTES = 1024 * 1024;

/** Why a source was not copied: a link stood there, or something not a regular file. */
type CopyRefusal = 'symlink' | 'not-regular';

/**
 * Copies the regular file `src` to the new file `dest`. Returns null when
 * copied, else why `src` was refused (nothing is created then). An error
 * opening `src` is thrown as the OS gave it; one creating or writing `dest`
 * goes through `writeError`, for the caller to name its place.
 */
export async function copyRegularToNew(
  src: string,
  dest: string,
  writeError: (error: unknown) => never,
): Promise<CopyRefusal | null> {
  let source: FileHandle;
  try {
    const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
    source = await open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return 'symlink';
    throw error;
  }
  try {
    const info = await source.stat();
    if (!info.isFile()) return 'not-regular';
    const mode = info.mode & 0o777;
    const target = await open(dest, 'wx', mode).catch(writeError);
    try {
      const buffer = Buffer.alloc(COPY_CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead).catch(writeError);
      }
      // The create mode is filtered by the umask; the copy keeps the source's.
      await target.chmod(mode).catch(writeError);
    } finally {
      await target.close().catch(writeError);
    }
    return null;
  } finally {
    await source.close();
  }
}
