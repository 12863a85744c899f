// The edge image last found current, by id (adr/0083), beside the project's
// edge certificates, out of a `--self-edit` box's reach. Read before the
// setup lock, it lets the early edge (adr/0080) run at once instead of
// after the engine's answer about the image under the edge tag: an image id
// names its content, so an image found current for this byre's edge context
// on this engine is current while that id exists. Written under the lock
// whenever the image found current is another. Anything else in the file
// (another engine's, an older byre's, not byre's writing) is no record.

import path from 'node:path';

import { ensurePrivateDir, writeFileAtomic } from '../host/atomic-write.js';
import { readRegularFile } from '../host/read-regular.js';
import { edgeImageDigest } from '../gen/edge-image.js';

/** byre writes well under this; anything larger is not its record. */
const MAX_RECORD_BYTES = 1024;

const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

/** The line byre writes for `id`, found current on `engine` (pure). */
function edgeImageRecordText(engine: string, id: string): string {
  return `${JSON.stringify({ engine, digest: edgeImageDigest(engine), id })}\n`;
}

/** The recorded id when `text` is this byre's record for `engine`, else null (pure). */
function edgeImageRecordId(text: string, engine: string): string | null {
  try {
    const r = JSON.parse(text) as { engine?: unknown; digest?: unknown; id?: unknown };
    const fits =
      r.engine === engine &&
      r.digest === edgeImageDigest(engine) &&
      typeof r.id === 'string' &&
      IMAGE_ID.test(r.id);
    return fits ? (r.id as string) : null;
  } catch {
    return null;
  }
}

/** The edge image id recorded for `engine` in `file`; null when there is none that fits. */
export function recordedEdgeImage(file: string, engine: string): string | null {
  const read = readRegularFile(file, MAX_RECORD_BYTES);
  return read.kind === 'ok' ? edgeImageRecordId(read.bytes.toString('utf8'), engine) : null;
}

/** Record `id` as the edge image found current on `engine`, unless it is already. */
export async function recordEdgeImage(file: string, engine: string, id: string): Promise<void> {
  if (recordedEdgeImage(file, engine) === id) return;
  await ensurePrivateDir(path.dirname(file));
  await writeFileAtomic(file, edgeImageRecordText(engine, id));
}
