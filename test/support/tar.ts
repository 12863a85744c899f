// Tar archives for tests, built with tar-stream the way a box's tar would
// send them: files with bodies, directories, links and specials by type.

import tar from 'tar-stream';

export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device';
  body?: string | Buffer;
  linkname?: string;
}

/** The whole archive of `entries`, end-of-archive marker included. */
export async function tarOf(entries: readonly TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const reading = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const e of entries) {
    const body = e.body ?? '';
    const type = e.type ?? 'file';
    if (type === 'file') pack.entry({ name: e.name, type, size: Buffer.byteLength(body) }, body);
    else
      pack.entry({
        name: e.name,
        type,
        ...(e.linkname === undefined ? {} : { linkname: e.linkname }),
      });
  }
  pack.finalize();
  await reading;
  return Buffer.concat(chunks);
}

/** The archive without its end-of-archive marker (the two zero blocks it ends with). */
export function withoutMarker(archive: Buffer): Buffer {
  return archive.subarray(0, archive.length - 1024);
}
